"""tokenizer-lsp: make LLM tokenizer files readable and checkable."""

__version__ = "0.1.0"

"""What a tokenizer does with text: encode, reachability, stats, diff.

The computation uses the field's own engines (HF `tokenizers`, tiktoken), imported only
here and only when needed. In the server they run in a helper process (worker.py) that
exits when idle; the command line calls them directly.
"""

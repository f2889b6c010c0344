"""How answers are shown to an LSP client: hover markdown, inlay hint labels, diagnostics."""

"""LSP features: thin functions from a DocumentIndex to protocol answers."""

"""tiktoken rank files (.tiktoken): base64 bytes and a rank per line."""

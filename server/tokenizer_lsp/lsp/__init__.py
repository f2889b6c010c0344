"""The language server: requests in, answers from a finished index out (core/ does the work)."""

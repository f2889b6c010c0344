"""One module per file format; each parses bytes into a Vocabulary plus source layout."""

"""merges.txt / vocab.bpe: a GPT-2 merges list, read beside its vocab.json."""

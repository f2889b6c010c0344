"""Tokens a tokenizer can never produce (unreachable-token): by the merges' structure, by the
engine, cached on disk, as findings.
"""

"""diff: what differs between two tokenizers by meaning; each file read into a side, compared,
given a verdict, reported.
"""

"""The pure core: text -> detection -> parse -> checks -> index -> navigation -> behaviour, with no
LSP import.

Its top level holds what every stage shares: the model (model.py, compact_vocab.py), detection
(detect.py), the seams where speed-ups plug in (seams.py) and a cache of values built from files
(disk_cache.py).
"""

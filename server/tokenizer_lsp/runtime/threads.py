"""The interpreter's thread switching, tuned for a server whose event loop answers hovers
while a worker thread builds indexes.

CPython hands the interpreter (GIL) to a waiting thread every 5 ms by default: a hover
that arrives while the indexer thread runs Python code waited up to that long before it
began. At 0.5 ms the event loop takes it back ten times sooner, for a few percent more
switching in the builds. Without this (other interpreters, or not installed), the default
interval stands and every answer is the same, only later.
"""

from __future__ import annotations

import sys

SWITCH_INTERVAL_S = 0.0005


def prefer_event_loop() -> bool:
    """True when the interpreter took the shorter interval."""
    try:
        sys.setswitchinterval(SWITCH_INTERVAL_S)
    except (AttributeError, ValueError):
        return False
    return True

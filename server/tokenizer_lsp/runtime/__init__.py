"""Optional speed-ups, each with a plain fallback the core uses without them.

- forked: checks and whole builds run in a forked child beside the parent (core.seams.in_child,
  core.seams.stages_in_child); in the server, chat templates' checks (core.seams.isolated)
- fast_copy: document versions copied with the interpreter released (core.seams.splice)
- malloc: glibc tuning and malloc_trim after an index is dropped (core.seams.release_memory)
- threads: the event loop takes the interpreter back from worker threads sooner
- collector: the startup objects frozen out of the garbage collector's full passes (called
  by cli.py once the server is imported)
- stdio: orjson message parsing, a large didOpen's text straight to bytes, stdin read on
  the event loop, small replies written without releasing the interpreter

Only the entry points (cli.py, engine/worker.py) install it; nothing in core/ imports it,
and lsp/ only reads what it needs (processes, read_ahead). Nothing here imports lsp/
(tests/unit/test_lsp_layers.py).
"""

from __future__ import annotations

from ..core import seams


def install(serving: bool = False) -> None:
    """Plug the speed-ups into the core's seams (and, for the server, into pygls)."""
    from . import fast_copy, forked, malloc

    seams.in_child = forked.Forked
    seams.stages_in_child = forked.ForkedStages
    seams.splice = fast_copy.splice
    seams.release_memory = malloc.release_free_memory
    seams.waited_for = forked.waited_for
    if serving:
        from . import stdio, threads

        seams.isolated = forked.isolated  # chat templates' checks: a runaway never holds the server
        threads.prefer_event_loop()
        malloc.tune_malloc()
        stdio.install()

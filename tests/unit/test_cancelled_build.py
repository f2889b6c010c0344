"""Latest wins below the server: a build for a replaced version stops (a forked build child
is killed, the in-process reference stops between stages) and is not computed again here;
edits since an index coalesce to one per place; the interpreter's switch interval is set by
one runtime call, with the default standing without it."""

from __future__ import annotations

import os
import random
import sys
import threading

import pytest
from tokenizer_lsp.core import seams
from tokenizer_lsp.core.index.build import build_index
from tokenizer_lsp.core.index.staged import build_index_in_child
from tokenizer_lsp.core.text.edits import Change, apply_changes, coalesced
from tokenizer_lsp.runtime import forked, threads

from tests.conftest import ROOT, process_state

EXAMPLE = ROOT / "examples" / "tokenizer.json"
needs_fork = pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "win32", reason="no fork here")


def _slow_stages(data, path, companion, assume):
    import time

    yield build_index(data, path), False
    time.sleep(60)  # the second stage never comes unless cancelled
    yield None


@needs_fork
def test_a_cancelled_staged_build_kills_its_child_and_computes_nothing_here():
    data = EXAMPLE.read_bytes()
    stages = forked.ForkedStages(_slow_stages, data, None, None, False, shared=(data,))
    first = stages.next_stage()
    assert first[0].format == "tokenizer.json"
    pid = stages.pid
    assert pid and process_state(pid) not in (None, "Z")
    threading.Timer(0.2, stages.cancel).start()  # from another thread, as the event loop does
    with pytest.raises(seams.Cancelled):
        stages.next_stage()  # would otherwise wait 60 s, then compute it here
    assert stages.pid == 0 and process_state(pid) is None  # killed and reaped


def test_the_in_process_reference_stops_between_stages():
    data = EXAMPLE.read_bytes()
    stages = seams.InProcessStages(_slow_stages, data, None, None, False)
    stages.next_stage()
    stages.cancel()
    with pytest.raises(seams.Cancelled):
        stages.next_stage()


def test_a_token_cancelled_before_the_build_stops_it_at_once(monkeypatch):
    monkeypatch.setattr("tokenizer_lsp.core.index.staged.STAGED_BUILD_BYTES", 0)  # staged even when small
    data = EXAMPLE.read_bytes()
    token = seams.CancelToken()
    token.cancel()
    with pytest.raises(seams.Cancelled):
        build_index_in_child(data, str(EXAMPLE), cancel=token)
    # and a token never cancelled changes nothing
    idx = build_index_in_child(data, str(EXAMPLE), cancel=seams.CancelToken())
    assert [f.code for f in idx.findings] == [f.code for f in build_index(data, str(EXAMPLE)).findings]


def _apply(base, edits):
    for s, e, n in edits:
        base = base[:s] + n + base[e:]
    return base


def test_coalesced_edits_make_the_same_text_with_one_edit_per_place():
    rng = random.Random(3)
    base = EXAMPLE.read_bytes()
    starts = [i for i in range(len(base)) if not 0x80 <= base[i] < 0xC0]  # character boundaries
    for _ in range(200):
        text, edits, places = base, [], rng.sample(starts, rng.randint(1, 4))
        for at in sorted(places, reverse=True):  # typing at each place, last first: offsets stay put
            typed: list[bytes] = []
            for _ in range(rng.randint(1, 30)):
                if typed and rng.random() < 0.3:  # a backspace: the last character typed
                    end = at + sum(map(len, typed))
                    gone = typed.pop()
                    edits.append((end - len(gone), end, b""))
                    text = text[: end - len(gone)] + text[end:]
                else:
                    ch = rng.choice([b"q", "é".encode(), "我".encode()])
                    end = at + sum(map(len, typed))
                    edits.append((end, end, ch))
                    text = text[:end] + ch + text[end:]
                    typed.append(ch)
        out = coalesced(edits, base)
        assert _apply(base, out) == text
        assert len(out) <= len(places)
        for _s, _e, n in out:  # never cut inside a UTF-8 character
            n.decode("utf-8")


def test_a_burst_on_one_line_applies_as_the_changes_one_by_one():
    text = EXAMPLE.read_text(encoding="utf-8")
    line = next(i for i, t in enumerate(text.split("\n")) if "Ġ" in t)
    data = text.encode("utf-8")
    rng = random.Random(5)
    changes, col = [], text.split("\n")[line].index("Ġ") + 1
    for _ in range(300):
        if rng.random() < 0.2:
            changes.append(Change("", (line, col - 1), (line, col)))
            col -= 1
        else:
            changes.append(Change(rng.choice("ab我"), (line, col), (line, col)))
            col += 1
    one_by_one = data
    for ch in changes:
        one_by_one, _ = apply_changes(one_by_one, [ch], "utf-16")
    together, edits = apply_changes(data, changes, "utf-16")
    assert together == one_by_one
    assert _apply(data, edits) == together and len(edits) == 1


def test_the_switch_interval_is_one_runtime_call():
    before = sys.getswitchinterval()
    try:
        assert threads.prefer_event_loop()
        assert sys.getswitchinterval() == pytest.approx(threads.SWITCH_INTERVAL_S)
    finally:
        sys.setswitchinterval(before)


def test_spans_of_typing_at_one_place_merge_into_one_that_maps_the_same():
    from tokenizer_lsp.core.text.position_map import merged, range_to_new, span_of, to_new, to_old

    rng = random.Random(11)
    for _ in range(500):
        line = rng.randint(0, 3)
        start = (line, rng.randint(0, 20))
        first = span_of(start, (line, start[1] + rng.randint(0, 3)), "ab\ncd" if rng.random() < 0.2 else "xy", "utf-16")
        spans, combined = [first], first
        for _ in range(rng.randint(1, 15)):
            end_line, end_col = combined.new_end
            lo = combined.start[1] if combined.start[0] == end_line else 0
            a = rng.randint(lo, end_col)
            if rng.random() < 0.3 and a < end_col:  # a backspace inside what was typed
                nxt = span_of((end_line, a), (end_line, a + 1), "", "utf-16")
            else:
                nxt = span_of((end_line, a), (end_line, a), rng.choice(["q", "zz"]), "utf-16")
            spans.append(nxt)
            combined = merged(combined, nxt)
            assert combined is not None
        for _ in range(40):
            p = (rng.randint(0, 6), rng.randint(0, 40))
            inside = combined.start <= p <= combined.new_end
            for bias in (None, "start", "end"):
                one, many = to_old(p, [combined], bias), to_old(p, spans, bias)
                if inside and bias is not None:  # carried to the edge of what was replaced
                    assert combined.start <= one <= combined.old_end and combined.start <= many <= combined.old_end
                else:
                    assert one == many
                one, many = to_new(p, [combined], bias), to_new(p, spans, bias)
                if combined.start <= p <= combined.old_end and bias is not None:
                    assert combined.start <= one <= combined.new_end and combined.start <= many <= combined.new_end
                else:
                    assert one == many
            q = (p[0], p[1] + rng.randint(1, 5))  # a token's range: never empty
            assert range_to_new(p, q, [combined]) == range_to_new(p, q, spans)
    # an edit elsewhere does not merge
    a = span_of((0, 5), (0, 5), "x", "utf-16")
    assert merged(a, span_of((0, 1), (0, 1), "y", "utf-16")) is None
    assert merged(a, span_of((2, 0), (2, 0), "y", "utf-16")) is None

"""DocumentState.quiet_for: the background jobs that wait for typing to settle (the
unreachable set, navigation lookups) start only once no edit came for the whole wait."""

from __future__ import annotations

import asyncio

from tokenizer_lsp.lsp.documents import DocumentState


async def test_a_burst_with_short_builds_between_keystrokes_is_waited_out():
    doc = DocumentState(uri="file:///t/tokenizer.json", path=None, version=1, data=b"{}")
    doc.jobs.set_busy(False)

    async def typing():  # 30 keystrokes 10 ms apart, each built in 2 ms: mostly not busy
        for version in range(2, 32):
            await asyncio.sleep(0.01)
            doc.text.version = version
            doc.jobs.set_busy(True)
            await asyncio.sleep(0.002)
            doc.jobs.set_busy(False)

    burst = asyncio.ensure_future(typing())
    await doc.quiet_for(0.5)  # far longer than a gap between two keystrokes
    assert burst.done() and doc.text.version == 31


async def test_a_quiet_document_is_quiet_after_one_wait():
    doc = DocumentState(uri="file:///t/tokenizer.json", path=None, version=7, data=b"{}")
    doc.jobs.set_busy(False)
    await asyncio.wait_for(doc.quiet_for(0.01), 5)
    assert doc.text.version == 7 and not doc.jobs.busy

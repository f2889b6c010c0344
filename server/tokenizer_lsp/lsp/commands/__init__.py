"""The server's workspace/executeCommand commands, one module each (see
handlers/execute_command.py). Each module has `async def run(ls, arguments: list)`,
returning the command's JSON result, and raises `CommandError` for a user's mistake."""

from __future__ import annotations

import asyncio

SETTLE_S = 5.0  # an edit being indexed: wait this long for its index, then answer the last one


class CommandError(Exception):
    """A command that cannot run as asked: the message is shown to the user as it is."""


async def open_tokenizer(ls, arguments: list, command: str):
    """(document, its newest index that tells the whole file, that index's version) of the
    open document named by arguments[0]; CommandError when there is none."""
    if not arguments or not isinstance(arguments[0], str):
        raise CommandError(f"{command} takes [uri]: the URI of an open tokenizer file")
    uri = arguments[0]
    doc = ls.session.documents.get(uri)
    if doc is None:
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    if doc.busy:
        try:
            await asyncio.wait_for(asyncio.shield(doc.settled.wait()), SETTLE_S)
        except asyncio.TimeoutError:
            pass
    idx, version = serving_index(doc)
    if idx is None or idx.vocab is None:
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    return doc, idx, version


def serving_index(doc):
    """(the newest index that tells the whole file, its version): the current one, unless
    it is what broken JSON salvaged and a whole one exists."""
    idx = doc.index
    # an index whose hover lookups are still being built has its vocabulary swapped for the
    # compact one meanwhile (read then, it once counted 0 tokens): the last complete one
    # answers instead, when there is one
    if (
        idx is not None
        and idx.is_tokenizer
        and idx.doc is not None
        and not (idx.salvaged and doc.good is not None)
        and (idx.lookups_ready or doc.good is None)
    ):
        return idx, doc.indexed_version
    if doc.good is not None:
        return doc.good, doc.good_version
    return None, None

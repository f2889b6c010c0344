"""The server's workspace/executeCommand commands, one module each (see
handlers/execute_command.py). Each module has `async def run(ls, arguments: list)`,
returning the command's JSON result, and raises `CommandError` for a user's mistake.

Commands run as background requests (lsp/routes.py): their thread work goes through
lsp/work.py's `off_loop` with the request's cancel token, and a newer version of a
document they read cancels them (the session binds the token to it)."""

from __future__ import annotations


class CommandError(Exception):
    """A command that cannot run as asked: the message is shown to the user as it is."""


async def open_tokenizer(ls, arguments: list, command: str):
    """(newest index of the open document named by arguments[0] that tells the whole
    file, that index's version); CommandError when there is none."""
    if not arguments or not isinstance(arguments[0], str):
        raise CommandError(f"{command} takes [uri]: the URI of an open tokenizer file")
    uri = arguments[0]
    if not ls.session.is_open(uri):
        raise CommandError(f"{uri} is not open in the editor: open the tokenizer file first")
    found = await ls.session.settled_index(uri, lookups=False, tokenizer=True)
    if found is None or found[0].vocab is None:
        raise CommandError(f"{uri.rsplit('/', 1)[-1]} is not a tokenizer file")
    return found

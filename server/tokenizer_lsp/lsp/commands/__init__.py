"""The server's workspace/executeCommand commands, one module each (see
handlers/execute_command.py). Each module has `async def run(ls, arguments: list)`,
returning the command's JSON result, and raises `CommandError` for a user's mistake."""


class CommandError(Exception):
    """A command that cannot run as asked: the message is shown to the user as it is."""

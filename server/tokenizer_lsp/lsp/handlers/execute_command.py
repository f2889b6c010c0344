"""workspace/executeCommand: the commands of lsp/commands/, one module each.

Every command is listed in `executeCommandProvider.commands` (VS Code forwards only those).
"""

from __future__ import annotations

import importlib
import logging

from lsprotocol import types
from pygls.exceptions import JsonRpcInternalError, JsonRpcInvalidParams

from ...core.seams import Cancelled
from ..commands import CommandError

log = logging.getLogger("tokenizer_lsp")

# command -> module of lsp/commands
COMMANDS = {
    "tokenizer-lsp.encode": "encode",
    "tokenizer-lsp.stats": "stats",
    "tokenizer-lsp.diff": "diff",
    "tokenizer-lsp.decodedVocabulary": "decoded_vocabulary",
    "tokenizer-lsp.convertMerges": "convert_merges",
    "tokenizer-lsp.renderChat": "render_chat",
}

OPTIONS = types.ExecuteCommandOptions(commands=list(COMMANDS))


async def handle(ls, params: types.ExecuteCommandParams):
    name = COMMANDS.get(params.command)
    if name is None:
        log.info("unknown command %s refused", params.command)
        raise JsonRpcInvalidParams(f"unknown command {params.command!r}; known: {', '.join(COMMANDS)}")
    module = importlib.import_module(f"..commands.{name}", __package__)
    try:
        return await module.run(ls, list(params.arguments or []))
    except Cancelled:
        raise  # its request was cancelled (lsp/work.py answers it): no failure
    except CommandError as e:
        # a refusal (a broken file, a wrong argument) is the user's answer, not the server's
        # fault: one line here, and the protocol sends it without a traceback (server.py)
        log.info("%s refused: %s", params.command, e)
        raise JsonRpcInvalidParams(str(e)) from None
    except Exception as e:  # a bug in one command must not take the server down
        log.exception("command %s failed", params.command)
        raise JsonRpcInternalError(f"{params.command} failed: {e}") from None

"""The explicit idle signal tests wait on before asserting that nothing happened (never a
sleep: a slow machine made those pass without the server having done anything yet)."""

IDLE = "tokenizer-lsp/idle"


def answered_idle(result) -> bool:
    # pygls hands an unknown method's answer back as a dict or as an object of its fields
    return (result.get("idle") if isinstance(result, dict) else getattr(result, "idle", None)) is True


async def wait_idle(client) -> None:
    """Until the server has nothing due or running; every publication of that work has been
    read by the client once this returns (they were written before the answer)."""
    result = await client.protocol.send_request_async(IDLE, None)
    assert answered_idle(result), result

"""cattrs' code for the messages the server reads and writes, made once at startup and kept.

pygls reads and writes LSP messages through a cattrs converter, which writes and compiles a
function for each lsprotocol class the first time one passes: 4 ms for a didChange, 1-2 ms
for a hover's answer. Two things made that cost land on the typing path:

- a method's first message: the first keystroke of a session compiled the didChange reader,
  and the hover sent right after it waited (8-11 ms in every gemma3 benchmark run);
- cattrs empties its whole cache of generated functions whenever it meets a new kind of list
  (`register_cls_list` then `cache_clear`): the first list answered (inlay hints), or a field
  never written before, hours into a session, and the next hover compiled its answer again.

So at startup every class a message read or written can hold at run time gets its function:
the message or the answer's result, and the members of the unions they reach (cattrs and
lsprotocol read and write a union's value by dispatching on the value's class or shape).
Those functions are registered as the classes' own hooks, which no cache clearing drops.
About 80 ms, beside 0.8 s of imports. lsprotocol's classes subclass none of each other, so a
class's hook is never taken for another's.
"""

from __future__ import annotations

import types as pytypes
import typing
from collections.abc import Iterable

import attrs
from lsprotocol import types
from pygls.protocol import JsonRPCResponseMessage

# what the server sends the client on its own (lsp/publisher.py, lsp/progress.py, settings)
SERVER_SENDS = (
    types.WORKSPACE_DIAGNOSTIC_REFRESH,
    types.WORKSPACE_INLAY_HINT_REFRESH,
    types.WINDOW_WORK_DONE_PROGRESS_CREATE,
    types.PROGRESS,
    types.WINDOW_SHOW_MESSAGE,
)
_ONCE = {types.INITIALIZE, types.SHUTDOWN, types.EXIT}  # answered once, before any document
# written where a field is typed "any": the values of $/progress (lsp/progress.py)
_IN_ANY = (types.WorkDoneProgressBegin, types.WorkDoneProgressReport, types.WorkDoneProgressEnd)


def prepare(protocol, served: Iterable[str]) -> bool:
    """Generate and keep the hooks of `served` methods' messages and answers, and of what
    the server sends on its own; False (nothing done) where the converter cannot."""
    converter = protocol._converter
    if not hasattr(converter, "get_structure_hook"):  # cattrs < 23.2: generated on first use
        return False
    # the kinds of list an answer is at run time, met first here: their cache clearing
    # happens before anything is kept
    converter.unstructure([])
    converter.unstructure(())
    read: set[type] = set()
    written: set[type] = {JsonRPCResponseMessage, *_IN_ANY}
    for method in served:
        message = protocol.get_message_type(method)
        if message is not None:
            read |= _runtime_classes(message)
        answer = types.METHOD_TO_TYPES.get(method, (None, None))[1]
        if answer is not None and method not in _ONCE:
            result = attrs.fields_dict(attrs.resolve_types(answer)).get("result")
            if result is not None:
                written |= _runtime_classes(result.type)
    for method in SERVER_SENDS:
        message, answer = types.METHOD_TO_TYPES[method][:2]
        written |= _runtime_classes(message)
        if answer is not None:
            read |= _runtime_classes(answer)
    hooks = [(cls, converter.get_structure_hook(cls), True) for cls in read]
    hooks += [(cls, converter.get_unstructure_hook(cls), False) for cls in written]
    for cls, hook, reading in hooks:
        (converter.register_structure_hook if reading else converter.register_unstructure_hook)(cls, hook)
    return True


def _runtime_classes(tp) -> set[type]:
    """The lsprotocol classes a value of type `tp` can be, and the members of every union
    reached from them (cattrs writes a union's value by dispatching on its class)."""
    out: set[type] = set()
    seen: set[type] = set()

    def visit(t) -> None:
        for cls in _members(t):
            if cls in seen:
                continue
            seen.add(cls)
            for field in attrs.fields(attrs.resolve_types(cls)):
                out.update(_union_members(field.type))
                visit(field.type)

    out |= _members(tp)
    visit(tp)
    return out


def _members(tp) -> set[type]:
    """attrs classes of `tp` itself or inside it (Optional, Union, Sequence...)."""
    if isinstance(tp, type) and attrs.has(tp):
        return {tp}
    found: set[type] = set()
    for arg in typing.get_args(tp):
        found |= _members(arg)
    return found


def _union_members(tp) -> set[type]:
    """attrs classes that are members of a union anywhere in `tp` (Sequence[A | B] too);
    Optional[A] is no union here: cattrs binds A's code to the field."""
    found: set[type] = set()
    args = typing.get_args(tp)
    union = typing.get_origin(tp) in (typing.Union, pytypes.UnionType)
    if union and sum(a is not type(None) for a in args) > 1:
        found |= _members(tp)
    for arg in args:
        found |= _union_members(arg)
    return found

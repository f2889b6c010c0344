"""The analysis behind `chat-template-portability`: the constructs of a chat template that
another widely used Jinja engine rejects or renders differently.

- llama.cpp and huggingface.js: their sources were read into portability_tables.py and
  portability_hfjs_tables.py; the template's jinja2 syntax tree is walked and each construct
  checked against those tables.
- MiniJinja (TGI, mistral.rs): the template is rendered with the `minijinja` package, set up as
  TGI's router/src/infer/chat_template.rs sets it up, and compared with jinja2's rendering.

Positions: jinja2's nodes carry only a line number, so the template is parsed from jinja2's own
token stream with each token's ordinal in place of its line; a node's "line" is then the token
it was made from, and the token's characters are found in the source.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import jinja2
from jinja2 import nodes
from jinja2.ext import Extension, loopcontrols
from jinja2.lexer import TokenStream, operators
from jinja2.parser import Parser
from jinja2.sandbox import modifies_known_mutable

from . import portability_hfjs_tables as HT
from . import portability_tables as T
from .portability_minijinja import minijinja_issues


@dataclass(frozen=True)
class PortabilityIssue:
    engine: str  # "llama.cpp" | "MiniJinja" | "huggingface.js"
    construct: str  # short name of the construct, e.g. "`loop.cycle`"
    start: int  # character offsets into the template source; -1, -1: the whole template
    end: int
    message: str  # one line: engine, construct, what it does, a portable spelling
    portable: str | None  # replacement for source[start:end], exact in jinja2 and the engine


class _GenerationTag(Extension):
    """transformers' `{% generation %}` tag, for parsing only (its AssistantTracker.parse)."""

    tags = {"generation"}

    def parse(self, parser):
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return nodes.CallBlock(self.call_method("_support"), [], [], body).set_lineno(lineno)


# parsing only: the sandbox and globals of transformers' environment do not change the tree
_ENV = jinja2.Environment(trim_blocks=True, lstrip_blocks=True, extensions=[_GenerationTag, loopcontrols])
# expressions a filter applies to whole (no operator binds looser than `|` inside them)
_PRIMARY = (nodes.Name, nodes.Getattr, nodes.Getitem, nodes.Const, nodes.List, nodes.Dict, nodes.Call, nodes.Filter)
_OPEN = {"lparen": "rparen", "lbracket": "rbracket", "lbrace": "rbrace"}
# Python's own str/dict/list methods that jinja2's immutable sandbox lets a template call: the
# method names an engine may lack (a name outside these is a macro or data, not claimed)
_PY_METHODS = frozenset(
    name
    for typ in (str, dict, list)
    for name in dir(typ)
    if not name.startswith("_") and not modifies_known_mutable(typ(), name)
)


class _Tokens:
    """jinja2's raw tokens of the source with their character offsets."""

    def __init__(self, source: str):
        text = source.replace("\r\n", "\n").replace("\r", "\n")  # as jinja2's lexer does
        self.raw = [(k, v) for _, k, v in _ENV.lexer.tokeniter(source, None)]
        # operator tokens by their own type ("(" -> lparen), as jinja2's Lexer.wrap names them
        self.kind = [operators.get(v, k) if k == "operator" else k for k, v in self.raw]
        self.start: list[int] = []
        cursor = 0
        for _, value in self.raw:
            # tokens appear in order; lstrip/trim/`-` only drop whitespace between them
            at = text.find(value, cursor) if value else cursor
            at = cursor if at < 0 else at
            self.start.append(at)
            cursor = at + len(value)
        if len(text) != len(source):  # map offsets back through the dropped "\r"s
            back = [i for i, ch in enumerate(source) if not (ch == "\r" and source[i + 1 : i + 2] == "\n")]
            back.append(len(source))
            self.start = [back[s] for s in self.start]
            self._back = back
        else:
            self._back = None

    def end(self, i: int) -> int:
        if self._back is None:
            return self.start[i] + len(self.raw[i][1])
        text_start = self._back.index(self.start[i]) if self.start[i] in self._back else 0
        return self._back[min(text_start + len(self.raw[i][1]), len(self._back) - 1)]

    def parse(self, source: str) -> nodes.Template:
        numbered = ((i, k, v) for i, (k, v) in enumerate(self.raw))
        parser = Parser(_ENV, source)
        parser.stream = TokenStream(_ENV.lexer.wrap(numbered), None, None)
        return parser.parse()

    def next(self, i: int) -> int:
        i += 1
        while i < len(self.raw) and self.kind[i] == "whitespace":
            i += 1
        return min(i, len(self.raw) - 1)

    def close(self, i: int) -> int:
        """The token that closes the bracket opened at token i."""
        depth = 0
        for j in range(i, len(self.raw)):
            kind = self.kind[j]
            if kind in _OPEN:
                depth += 1
            elif kind in _OPEN.values():
                depth -= 1
                if depth == 0:
                    return j
        return i

    def span(self, node: nodes.Node) -> tuple[int, int]:
        """First and last token of an expression node."""
        first = last = None
        for n in [node, *node.find_all(nodes.Node)]:
            i = n.lineno
            if i is None or isinstance(n, (nodes.Compare, nodes.Operand, nodes.Keyword, nodes.Pair)):
                continue
            hi = i
            if self.kind[i] in _OPEN:
                hi = self.close(i)
            elif isinstance(n, (nodes.Filter, nodes.Test)):
                j = self.next(i) if isinstance(n, nodes.Filter) else self._test_name(i)
                hi = self.close(j) if self.kind[j] == "lparen" else max(i, j if isinstance(n, nodes.Test) else i)
            first = i if first is None else min(first, i)
            last = hi if last is None else max(last, hi)
        return first, last

    def _test_name(self, i: int) -> int:
        j = self.next(i)
        if self.raw[j][1] == "not":
            j = self.next(j)
        return j

    def chars(self, first: int, last: int) -> tuple[int, int]:
        return self.start[first], self.end(last)


def portability_issues(
    source: str, chats: list[dict], render_jinja2: Callable[[dict], str] | None
) -> list[PortabilityIssue]:
    try:
        tokens = _Tokens(source)
        tree = tokens.parse(source)
    except jinja2.TemplateSyntaxError:
        return []  # chat-template-syntax reports it; nothing to compare
    issues = _static_issues(source, tokens, tree)
    issues += minijinja_issues(source, chats, render_jinja2, PortabilityIssue)
    return issues


# --- the walk --------------------------------------------------------------------------------


def _static_issues(source: str, tokens: _Tokens, tree: nodes.Template) -> list[PortabilityIssue]:
    found: list[tuple[tuple, str, int, int, str | None]] = []  # key, construct, first, last, portable

    def add(key, construct, first, last, portable=None):
        found.append((key, construct, first, last, portable))

    assigned = {n.name for n in tree.find_all(nodes.Name) if n.ctx in ("store", "param")}
    assigned |= {m.name for m in tree.find_all(nodes.Macro)}
    for node in tree.find_all(nodes.Node):
        if isinstance(node, nodes.Filter) and node.name is not None:
            _filter(node, tokens, add)
        elif isinstance(node, nodes.Test):
            name_tok = tokens._test_name(node.lineno)
            add(("test", node.name), f"the `{node.name}` test", name_tok, name_tok)
            if node.args or node.kwargs:
                first, last = tokens.span(node)
                add(("test-args", ""), f"`is {node.name}` with an argument", node.lineno, last)
        elif isinstance(node, nodes.Call):
            _call(node, tokens, add, source)
        elif (
            isinstance(node, nodes.Getattr)
            and isinstance(node.node, nodes.Name)
            and node.node.name == "loop"
            and node.attr not in ("cycle", "changed")
        ):  # methods: _call, with the call's characters
            attr = tokens.next(node.lineno)
            add(("loop", node.attr), f"`loop.{node.attr}`", node.node.lineno, attr)
        elif (
            isinstance(node, nodes.Name) and node.ctx == "load" and node.name not in assigned and node.name != "dict"
        ):  # dict(...): _call, which knows its portable spelling
            add(("global", node.name), f"the `{node.name}` global", node.lineno, node.lineno)
        elif isinstance(node, (nodes.Pow, nodes.FloorDiv)):
            first, last = tokens.span(node)
            op = "**" if isinstance(node, nodes.Pow) else "//"
            add(("op", op), f"the `{op}` operator", first, last)
        elif isinstance(node, nodes.Mul) and isinstance(node.left, nodes.List):
            add(("op", "list*"), "a list repeated with `*`", *tokens.span(node))
        elif isinstance(node, nodes.Compare) and len(node.ops) > 1:
            add(("op", "chain"), "a chained comparison", *tokens.span(node))
        elif isinstance(node, nodes.For) and node.recursive:
            add(("stmt", "recursive"), "a recursive loop", node.lineno, node.lineno)
        else:
            kind = {
                nodes.With: "with",
                nodes.Block: "block",
                nodes.Include: "include",
                nodes.Import: "import",
                nodes.FromImport: "from",
                nodes.Extends: "extends",
                nodes.ScopedEvalContextModifier: "autoescape",
            }.get(type(node))
            if kind:
                add(("stmt", kind), f"`{{% {kind} %}}`", node.lineno, node.lineno)
    for i, (kind, value) in enumerate(tokens.raw):
        if kind == "raw_begin":
            add(("stmt", "raw"), "`{% raw %}`", i, i)
        elif kind in ("block_begin", "block_end", "variable_begin", "variable_end") and "+" in value:
            add(("ws", "+"), f"the `{value}` whitespace modifier", i, i)
        elif kind == "string" and "\\" in value:
            _escapes(value, i, add)

    issues = []
    for engine in (T.LLAMA, T.HFJS):
        for key, construct, first, last, portable in found:
            rule = _rule(engine, key)
            if rule is None:
                continue
            start, end = tokens.chars(first, last)
            hint = f"; portable: {portable!r}" if portable else (f"; portable: {rule.hint}" if rule.hint else "")
            message = f"{engine} {rule.effect} {construct}: it {rule.does}{hint} (per {rule.source})"
            issues.append(PortabilityIssue(engine, construct, start, end, message, portable))
    return issues


def _filter(node: nodes.Filter, tokens: _Tokens, add) -> None:
    name_tok = node.lineno
    parens = tokens.kind[tokens.next(name_tok)] == "lparen"
    last = tokens.close(tokens.next(name_tok)) if parens else name_tok
    add(("filter", node.name), f"the `{node.name}` filter", name_tok, name_tok)
    if parens:
        add(("filter-parens", node.name), f"`{node.name}(...)`", name_tok, last)
    args = len(node.args)
    if node.name == "map" and node.args:
        add(("filter-args", "map-positional"), f"`map({'...' if args else ''})` with a filter name", name_tok, last)
    if node.name in ("select", "reject") and args == 1:
        add(("filter-args", "select-test"), f"`{node.name}` with a test and no argument", name_tok, last)
    if node.name in ("selectattr", "rejectattr"):
        if args == 2:
            add(("filter-args", "selectattr-test"), f"`{node.name}(attribute, test)`", name_tok, last)
        if any(not (isinstance(a, nodes.Const) and isinstance(a.value, str)) for a in node.args) or node.kwargs:
            add(("filter-args", "attr-nonliteral"), f"`{node.name}` with a non-literal argument", name_tok, last)
    if node.name == "format":
        add(("filter-args", "format"), "the `format` filter", name_tok, last)
    if node.name == "slice":
        add(("filter-args", "slice"), "the `slice` filter", name_tok, last)
    if node.name == "default" and not parens:
        add(("filter-args", "no-parens-default"), "`default` without parentheses", name_tok, name_tok, "default('')")


def _call(node: nodes.Call, tokens: _Tokens, add, source: str) -> None:
    callee = node.node
    last = tokens.close(node.lineno)
    if isinstance(callee, nodes.Getattr):
        obj, name = callee.node, callee.attr
        name_tok = tokens.next(callee.lineno)
        if isinstance(obj, nodes.Name) and obj.name == "loop":
            first = obj.lineno
            portable = None
            if name == "cycle" and node.args and not node.kwargs and not node.dyn_args:
                items = ", ".join(_text(source, tokens, a) for a in node.args)
                portable = f"[{items}][loop.index0 % {len(node.args)}]"
            add(("loop", name), f"`loop.{name}(...)`", first, last, portable)
            return
        if name not in _PY_METHODS:
            return
        if name == "join" and len(node.args) == 1 and not node.kwargs:
            items = _text(source, tokens, node.args[0])
            if not isinstance(node.args[0], _PRIMARY):  # `a + b|join` would join only b
                items = f"({items})"
            add(
                ("method", "join"),
                "`sep.join(items)`",
                tokens.span(node)[0],
                last,
                f"{items}|join({_text(source, tokens, obj)})",
            )
            return
        add(("method", name), f"the `.{name}()` method", name_tok, last)
        if name == "split" and not node.args and not node.kwargs:
            add(("method-args", "split-none"), "`.split()` without a separator", name_tok, last)
        if name in ("strip", "lstrip", "rstrip") and node.args:
            add(("method-args", "strip-chars"), f"`.{name}(chars)`", name_tok, last)
        if name == "replace" and len(node.args) > 2:
            add(("method-args", "replace-count"), "`.replace(old, new, count)`", name_tok, last)
        if name in ("startswith", "endswith") and node.args and isinstance(node.args[0], nodes.Tuple):
            add(("method-args", "tuple-prefix"), f"`.{name}((...))` with a tuple", name_tok, last)
        if name == "format" and not (
            isinstance(obj, nodes.Const) and isinstance(obj.value, str) and not re.search(r"\{[^}]", obj.value)
        ):
            add(("method-args", "format-fields"), "`.format()` with named or numbered fields", name_tok, last)
    elif (
        isinstance(callee, nodes.Name)
        and callee.name == "dict"
        and not node.args
        and not node.dyn_args
        and not node.dyn_kwargs
    ):
        items = ", ".join(f"'{k.key}': {_text(source, tokens, k.value)}" for k in node.kwargs)
        add(("global", "dict"), "`dict(...)`", callee.lineno, last, "{" + items + "}")


def _text(source: str, tokens: _Tokens, node: nodes.Node) -> str:
    return source[slice(*tokens.chars(*tokens.span(node)))]


_ESCAPE = re.compile(r"\\(N\{[^}]*\}|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{1,3}|.)", re.S)


def _escapes(literal: str, i: int, add) -> None:
    quote, body = literal[0], literal[1:-1]
    for m in _ESCAPE.finditer(body):
        add(("escape", m.group(1)[0]), f"the `\\{m.group(1)[0]}` escape", i, i, _plain_literal(body, quote))


def _plain_literal(body: str, quote: str) -> str | None:
    """The same string written with only the escapes every engine knows, or None."""
    try:  # jinja2's own decoding of a string literal (lexer.py, TOKEN_STRING)
        value = body.encode("ascii", "backslashreplace").decode("unicode-escape")
    except UnicodeDecodeError:
        return None
    named = {"\\": "\\\\", quote: "\\" + quote, "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    out = []
    for ch in value:
        if ch in named:
            out.append(named[ch])
        elif ch.isprintable():
            out.append(ch)
        else:
            return None
    return quote + "".join(out) + quote


# --- the tables, by construct ----------------------------------------------------------------


def _rule(engine: str, key: tuple) -> T.Rule | None:
    kind, name = key
    llama = engine == T.LLAMA
    rules = T.LLAMA_RULES if llama else HT.HFJS_RULES
    if key in rules:
        return rules[key]
    if kind == "filter" and name in T.JINJA_FILTERS and name not in (T.LLAMA_FILTERS if llama else HT.HFJS_FILTERS):
        src = "value.cpp get_builtins" if llama else "runtime.ts applyFilter"
        return T.Rule(T.REJECTS, "has no such filter", "", src)
    if kind == "filter-parens" and not llama and name in HT.HFJS_FILTERS and name not in HT.HFJS_FILTERS_WITH_ARGS:
        return T.Rule(
            T.REJECTS, "knows this filter only without parentheses", "no parentheses", "runtime.ts applyFilter"
        )
    if kind == "test" and name in T.JINJA_TESTS and name not in (T.LLAMA_TESTS if llama else HT.HFJS_TESTS):
        src = "value.cpp global_builtins test_is_*" if llama else "runtime.ts Environment.TESTS"
        return T.Rule(T.REJECTS, "has no such test", "", src)
    if kind == "method" and name not in (T.LLAMA_METHODS if llama else HT.HFJS_METHODS):
        src = "value.cpp get_builtins" if llama else "runtime.ts StringValue/ObjectValue.builtins"
        return T.Rule(T.REJECTS, "has no such method", "", src)
    if kind == "loop" and name in T.LOOP_ATTRIBUTES_JINJA and name not in (T.LLAMA_LOOP if llama else HT.HFJS_LOOP):
        src = "runtime.cpp for_statement::execute_impl" if llama else "runtime.ts evaluateFor"
        effect = T.REJECTS if name in ("cycle", "changed") else T.DIFFERS
        does = "has no such loop attribute" + ("" if effect == T.REJECTS else " (it is undefined)")
        return T.Rule(effect, does, "", src)
    if kind == "global" and name in (T.LLAMA_GLOBALS_MISSING if llama else HT.HFJS_GLOBALS_MISSING):
        src = "value.cpp global_builtins" if llama else "runtime.ts setupGlobals"
        return T.Rule(T.REJECTS, "has no such global function", "", src)
    if kind == "escape" and name not in (T.LLAMA_ESCAPES if llama else HT.HFJS_ESCAPES):
        src = "lexer.h escape_chars" if llama else "lexer.ts ESCAPE_CHARACTERS"
        return T.Rule(T.REJECTS, "has no such escape in string literals", "the character itself", src)
    return None

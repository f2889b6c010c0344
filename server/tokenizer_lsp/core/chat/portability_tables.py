"""What llama.cpp's and huggingface.js's Jinja engines reject or render differently, read from
their sources, as data for the `chat-template-portability` check (portability.py).

Sources read (every entry below names the file and function it comes from):
- llama.cpp's engine, `common/jinja/` of llama.cpp at commit 0c1e57098, as vendored in the
  newest llama-cpp-python sdist on PyPI (0.3.36): `vendor/llama.cpp/common/jinja/{lexer,parser,
  runtime,value}.cpp`. (Older llama.cpp used google/minja, `common/minja/`; no longer.)
- huggingface.js: `@huggingface/jinja` 0.5.11 on npm, `src/{lexer,parser,runtime}.ts`.

An entry is only what the source shows the engine refusing (an exception on parse or when the
construct runs) or computing differently from jinja2; a construct absent here is not claimed.
Keys are the construct kinds portability.py finds in jinja2's syntax tree: ("filter", name),
("test", name), ("method", name), ("loop", attribute), ("global", name), ("stmt", kind),
("op", operator), ("escape", character after the backslash), ("ws", "+") and a few argument
shapes ("filter-args", ...), ("method-args", ...).
"""

from __future__ import annotations

from dataclasses import dataclass

from jinja2.filters import FILTERS as _JINJA_FILTERS
from jinja2.tests import TESTS as _JINJA_TESTS

LLAMA = "llama.cpp"
HFJS = "huggingface.js"
MINIJINJA = "MiniJinja"

REJECTS = "rejects"
DIFFERS = "renders differently"


@dataclass(frozen=True)
class Rule:
    effect: str  # REJECTS or DIFFERS
    does: str  # what the engine does, for the message
    hint: str  # a portable spelling in words ("" when there is none)
    source: str  # file and function the fact comes from


# jinja2's own filters and tests (what transformers' environment accepts, plus its `tojson`)
JINJA_FILTERS = frozenset(_JINJA_FILTERS) | {"tojson"}
JINJA_TESTS = frozenset(_JINJA_TESTS)
LOOP_ATTRIBUTES_JINJA = frozenset(
    {
        "index",
        "index0",
        "revindex",
        "revindex0",
        "first",
        "last",
        "length",
        "previtem",
        "nextitem",
        "cycle",
        "depth",
        "depth0",
        "changed",
    }
)

# --- llama.cpp -------------------------------------------------------------------------------
# value.cpp `value_{int,float,string,bool,array,object}_t::get_builtins` (filters and methods are
# the same table, looked up on the operand's type by runtime.cpp `try_builtin_func`) and the
# aliases of runtime.cpp `apply_filter` (count->length, d->default, e->escape, trim->strip). The
# names only `value_undefined_t`/`value_none_t` define (sum, truncate, wordcount, unique) and the
# ones whose body throws `not_implemented_exception` (array `unique`) are left out: on a real
# value they fail.
LLAMA_FILTERS = frozenset(
    {
        "default",
        "d",
        "abs",
        "int",
        "float",
        "safe",
        "string",
        "tojson",
        "upper",
        "lower",
        "strip",
        "trim",
        "rstrip",
        "lstrip",
        "title",
        "capitalize",
        "length",
        "count",
        "startswith",
        "endswith",
        "split",
        "rsplit",
        "replace",
        "format",
        "slice",
        "indent",
        "join",
        "list",
        "first",
        "last",
        "selectattr",
        "select",
        "rejectattr",
        "reject",
        "map",
        "sort",
        "reverse",
        "min",
        "max",
        "get",
        "keys",
        "values",
        "items",
        "dictsort",
    }
)
# methods callable as `x.name(...)`: the same tables (string, object, array entries)
LLAMA_METHODS = frozenset(
    {
        "upper",
        "lower",
        "strip",
        "rstrip",
        "lstrip",
        "title",
        "capitalize",
        "startswith",
        "endswith",
        "split",
        "rsplit",
        "replace",
        "format",
        "get",
        "keys",
        "values",
        "items",
    }
)
# value.cpp `global_builtins`: the `test_is_*` entries (escaped, filter: not_implemented)
LLAMA_TESTS = frozenset(
    {
        "boolean",
        "callable",
        "odd",
        "even",
        "false",
        "true",
        "divisibleby",
        "string",
        "integer",
        "float",
        "number",
        "iterable",
        "sequence",
        "mapping",
        "lower",
        "upper",
        "none",
        "defined",
        "undefined",
        "eq",
        "equalto",
        "ge",
        "gt",
        "greaterthan",
        "lt",
        "lessthan",
        "ne",
        "in",
        "test",
        "sameas",
    }
)
# runtime.cpp `for_statement::execute_impl`: the `loop` object it builds (has_builtins = false)
LLAMA_LOOP = frozenset({"index", "index0", "revindex", "revindex0", "first", "last", "length", "previtem", "nextitem"})
# value.cpp `global_builtins`: raise_exception, dict, namespace, strftime_now, range, tojson
LLAMA_GLOBALS_MISSING = frozenset({"cycler", "joiner", "lipsum"})
# lexer.h `escape_chars` (lexer.cpp `consume_while` throws "unknown escape character")
LLAMA_ESCAPES = frozenset("ntrbfv\\'\"")

_LX, _PX, _RX, _VX = (
    "lexer.cpp lexer::tokenize",
    "parser.cpp parser::parse_jinja_statement",
    "runtime.cpp",
    "value.cpp",
)
LLAMA_RULES: dict[tuple, Rule] = {
    ("op", "**"): Rule(
        REJECTS,
        "has no `**` operator (the parser meets a second `*`)",
        "multiply it out",
        "parser.cpp parse_multiplicative_expression",
    ),
    ("op", "//"): Rule(
        REJECTS,
        "has no `//` operator (the parser meets a second `/`)",
        "`(a / b)|int` for non-negative numbers",
        "parser.cpp parse_multiplicative_expression",
    ),
    ("op", "chain"): Rule(
        DIFFERS, "reads `a < b < c` as `(a < b) < c`", "`a < b and b < c`", "parser.cpp parse_comparison_expression"
    ),
    ("op", "list*"): Rule(
        REJECTS, "cannot repeat a list with `*` (only strings)", "a loop", "runtime.cpp binary_expression::execute_impl"
    ),
    ("ws", "+"): Rule(REJECTS, "has no `+` whitespace modifier on tags", "`{%`/`%}`", _LX),
    ("stmt", "recursive"): Rule(
        REJECTS, "has no recursive loops", "a macro that calls itself", "parser.cpp parse_for_statement"
    ),
    ("filter-args", "map-positional"): Rule(
        REJECTS,
        "implements `map` only with `attribute=` (`map: filter-mapping not implemented`)",
        "a loop",
        _VX + " value_array_t map",
    ),
    ("filter-args", "select-test"): Rule(
        DIFFERS,
        "reads the one argument of `select`/`reject` as an attribute name, not a test",
        "`selectattr`/a loop",
        _VX + " selectattr<>",
    ),
    ("filter-args", "selectattr-test"): Rule(
        REJECTS,
        "reads the two arguments of `selectattr(attr, test)` as `(test, value)`",
        "`selectattr(attr, test, value)` or a loop",
        _VX + " selectattr<>",
    ),
    ("filter-args", "format"): Rule(
        DIFFERS,
        "implements `format` as Python's `str.format` with `{}` only: `%s` stays as it is",
        "`~` concatenation",
        _VX + " value_string_t format",
    ),
    ("filter-args", "slice"): Rule(
        DIFFERS,
        "implements the `slice` filter as a Python slice, not jinja2's split into N lists",
        "",
        _VX + " value_array_t slice",
    ),
    ("method-args", "split-none"): Rule(
        DIFFERS,
        "splits `.split()` without a separator on single spaces only (its source marks this unfinished)",
        "",
        _VX + " value_string_t split",
    ),
    ("method-args", "replace-count"): Rule(
        REJECTS, "has no `count` argument to `replace` (not_implemented_exception)", "", _VX + " replace"
    ),
    ("method-args", "format-fields"): Rule(
        REJECTS,
        "implements `.format` with bare `{}` placeholders only",
        "`~` concatenation",
        _VX + " value_string_t format",
    ),
    ("method-args", "tuple-prefix"): Rule(
        REJECTS,
        "takes one string in `startswith`/`endswith`, not a tuple",
        "`or` of two calls",
        _VX + " value_string_t startswith",
    ),
    ("method", "join"): Rule(
        REJECTS,
        "does not implement `str.join` (not_implemented_exception)",
        "`items|join(sep)`",
        _VX + " value_string_t join",
    ),
}
for _name in ("raw", "with", "block", "include", "import", "from", "extends", "autoescape"):
    LLAMA_RULES[("stmt", _name)] = Rule(REJECTS, f"has no `{{% {_name} %}}` statement ('Unknown statement')", "", _PX)

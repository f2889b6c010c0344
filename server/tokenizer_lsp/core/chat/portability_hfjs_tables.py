"""What huggingface.js's Jinja engine (`@huggingface/jinja` 0.5.11 on npm, `src/{lexer,parser,
runtime}.ts`) rejects or renders differently from jinja2, read from its source: the data of
the `chat-template-portability` check for that engine (portability_tables.py holds the kinds
of key, the Rule type and llama.cpp's tables).
"""

from __future__ import annotations

from .portability_tables import DIFFERS, LLAMA_LOOP, REJECTS, Rule

# --- huggingface.js --------------------------------------------------------------------------
# runtime.ts `Interpreter.applyFilter`: the filters it knows, by operand type (without and with
# arguments); object filters fall back to `ObjectValue.builtins` (get, items, keys, values,
# dictsort). A name absent from every branch throws "Unknown ... filter".
HFJS_FILTERS = frozenset(
    {
        "safe",
        "tojson",
        "list",
        "first",
        "last",
        "length",
        "reverse",
        "sort",
        "join",
        "string",
        "unique",
        "upper",
        "lower",
        "title",
        "capitalize",
        "trim",
        "indent",
        "int",
        "float",
        "abs",
        "items",
        "keys",
        "values",
        "get",
        "dictsort",
        "default",
        "selectattr",
        "rejectattr",
        "map",
        "replace",
    }
)
# applyFilter's CallExpression branch: the filters it accepts with parentheses
HFJS_FILTERS_WITH_ARGS = frozenset(
    {
        "tojson",
        "join",
        "int",
        "float",
        "default",
        "sort",
        "selectattr",
        "rejectattr",
        "map",
        "indent",
        "replace",
        "items",
        "keys",
        "values",
        "get",
        "dictsort",
    }
)
# runtime.ts `StringValue.builtins` and `ObjectValue.builtins` (ArrayValue has only `length`)
HFJS_METHODS = frozenset(
    {
        "upper",
        "lower",
        "strip",
        "title",
        "capitalize",
        "rstrip",
        "lstrip",
        "startswith",
        "endswith",
        "split",
        "replace",
        "get",
        "items",
        "keys",
        "values",
    }
)
# runtime.ts `Environment.TESTS` (eq/equalto need an argument, which the parser never passes)
HFJS_TESTS = frozenset(
    {
        "boolean",
        "callable",
        "odd",
        "even",
        "false",
        "true",
        "none",
        "string",
        "number",
        "integer",
        "iterable",
        "mapping",
        "sequence",
        "lower",
        "upper",
        "defined",
        "undefined",
    }
)
# runtime.ts `Interpreter.evaluateFor`: the `loop` map it builds
HFJS_LOOP = LLAMA_LOOP
# runtime.ts `setupGlobals` and `Environment.variables` (namespace): no dict, cycler, ...
HFJS_GLOBALS_MISSING = frozenset({"dict", "cycler", "joiner", "lipsum"})
# lexer.ts `ESCAPE_CHARACTERS` and the `\x`/`\u` branch of `tokenize`
HFJS_ESCAPES = frozenset("ntrbfv\\'\"xu")

_HP, _HR = "parser.ts", "runtime.ts"
HFJS_RULES: dict[tuple, Rule] = {
    ("test-args", ""): Rule(
        REJECTS,
        "takes no argument after a test (the parser stops at the test name)",
        "a comparison operator (`==`, `<`, `in`)",
        _HP + " parseTestExpression",
    ),
    ("op", "chain"): Rule(
        DIFFERS, "reads `a < b < c` as `(a < b) < c`", "`a < b and b < c`", _HP + " parseComparisonExpression"
    ),
    ("ws", "+"): Rule(REJECTS, "has no `+` whitespace modifier on tags", "`{%`/`%}`", "lexer.ts tokenize"),
    ("stmt", "recursive"): Rule(
        REJECTS, "has no recursive loops", "a macro that calls itself", _HP + " parseForStatement"
    ),
    ("filter-args", "map-positional"): Rule(
        REJECTS, "implements `map` only with `attribute=`", "a loop", _HR + " applyFilter map"
    ),
    ("filter-args", "attr-nonliteral"): Rule(
        REJECTS,
        "takes only string literals as `selectattr`/`rejectattr` arguments",
        "",
        _HR + " applyFilter selectattr",
    ),
    ("filter-args", "no-parens-default"): Rule(
        REJECTS, "knows `default` only with parentheses", "`default('')`", _HR + " applyFilter"
    ),
    ("method-args", "strip-chars"): Rule(
        DIFFERS,
        "ignores the characters argument of `strip`/`lstrip`/`rstrip`: it strips all whitespace",
        "",
        _HR + " StringValue.builtins",
    ),
}
for _name in ("raw", "with", "block", "include", "import", "from", "extends", "autoescape"):
    HFJS_RULES[("stmt", _name)] = Rule(
        REJECTS, f"has no `{{% {_name} %}}` statement ('Unknown statement type')", "", _HP + " parseJinjaStatement"
    )

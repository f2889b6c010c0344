from tokenizer_lsp.lsp.settings import Settings, parse_settings


def test_defaults_and_bad_values_are_reported():
    s, problems = parse_settings(None)
    assert s == Settings() and problems == []
    s, problems = parse_settings(
        {
            "inlayHints": {"mode": "loud"},
            "diagnostics": {
                "severity": {"utf8-fragment": "warning", "nope": "error", "id-gap": "fatal"},
                "maxPerFile": -3,
                "debounceMs": 50,
            },
        }
    )
    assert s.inlay_hints == "all" and s.severity == {"utf8-fragment": "warning"} and s.debounce_ms == 50
    assert s.max_per_file == Settings().max_per_file
    assert len(problems) == 4 and any("loud" in p for p in problems)


def test_wrong_types_are_reported_not_ignored():
    s, problems = parse_settings({"tokenizerLsp": {"inlayHints": "off", "diagnostics": ["x"]}})
    assert s == Settings() and len(problems) == 2 and any("inlayHints" in p for p in problems)


def test_the_summary_has_a_severity_too():
    s, problems = parse_settings({"diagnostics": {"severity": {"summary": "off"}}})
    assert problems == [] and s.level("summary") == "off"
    assert Settings().level("summary") == "information"


def test_summary_off_and_limit_in_published_diagnostics():
    from tokenizer_lsp.core.index.files import index_file
    from tokenizer_lsp.lsp.render.diagnostics import diagnostics_for

    from tests.conftest import ROOT

    idx = index_file(str(ROOT / "examples" / "tokenizer.json"))
    findings = len(idx.findings)
    assert findings > 20  # enough for a summary
    full = diagnostics_for(idx, Settings(), "utf-16")
    assert full[0]["code"] == "summary" and len(full) == 1 + findings
    off, _ = parse_settings({"diagnostics": {"severity": {"summary": "off"}, "maxPerFile": 10}})
    assert [d["code"] for d in diagnostics_for(idx, off, "utf-16")] == [f.code for f in idx.findings[:10]]

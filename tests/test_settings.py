from tokenizer_lsp.settings import Settings, parse_settings


def test_defaults_and_bad_values_are_reported():
    s, problems = parse_settings(None)
    assert s == Settings() and problems == []
    s, problems = parse_settings({"inlayHints": {"mode": "loud"}, "diagnostics": {
        "severity": {"utf8-fragment": "warning", "nope": "error", "id-gap": "fatal"}, "maxPerFile": -3, "debounceMs": 50}})
    assert s.inlay_hints == "all" and s.severity == {"utf8-fragment": "warning"} and s.debounce_ms == 50
    assert s.max_per_file == Settings().max_per_file
    assert len(problems) == 4 and any("loud" in p for p in problems)


def test_wrong_types_are_reported_not_ignored():
    s, problems = parse_settings({"tokenizerLsp": {"inlayHints": "off", "diagnostics": ["x"]}})
    assert s == Settings() and len(problems) == 2 and any("inlayHints" in p for p in problems)

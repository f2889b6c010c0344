from tokenizer_lsp.settings import Settings, merge_settings, parse_settings


def test_defaults_and_bad_values_are_reported():
    s, problems = parse_settings(None)
    assert s == Settings() and problems == []
    s, problems = parse_settings({"inlayHints": {"mode": "loud"}, "diagnostics": {
        "severity": {"utf8-fragment": "warning", "nope": "error", "id-gap": "fatal"}, "maxPerFile": -3, "debounceMs": 50}})
    assert s.inlay_hints == "all" and s.severity == {"utf8-fragment": "warning"} and s.debounce_ms == 50
    assert s.max_per_file == Settings().max_per_file
    assert len(problems) == 4 and any("loud" in p for p in problems)


def test_configuration_is_merged_over_initialization_options():
    init = {"diagnostics": {"severity": {"utf8-fragment": "warning"}, "debounceMs": 10}}
    config = {"inlayHints": {"mode": "off"}, "diagnostics": {"debounceMs": None}}
    s, problems = parse_settings(merge_settings(init, config))
    assert problems == [] and s.inlay_hints == "off" and s.level("utf8-fragment") == "warning" and s.debounce_ms == 10
    # the section may come wrapped in its name
    s, _ = parse_settings(merge_settings(init, {"tokenizerLsp": {"diagnostics": {"severity": {"id-gap": "off"}}}}))
    assert s.level("id-gap") == "off" and s.level("utf8-fragment") == "warning"

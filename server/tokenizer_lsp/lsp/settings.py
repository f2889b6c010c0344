"""Server settings: typed, defaulted; bad values are reported and replaced by defaults."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..core.model import DEFAULT_SEVERITY, SEVERITIES

HINT_MODES = ("all", "whitespace", "off")


@dataclass(frozen=True)
class Settings:
    inlay_hints: str = "all"  # all | whitespace | off
    severity: dict[str, str] = field(default_factory=dict)  # code -> level or "off"
    max_per_file: int = 1000  # diagnostics published per document (0 = no limit); VS Code shows 1000
    debounce_ms: int = 100

    def level(self, code: str, default: str | None = None) -> str:
        """The user's level for `code`, else the finding's own default, else the code's."""
        return self.severity.get(code, default or DEFAULT_SEVERITY.get(code, "information"))


def parse_settings(raw) -> tuple[Settings, list[str]]:
    """Settings from the `tokenizerLsp` section (initializationOptions or configuration).

    Accepts the section itself or an object holding it under "tokenizerLsp".
    """
    problems: list[str] = []
    if not isinstance(raw, dict):
        return Settings(), ([] if raw is None else [f"settings must be an object, got {type(raw).__name__}"])
    if isinstance(raw.get("tokenizerLsp"), dict):
        raw = raw["tokenizerLsp"]
    kwargs: dict = {}
    for key in ("inlayHints", "diagnostics"):
        if raw.get(key) is not None and not isinstance(raw.get(key), dict):
            problems.append(f"{key} must be an object, not {raw.get(key)!r}")
    hints = raw.get("inlayHints")
    mode = hints.get("mode") if isinstance(hints, dict) else None
    if mode is not None:
        if mode in HINT_MODES:
            kwargs["inlay_hints"] = mode
        else:
            problems.append(f"inlayHints.mode must be one of {', '.join(HINT_MODES)}, not {mode!r}")
    diag = raw.get("diagnostics") if isinstance(raw.get("diagnostics"), dict) else {}
    sev = diag.get("severity")
    if isinstance(sev, dict):
        good = {}
        for code, level in sev.items():
            if code not in DEFAULT_SEVERITY and code != "summary":
                problems.append(f"diagnostics.severity: unknown code {code!r}")
            elif level not in (*SEVERITIES, "off"):
                problems.append(f"diagnostics.severity.{code}: {level!r} is not one of {', '.join(SEVERITIES)}, off")
            else:
                good[code] = level
        kwargs["severity"] = good
    elif sev is not None:
        problems.append("diagnostics.severity must be an object mapping codes to levels")
    for key, attr, lo in (("maxPerFile", "max_per_file", 0), ("debounceMs", "debounce_ms", 0)):
        value = diag.get(key)
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value >= lo:
            kwargs[attr] = value
        else:
            problems.append(f"diagnostics.{key} must be a non-negative integer, not {value!r}")
    return Settings(**kwargs), problems

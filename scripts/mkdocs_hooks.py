"""mkdocs hooks (mkdocs.yml `hooks:`): the generated parts of the docs site.

- one page per diagnostic code (codes/<code>.md), from core/codes/__init__.py and DEFAULT_SEVERITY;
- `<!-- generated: NAME -->` markers in pages replaced by the codes table, the settings
  table, the benchmark figures;
- nav entries for whatever pages exist under the sections other work drops pages into
  (formats/, guides/, editors/, contributing/): a page added there is in the nav without
  editing mkdocs.yml, and a page not written yet is not a broken link.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import docs_pages  # noqa: E402
from mkdocs.structure.files import File  # noqa: E402

# nav section title -> folder under docs/ whose pages it lists
SECTIONS = {"Editors": "editors", "Formats": "formats", "Guides": "guides", "Contributing": "contributing"}
_outputs: dict[str, str | None] = {}


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("`")
    return path.stem.replace("-", " ").capitalize()


def _listed(entries) -> set[str]:
    out = set()
    for e in entries:
        if isinstance(e, str):
            out.add(e)
        elif isinstance(e, dict):
            for v in e.values():
                out |= _listed(v) if isinstance(v, list) else {v}
    return out


def on_config(config):
    docs = Path(config["docs_dir"])
    for entry in config["nav"]:
        if not isinstance(entry, dict):
            continue
        ((title, children),) = entry.items()
        if title in SECTIONS and isinstance(children, list):
            have = _listed(children)
            for page in sorted((docs / SECTIONS[title]).glob("*.md")):
                rel = page.relative_to(docs).as_posix()
                if rel not in have:
                    children.append({_title(page): rel})
        if title == "Diagnostic codes":
            children.extend({f"{code}": f"codes/{code}.md"} for code in docs_pages.DEFAULT_SEVERITY)
    return config


def on_files(files, config):
    if not _outputs:
        _outputs.update(docs_pages.run_examples())
    for code, output in _outputs.items():
        files.append(File.generated(config, f"codes/{code}.md", content=docs_pages.code_page(code, output)))
    return files


def on_page_markdown(markdown, page, config, files):
    marks = {
        "<!-- generated: codes -->": docs_pages.codes_index,
        "<!-- generated: settings -->": docs_pages.settings_table,
        "<!-- generated: bench -->": docs_pages.bench_section,
    }
    for mark, make in marks.items():
        if mark in markdown:
            markdown = markdown.replace(mark, make())
    return markdown

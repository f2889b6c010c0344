"""The page the wheel ships (server/tokenizer_lsp/playground/static/playground.js) is the
build of its sources (client-playground/src): a source change without `npm run
build:playground` fails here."""

import shutil
import subprocess

from .harness import ROOT

STATIC = ROOT / "server" / "tokenizer_lsp" / "playground" / "static"


def test_the_committed_bundle_is_the_build_of_its_sources(tmp_path):
    node = shutil.which("node")
    assert node and (ROOT / "node_modules" / "esbuild").is_dir(), "needs node and the npm packages (npm ci)"
    out = tmp_path / "playground.js"
    subprocess.run([node, "client-playground/esbuild.mjs", "--outfile", str(out)], cwd=ROOT, check=True, timeout=120)
    assert out.read_bytes() == (STATIC / "playground.js").read_bytes(), "run `npm run build:playground`"


def test_the_page_loads_only_its_own_assets():
    page = (STATIC / "index.html").read_text()
    assert 'src="static/playground.js"' in page and 'href="static/playground.css"' in page
    assert "http:" not in page and "https:" not in page  # nothing leaves the machine
    assert (
        "http://" not in (STATIC / "playground.js").read_text()
        and "https://" not in (STATIC / "playground.css").read_text()
    )


def test_the_wheel_carries_the_page():
    # package data (the release rehearsal, scripts/release-build.sh, builds and installs the wheel)
    assert '"playground/static/*"' in (ROOT / "pyproject.toml").read_text()

"""Builds one self-contained .vsix per platform: dist/tokenizer-lsp-<target>.vsix.

Run through scripts/build-vsix.sh (`npm run package:all`), which provides uv and builds
dist/extension.js first. For each VS Code target and each CPython 3.10-3.14 it resolves the
server's runtime dependencies (pyproject.toml [project] dependencies) for that exact platform
and version, installs the wheels into build/vsix/<target>/libs/cpXY, moves every wheel that is
the same for all five versions (pure Python, abi3) into libs/common once, prunes what never
runs (caches, tests, stubs, dist-info bloat), adds the server package and packages the
extension with `vsce package --target`.

uv resolves, not pip: `pip download --platform --python-version` evaluates environment
markers against the interpreter running pip, so a build on Linux 3.11 would leave out
exceptiongroup (cattrs needs it on 3.10) and colorama (tqdm needs it on Windows). uv's
--python-platform/--python-version evaluate them for the target.

Downloads and resolutions are cached under the cache folder (wheels in uv's cache, one lock
file per target and version, re-resolved when the requirements change or with --refresh), so
a second build touches no network. A .vsix whose inputs (the locks, the server, the staged
extension files, this script, vsce and uv) are those of the build that made it is kept as it
is: .ci/run builds linux-x64 for the bundled-extension test and again in the release dry run,
from the same files (dist/tokenizer-lsp-<target>.vsix.inputs holds the hash; --refresh
rebuilds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
# VS Code target -> uv --python-platform. manylinux_2_28: VS Code itself needs glibc 2.28.
TARGETS = {
    "linux-x64": "x86_64-manylinux_2_28",
    "linux-arm64": "aarch64-manylinux_2_28",
    "darwin-x64": "x86_64-apple-darwin",
    "darwin-arm64": "aarch64-apple-darwin",
    "win32-x64": "x86_64-pc-windows-msvc",
}
PYTHONS = ["3.10", "3.11", "3.12", "3.13", "3.14"]
# VS Code 1.100 runs on macOS 11 and later: no wheel that needs a newer macOS
MACOS_MIN = "11.0"
MAX_VSIX_BYTES = 60 * 1024 * 1024
# Dependencies of our dependencies that the server never imports, left out of the packages:
# `tokenizers` requires huggingface-hub (and through it hf-xet, httpx, tqdm, pyyaml...) for
# `from_pretrained` downloads, `tiktoken` requires requests for downloading encodings; the
# server loads files from disk only. tests/editors/test_bundle_excludes.py runs every engine path
# with these unimportable. (About 9 MB of each package.)
NEVER_IMPORTED = frozenset(
    {
        "huggingface-hub",
        "hf-xet",
        "httpx2",
        "httpcore2",
        "h11",
        "anyio",
        "sniffio",
        "click",
        "truststore",
        "fsspec",
        "tqdm",
        "colorama",
        "pyyaml",
        "filelock",
        "packaging",
        "requests",
        "certifi",
        "charset-normalizer",
        "idna",
        "urllib3",
        "tomli",
    }
)
# what a bundled dist-info keeps: enough for importlib.metadata, and the licences
KEEP_IN_DIST_INFO = ("METADATA", "entry_points.txt", "LICENSE*", "LICENCE*", "COPYING*", "NOTICE*", "AUTHORS*")


def log(message: str) -> None:
    print(f"[build-vsix] {message}", file=sys.stderr, flush=True)


def tag(version: str) -> str:
    return "cp" + version.replace(".", "")


def runtime_requirements() -> list[str]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        return list(tomllib.load(f)["project"]["dependencies"])


def uv_env() -> dict[str, str]:
    env = dict(os.environ, MACOSX_DEPLOYMENT_TARGET=MACOS_MIN)
    # the machine's CA bundle, as pip uses it (a proxy may sign with its own CA)
    env.setdefault("UV_NATIVE_TLS", "1")
    return env


def run(argv: list[str], **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(argv, check=True, text=True, capture_output=True, **kwargs)


def lock_for(uv: str, cache: Path, target: str, version: str, requirements: list[str], refresh: bool) -> Path:
    """The pinned closure for one target and Python, resolved once and kept with a hash of
    the requirements it came from."""
    digest = hashlib.sha256("\n".join([TARGETS[target], MACOS_MIN, *requirements]).encode()).hexdigest()[:16]
    lock = cache / "locks" / target / f"{tag(version)}.txt"
    if not refresh and lock.is_file() and lock.read_text().startswith(f"# requirements {digest}\n"):
        return lock
    lock.parent.mkdir(parents=True, exist_ok=True)
    req_in = lock.with_suffix(".in")
    req_in.write_text("\n".join(requirements) + "\n")
    out = run(
        [
            uv,
            "pip",
            "compile",
            "--quiet",
            "--no-header",
            "--no-annotate",
            "--only-binary",
            ":all:",
            "--python-platform",
            TARGETS[target],
            "--python-version",
            version,
            str(req_in),
        ],
        env=uv_env(),
    ).stdout
    lock.write_text(f"# requirements {digest}\n{out}")
    return lock


def runtime_lock(lock: Path) -> Path:
    """The resolved closure without NEVER_IMPORTED (a file beside the lock)."""

    def name(line: str) -> str:
        return re.split(r"[=<>!~;\s\[]", line, maxsplit=1)[0].strip().lower().replace("_", "-")

    kept = [
        line
        for line in lock.read_text().splitlines()
        if not line.strip() or line.startswith("#") or name(line) not in NEVER_IMPORTED
    ]
    out = lock.with_name(lock.stem + ".runtime.txt")
    out.write_text("\n".join(kept) + "\n")
    return out


def install(
    uv: str, cache: Path, target: str, version: str, requirements: list[str], dest: Path, refresh: bool
) -> None:
    """The closure's wheels for one target and Python, unpacked into `dest`. A combination
    without a wheel for every package (a new CPython a library has not caught up with) stops
    the build, naming it: a package whose server cannot start there is worse than none."""
    try:
        lock = runtime_lock(lock_for(uv, cache, target, version, requirements, refresh))
        # copies, not hard links into uv's cache: pruning edits these files
        base = [
            uv,
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--only-binary",
            ":all:",
            "--link-mode",
            "copy",
            "--target",
            str(dest),
            "--python-platform",
            TARGETS[target],
            "--python-version",
            version,
            "-r",
            str(lock),
        ]
        try:
            run([*base, "--offline"], env=uv_env())  # every wheel already in the cache
        except subprocess.CalledProcessError:
            shutil.rmtree(dest, ignore_errors=True)
            run(base, env=uv_env())
    except subprocess.CalledProcessError as err:
        raise SystemExit(
            f"build-vsix: no complete set of wheels for {target} CPython {version}:\n{err.stderr.strip()}"
        ) from None


def dist_key(dist_info: Path) -> tuple[str, tuple[str, ...]]:
    """A distribution's name-version and wheel tags: equal keys mean the same wheel."""
    wheel = (dist_info / "WHEEL").read_text(encoding="utf-8")
    return dist_info.name, tuple(sorted(re.findall(r"^Tag: (.+)$", wheel, re.MULTILINE)))


def record_files(dist_info: Path) -> list[str]:
    rows = (dist_info / "RECORD").read_text(encoding="utf-8").splitlines()
    paths = [row.rsplit(",", 2)[0].strip('"') for row in rows if row.strip()]
    return [p for p in paths if not p.startswith(("..", "/")) and not p.startswith("bin/")]


def share_common(libs: Path, versions: list[str]) -> list[str]:
    """Moves each wheel installed identically for every version into libs/common."""
    folders = [libs / tag(v) for v in versions]
    keys = [{dist_key(d): d for d in f.glob("*.dist-info")} for f in folders]
    shared = sorted(set(keys[0]).intersection(*keys[1:]))
    common = libs / "common"
    for key in shared:
        files = record_files(keys[0][key])
        for rel in files:
            src, dst = folders[0] / rel, common / rel
            if src.exists():
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.move(src, dst)
        for per_version in keys[1:]:
            for rel in record_files(per_version[key]):
                (per_version[key].parent / rel).unlink(missing_ok=True)
    for folder in folders:
        remove_empty_dirs(folder)
    return [name for name, _ in shared]


def remove_empty_dirs(top: Path) -> None:
    for dirpath, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
        if dirpath != str(top) and not os.listdir(dirpath):
            os.rmdir(dirpath)


def prune(folder: Path) -> None:
    """Drops what never runs: scripts, byte code, tests, type stubs, most of the dist-info."""
    shutil.rmtree(folder / "bin", ignore_errors=True)
    for path in sorted(folder.rglob("*"), key=lambda p: -len(p.parts)):
        if not path.exists() and not path.is_symlink():
            continue
        rel = path.relative_to(folder)
        parent = rel.parts[0]
        if path.is_dir():
            if path.name == "__pycache__" or (
                len(rel.parts) > 1 and path.name in ("tests", "test") and not parent.endswith(".dist-info")
            ):
                shutil.rmtree(path)
            continue
        if parent.endswith(".dist-info"):
            if len(rel.parts) == 2 and path.name == "METADATA":
                # the headers are what importlib.metadata reads; the long description is not
                text = path.read_text(encoding="utf-8", errors="replace")
                path.unlink()  # a new file, should this one still be linked elsewhere
                path.write_text(text.split("\n\n", 1)[0] + "\n", encoding="utf-8")
            elif not any(fnmatch(path.name, pattern) for pattern in KEEP_IN_DIST_INFO) and rel.parts[1] != "licenses":
                path.unlink()
        elif path.suffix in (".pyc", ".pyo", ".pyi") or path.name == "py.typed":
            path.unlink()
    remove_empty_dirs(folder)


# what add_server leaves out of the server package
NOT_SHIPPED = ("__pycache__", "*.pyc", "tests", ".pytest_cache")


def add_server(common: Path) -> None:
    shutil.copytree(
        ROOT / "server" / "tokenizer_lsp", common / "tokenizer_lsp", ignore=shutil.ignore_patterns(*NOT_SHIPPED)
    )


def packaged_patterns() -> list[str]:
    """The files the extension packages: the `!` lines of .vscodeignore (it ignores `**`)."""
    lines = (ROOT / ".vscodeignore").read_text(encoding="utf-8").splitlines()
    return [line[1:].strip() for line in lines if line.startswith("!")]


def stage_extension(stage: Path, libs: Path) -> None:
    shutil.rmtree(stage, ignore_errors=True)
    stage.mkdir(parents=True)
    for pattern in packaged_patterns():
        if pattern.startswith("bundled/libs"):
            continue
        for src in ROOT.glob(pattern):
            if src.is_file():
                dst = stage / src.relative_to(ROOT)
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(src, dst)
    manifest = json.loads((ROOT / "package.json").read_text(encoding="utf-8"))
    manifest.get("scripts", {}).pop("vscode:prepublish", None)  # dist/extension.js is built already
    (stage / "package.json").write_text(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    shutil.copy2(ROOT / ".vscodeignore", stage / ".vscodeignore")
    readme = ROOT / "client-vscode" / "README.md"
    (stage / "client-vscode").mkdir(exist_ok=True)
    shutil.copy2(readme, stage / "client-vscode" / "README.md")
    shutil.copytree(libs, stage / "bundled" / "libs")


def inputs_hash(uv: str, cache: Path, target: str, requirements: list[str]) -> str:
    """A hash of everything one target's .vsix is made from: equal hashes, equal packages."""
    digest = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        digest.update(f"{label}\0{len(data)}\0".encode())
        digest.update(data)

    add("script", Path(__file__).read_bytes())
    add("uv", run([uv, "--version"]).stdout.encode())
    add("vsce", (ROOT / "node_modules" / "@vscode" / "vsce" / "package.json").read_bytes())
    for version in PYTHONS:
        add(f"lock {version}", lock_for(uv, cache, target, version, requirements, False).read_bytes())
    server = ROOT / "server" / "tokenizer_lsp"
    for path in sorted(server.rglob("*")):
        rel = path.relative_to(server)
        if path.is_file() and not any(fnmatch(part, pat) for part in rel.parts for pat in NOT_SHIPPED):
            add(f"server {rel.as_posix()}", path.read_bytes())
    staged = {ROOT / "package.json", ROOT / ".vscodeignore", ROOT / "client-vscode" / "README.md"}
    for pattern in packaged_patterns():
        if not pattern.startswith("bundled/libs"):
            staged.update(p for p in ROOT.glob(pattern) if p.is_file())
    for path in sorted(staged):
        add(f"file {path.relative_to(ROOT).as_posix()}", path.read_bytes())
    return digest.hexdigest()


def package(stage: Path, target: str, out: Path) -> None:
    vsce = ROOT / "node_modules" / ".bin" / "vsce"
    out.unlink(missing_ok=True)
    run(
        [
            str(vsce),
            "package",
            "--no-dependencies",
            "--target",
            target,
            "--readme-path",
            "client-vscode/README.md",
            "--out",
            str(out),
        ],
        cwd=stage,
    )


def fetch_all(uv: str, cache: Path, targets: list[str], requirements: list[str], refresh: bool) -> None:
    """Every target's wheels for every CPython, side by side (the work is waiting on the network)."""
    combos = [(t, v) for t in targets for v in PYTHONS]
    for target in targets:
        shutil.rmtree(ROOT / "build" / "vsix" / target / "libs", ignore_errors=True)
    started = time.monotonic()
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda c: install(
                    uv, cache, c[0], c[1], requirements, ROOT / "build" / "vsix" / c[0] / "libs" / tag(c[1]), refresh
                ),
                combos,
            )
        )
    log(f"wheels for {len(targets)} targets x CPython {', '.join(PYTHONS)}: {time.monotonic() - started:.1f} s")


def assemble(target: str) -> Path:
    """Shares, prunes, adds the server and packages one target's .vsix."""
    work = ROOT / "build" / "vsix" / target
    libs = work / "libs"
    shared = share_common(libs, PYTHONS)
    for folder in libs.iterdir():
        prune(folder)
    add_server(libs / "common")
    (libs / "manifest.json").write_text(
        json.dumps(
            {
                "target": target,
                "pythons": PYTHONS,
                "common": sorted(p.name for p in (libs / "common").glob("*.dist-info")),
                "per_version": {tag(v): sorted(p.name for p in (libs / tag(v)).glob("*.dist-info")) for v in PYTHONS},
            },
            indent=1,
        )
        + "\n"
    )
    out = ROOT / "dist" / f"tokenizer-lsp-{target}.vsix"
    stage_extension(work / "extension", libs)
    package(work / "extension", target, out)
    log(f"{target}: {len(shared)} wheels shared in libs/common, the rest per version; packaged")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--uv", required=True, help="the uv executable")
    parser.add_argument("--cache", type=Path, required=True, help="where locks are kept")
    parser.add_argument("--target", action="append", choices=sorted(TARGETS), help="only these targets")
    parser.add_argument("--refresh", action="store_true", help="resolve the dependencies again")
    args = parser.parse_args()
    if not (ROOT / "dist" / "extension.js").is_file():
        raise SystemExit("build-vsix: dist/extension.js is missing: run `npm run build` first")
    requirements = runtime_requirements()
    targets = args.target or list(TARGETS)
    started = time.monotonic()
    hashes = {t: inputs_hash(args.uv, args.cache, t, requirements) for t in targets}
    stamps = {t: ROOT / "dist" / f"tokenizer-lsp-{t}.vsix.inputs" for t in targets}
    kept = [
        t
        for t in targets
        if not args.refresh
        and (ROOT / "dist" / f"tokenizer-lsp-{t}.vsix").is_file()
        and stamps[t].is_file()
        and stamps[t].read_text().strip() == hashes[t]
    ]
    if kept:
        log(f"{', '.join(kept)}: built from these same inputs already, kept")
    todo = [t for t in targets if t not in kept]
    for target in todo:
        stamps[target].unlink(missing_ok=True)
    if todo:
        fetch_all(args.uv, args.cache, todo, requirements, args.refresh)
    # two at a time: vsce compresses on one core
    with ThreadPoolExecutor(2) as pool:
        built = list(pool.map(assemble, todo))
    for target in todo:
        stamps[target].write_text(hashes[target] + "\n")
    outs = [ROOT / "dist" / f"tokenizer-lsp-{t}.vsix" for t in kept] + built
    sizes = [(out, out.stat().st_size) for out in outs]
    too_big = False
    for out, size in sizes:
        too_big |= size > MAX_VSIX_BYTES
        note = "  OVER THE 60 MB LIMIT" if size > MAX_VSIX_BYTES else ""
        print(f"{out.relative_to(ROOT)}  {size / 1e6:.1f} MB ({size / 2**20:.1f} MiB){note}")
    print(f"built {len(sizes)} .vsix in {time.monotonic() - started:.0f} s")
    return 1 if too_big else 0


if __name__ == "__main__":
    sys.exit(main())

"""FileCache: a value is built once per version of a file on disk."""

import os

from tokenizer_lsp.core.disk_cache import FileCache


def test_built_once_while_unchanged_again_after_a_change_and_none_when_unreadable(tmp_path):
    builds = []

    def build(path):
        builds.append(path)
        with open(path, "rb") as f:
            return f.read()

    a, b = tmp_path / "a", tmp_path / "b"
    a.write_bytes(b"one")
    cache = FileCache(build, keep=1)
    assert cache.get(str(a)) == b"one" and cache.get(str(a)) == b"one"
    assert builds == [str(a)]
    a.write_bytes(b"three")  # another size: another version
    st = os.stat(a)
    os.utime(a, ns=(st.st_atime_ns, st.st_mtime_ns + 1))
    assert cache.get(str(a)) == b"three" and len(builds) == 2
    b.write_bytes(b"bee")
    assert cache.get(str(b)) == b"bee"
    assert cache.get(str(a)) == b"three" and len(builds) == 4  # keep=1: a was dropped for b
    assert cache.get(str(tmp_path / "missing")) is None

# Starts tokenizer-lsp from the libraries a platform .vsix carries (scripts/build_vsix.py):
# bundled/libs/cpXY holds the compiled wheels for CPython X.Y, bundled/libs/common the pure
# and abi3 ones and the server package. Both go in front of sys.path, so that whatever the
# user's Python has installed (an older pygls, say) does not shadow them.
#
#   python launch.py [--stdio]   serve LSP (arguments go to `tokenizer-lsp`)
#   python launch.py --check     print "ok X.Y.Z <folder>" and exit 0, or one line saying
#                                what is wrong and exit 3
#
# Written for old Pythons too (no f-strings, no annotations): a Python 3.5 or 2.7 must get the
# message that it is too old, not a SyntaxError.
# ruff: noqa: UP032
import os
import sys

LIBS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "libs")
OLDEST = (3, 10)
NEWEST = (3, 14)
UNUSABLE = 3


def problem():
    """Why this Python cannot run the bundled server, or None."""
    version = "{}.{}.{}".format(*sys.version_info[:3])
    if sys.version_info[:2] < OLDEST:
        return "Python {} is too old: tokenizer-lsp needs Python 3.10 or newer".format(version)
    if getattr(sys, "implementation", None) is None or sys.implementation.name != "cpython":
        return "Python {} is {}: the bundled libraries are for CPython".format(version, sys.implementation.name)
    if "t" in getattr(sys, "abiflags", ""):
        return "Python {} is a free-threaded build: the bundled libraries are for the regular CPython".format(version)
    if not os.path.isdir(folder()):
        if sys.version_info[:2] > NEWEST:
            return "Python {} is newer than this package supports: it carries libraries for CPython 3.10-3.14".format(
                version
            )
        return "this package has no libraries for Python {} (missing {})".format(version, folder())
    return None


def folder():
    return os.path.join(LIBS, "cp{}{}".format(*sys.version_info[:2]))


def use_bundled_libraries():
    paths = [folder(), os.path.join(LIBS, "common")]
    sys.path[0:0] = paths
    # helper processes the server starts with sys.executable (the engine worker) find them too
    inherited = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(paths + ([inherited] if inherited else []))


def check():
    reason = problem()
    if reason is None:
        use_bundled_libraries()
        try:
            # everything the server imports when it starts
            import tokenizer_lsp.lsp.server  # noqa: F401
        except Exception as err:  # noqa: BLE001 (whatever breaks the import is the one line's reason)
            reason = "the bundled server does not import on Python {}.{}: {}: {}".format(
                sys.version_info[0], sys.version_info[1], type(err).__name__, err
            )
    if reason is not None:
        print(reason)
        return UNUSABLE
    print("ok {}.{}.{} {}".format(sys.version_info[0], sys.version_info[1], sys.version_info[2], folder()))
    return 0


def main():
    if sys.argv[1:] == ["--check"]:
        sys.exit(check())
    reason = problem()
    if reason is not None:
        sys.stderr.write("tokenizer-lsp: {}\n".format(reason))
        sys.exit(UNUSABLE)
    use_bundled_libraries()
    from tokenizer_lsp.cli import run

    sys.argv[0] = "tokenizer-lsp"
    run()


if __name__ == "__main__":
    main()

"""runtime/processes.py: the helper's process group and its signals, and the fallbacks where
a platform or Python has neither."""

import os
import signal
import subprocess
import sys

import pytest

from tokenizer_lsp.runtime import processes
from tests.conftest import process_state

linux_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states in /proc")


@linux_proc
def test_a_helper_started_with_the_options_is_stopped_and_continued_with_its_child():
    # a helper that forks a child of its own, as the engine worker forks for a large file
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\nelse:\n    print(os.getpid(), flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, **processes.helper_popen_options())
    try:
        proc.stdout.readline()
        children = [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == proc.pid]
        processes.signal_helper(proc.pid, "SIGSTOP")
        stopped = [process_state(p) for p in (proc.pid, *children)]
        processes.signal_helper(proc.pid, "SIGCONT")
        running = [process_state(p) for p in (proc.pid, *children)]
        if sys.version_info >= (3, 11):  # a group of its own: the child stops with it
            assert stopped == ["T"] * (1 + len(children)) and children
        else:
            assert stopped[0] == "T"
        assert "T" not in running
    finally:
        os.killpg(proc.pid, signal.SIGKILL) if processes.helper_popen_options() else proc.kill()
        proc.wait()


def test_without_process_groups_only_the_process_is_signalled_and_a_gone_one_is_no_error(monkeypatch):
    monkeypatch.setattr(processes, "_OWN_GROUP", {})
    assert processes.helper_popen_options() == {}
    sent = []
    monkeypatch.setattr(processes.os, "kill", lambda pid, sig: sent.append(("kill", pid, sig)))
    monkeypatch.setattr(processes.os, "killpg", lambda pid, sig: sent.append(("killpg", pid, sig)))
    processes.signal_helper(12345, "SIGSTOP")
    assert sent == [("kill", 12345, signal.SIGSTOP)]
    monkeypatch.undo()
    # a pid that is no process: nothing raised
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    processes.signal_helper(proc.pid, "SIGCONT")


def test_pausing_is_offered_only_where_a_stopped_helper_dies_with_the_server(monkeypatch):
    assert processes.can_pause() == sys.platform.startswith("linux")
    monkeypatch.setattr(processes, "_LINUX", False)
    assert not processes.can_pause()


def _ppid(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (FileNotFoundError, ProcessLookupError):
        return None

"""runtime/processes.py: the helper's process group and its signals, and the fallbacks where
a platform or Python has neither."""

import os
import signal
import subprocess
import sys
import time

import pytest
from tokenizer_lsp.runtime import processes

from tests.conftest import process_state

linux_proc = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="reads process states in /proc")


def _states_once_settled(pids, settled, within=10.0):
    """The states of pids once settled(states) holds, or the last ones read after `within` s.
    A signal is delivered asynchronously: right after kill() returns the target may still be
    'R' for a moment on a loaded machine (CI saw ['R', 'T']), so a state is waited for, not
    read once."""
    deadline = time.monotonic() + within
    while True:
        states = [process_state(p) for p in pids]
        if settled(states) or time.monotonic() > deadline:
            return states
        time.sleep(0.01)


@linux_proc
def test_a_helper_started_with_the_options_is_stopped_and_continued_with_its_child():
    # a helper that forks a child of its own, as the engine worker forks for a large file
    code = "import os, time\nif os.fork() == 0:\n    time.sleep(60)\nelse:\n    print(os.getpid(), flush=True); time.sleep(60)"
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, **processes.helper_popen_options())
    try:
        proc.stdout.readline()
        children = [int(p) for p in os.listdir("/proc") if p.isdigit() and _ppid(int(p)) == proc.pid]
        processes.signal_helper(proc.pid, "SIGSTOP")
        pids = (proc.pid, *children)
        whole_group = sys.version_info >= (3, 11)  # a group of its own: the child stops with it
        stopped = _states_once_settled(pids, lambda s: all(x == "T" for x in (s if whole_group else s[:1])))
        processes.signal_helper(proc.pid, "SIGCONT")
        running = _states_once_settled(pids, lambda s: "T" not in s)
        if whole_group:
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

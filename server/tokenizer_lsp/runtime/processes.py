"""Process-group tricks for the engine helper, one call each, with their fallbacks.

- `helper_popen_options()`: the Popen keywords that put a helper in a process group of its
  own (so stopping it stops its forked children too), but not in a session of its own:
  Linux's autogroup scheduling weighs a new session as much as the server's whole session,
  whatever its nice value. Popen's `process_group` is 3.11+ (`preexec_fn` is not safe beside
  the server's threads): on 3.10, or off Linux, no options (the helper alone is signalled).
- `can_pause()`: where a stopped helper still dies with the server (PR_SET_PDEATHSIG, Linux);
  elsewhere a helper is never stopped (a stopped process runs no watchdog).
- `signal_helper(pid, "SIGSTOP" | "SIGCONT")`: its group where it has one, else the process;
  a helper gone meanwhile is not an error (the next request starts another).
"""

from __future__ import annotations

import os
import signal
import sys

_LINUX = sys.platform.startswith("linux")
_OWN_GROUP = {"process_group": 0} if _LINUX and sys.version_info >= (3, 11) else {}


def can_pause() -> bool:
    return _LINUX


def helper_popen_options() -> dict:
    return dict(_OWN_GROUP)


def signal_helper(pid: int, name: str) -> None:
    send = os.killpg if _OWN_GROUP else os.kill  # the group: its forked children too
    try:
        send(pid, getattr(signal, name))
    except OSError:
        pass

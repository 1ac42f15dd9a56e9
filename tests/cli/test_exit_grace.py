"""The command line's process ends once its command has decided the exit code, even when a
library left a thread or an exit hook behind that would hold it (proposals/0292)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# (id, arguments, exit code, words on stdout or stderr)
COMMANDS = [
    ("version", ["--version"], 0, "openeval, version"),
    ("usage-error", ["run", "--suite", "/no/such/suite"], 2, "openeval: error:"),
]


# What holds the process once the command is done: a thread that never ends, or an exit hook
# that never returns (as Ray's half-started node can).
HOLDS = {
    "thread": "threading.Thread(target=threading.Event().wait).start()",
    "exit-hook": "atexit.register(threading.Event().wait)",
}


def _child(arguments: list[str], hold: str) -> subprocess.CompletedProcess[str]:
    code = textwrap.dedent(f"""
        import atexit, threading
        import openeval.cli as cli
        cli.EXIT_GRACE_S = 0.5
        {hold}
        cli.main({arguments!r}, prog_name="openeval")
    """)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60, check=False)


@pytest.mark.parametrize("hold", list(HOLDS.values()), ids=list(HOLDS))
@pytest.mark.parametrize(("arguments", "code", "says"), [c[1:] for c in COMMANDS],
                         ids=[c[0] for c in COMMANDS])
def test_what_a_library_left_behind_does_not_hold_the_exit(
    arguments: list[str], code: int, says: str, hold: str
) -> None:
    done = _child(arguments, hold)
    assert done.returncode == code, done.stderr
    assert says in done.stdout + done.stderr


def test_a_process_that_ends_by_itself_is_not_kept_waiting() -> None:
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "openeval", "--version"], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60,
                          check=False)
    assert done.returncode == 0
    assert time.monotonic() - started < 10  # the grace is 15 s: the timer does not hold it

"""Run ``openeval`` both in process (click's CliRunner) and as a real subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from openeval.cli import main

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Outcome:
    """What one ``openeval`` invocation printed and returned."""

    code: int
    stdout: str
    stderr: str


Invoke = Callable[..., Outcome]


def _in_process(*args: str) -> Outcome:
    result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception  # a bug in OpenEval, not an exit code: let the test show it
    return Outcome(result.exit_code, result.stdout, result.stderr)


def _subprocess(*args: str) -> Outcome:
    env = {**os.environ, "TERM": "xterm-256color"}  # a colour terminal type, yet a pipe
    done = subprocess.run(
        [sys.executable, "-m", "openeval", *args], capture_output=True, text=True, cwd=ROOT,
        env=env, timeout=120,
    )
    return Outcome(done.returncode, done.stdout, done.stderr)


# The subprocess twin of each test is slow (a fresh interpreter per call): CI runs it.
@pytest.fixture(params=["clirunner", pytest.param("subprocess", marks=pytest.mark.slow)])
def openeval(request: pytest.FixtureRequest) -> Invoke:
    """Return a function running ``openeval ARGS`` one way or the other."""
    return _in_process if request.param == "clirunner" else _subprocess

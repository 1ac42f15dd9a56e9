"""Cases a pull request hides or breaks stay accounted for, through the real command line
(issue 24, findings 5 and 10): a case folder renamed to ``.b`` is still run; a case deleted
since the baseline fails the baseline gate unless ``--allow-removed``; a ``testcase.json``
that is a FIFO or a link to ``/dev/zero`` is one errored case, not a hang or a read until
memory runs out.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good"


def _run(suite: Path, output: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(suite), "--output",
         str(output), *args], capture_output=True, text=True, timeout=60)


def test_a_hidden_case_folder_is_run(tmp_path: Path) -> None:
    shutil.copytree(GOOD, tmp_path / "suite" / "a")
    shutil.copytree(GOOD, tmp_path / "suite" / ".b")
    done = _run(tmp_path / "suite", tmp_path / "out")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "PASS  .b" in done.stdout and "2 case(s)" in done.stdout


@pytest.mark.parametrize("allow", [False, True], ids=["gate-fails", "allow-removed"])
def test_a_deleted_case_fails_the_baseline_gate(tmp_path: Path, allow: bool) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(GOOD, suite / "a")
    shutil.copytree(GOOD, suite / "b")
    assert _run(suite, tmp_path / "base").returncode == 0
    shutil.rmtree(suite / "b")
    done = _run(suite, tmp_path / "head", "--baseline", str(tmp_path / "base"),
                *(["--allow-removed"] if allow else []))
    assert "GONE  b: in the baseline (passed), not in this run" in done.stdout
    assert done.returncode == (0 if allow else 1)


def test_a_fifo_or_device_test_case_is_an_errored_case(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(GOOD, suite / "ok")
    for name in ("fifo", "zero"):
        (suite / name).mkdir()
        shutil.copy(GOOD / "trace.json", suite / name / "trace.json")
    os.mkfifo(suite / "fifo" / "testcase.json")
    (suite / "zero" / "testcase.json").symlink_to("/dev/zero")
    done = _run(suite, tmp_path / "out")
    assert "Traceback" not in done.stdout + done.stderr
    assert "is a named pipe (FIFO), not a regular file" in done.stdout
    assert "is a character device, not a regular file" in done.stdout
    assert "3 case(s): 1 passed, 0 failed, 2 errored" in done.stdout
    assert done.returncode == 1

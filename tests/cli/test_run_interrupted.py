"""``openeval run --suite --workers 2`` stopped part way, for real: a worker killed, the run
terminated or interrupted, the run itself killed, and a second run into the same folder.

Each run is a real subprocess scoring a slow suite (a code check that sleeps); the test waits
until both workers have started scoring (they mark a folder), then sends the signal. Whatever
stops it, the run must end at once in one line and a non-zero exit, leave no verdict a report
could read as current, and leave no process behind.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from builders import GOOD_CASE, scoring_pids, slow_suite

from openeval.results.files import LOCK_NAME, output_folder_lock, write_results
from openeval.runner import run_suite


def children(pid: int) -> list[int]:
    """Return the pids of ``pid``'s child processes, read from /proc (no psutil needed)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(p) for p in (task / "children").read_text().split()]
    return sorted(found)


def alive(pid: int) -> bool:
    """Return True while ``pid`` runs (a zombie waiting to be reaped does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def start_run(suite: Path, out: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "openeval", "run", "--suite", str(suite), "--workers", "2",
         "--output", str(out), "--allow-code"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def finished_run(out: Path) -> None:
    """Fill ``out`` with the verdict of an earlier run that passed."""
    write_results(run_suite(GOOD_CASE), out)
    assert (out / "summary.json").is_file()


@dataclass(frozen=True)
class Stop:
    id: str
    signum: signal.Signals
    worker: bool
    """Sent to a worker (else to the run's own process)."""
    code: int
    says: str


STOPS = [
    Stop("a-worker-killed", signal.SIGKILL, True, 1,
         "the run did not finish: worker process {worker} was killed by SIGKILL"),
    Stop("the-run-terminated", signal.SIGTERM, False, 143,
         "stopped by SIGTERM before the run finished"),
    Stop("the-run-interrupted", signal.SIGINT, False, 130,
         "stopped by SIGINT before the run finished"),
]


@pytest.mark.parametrize("stop", STOPS, ids=[s.id for s in STOPS])
def test_a_stopped_run_ends_in_one_line_and_leaves_nothing(stop: Stop, tmp_path: Path) -> None:
    marks = slow_suite(tmp_path / "suite", cases=40, seconds=0.3)
    out = tmp_path / "results"
    finished_run(out)
    run = start_run(tmp_path / "suite", out)
    workers = scoring_pids(marks, 2)
    assert children(run.pid) == workers
    os.kill(workers[0] if stop.worker else run.pid, stop.signum)
    stdout, stderr = run.communicate(timeout=60)  # promptly: a hang fails here
    assert run.returncode == stop.code
    assert "Traceback" not in stdout + stderr
    [line] = stderr.splitlines()
    assert line.startswith("openeval: error: " + stop.says.format(worker=workers[0])), line
    assert line.endswith(f"this run wrote no verdict (no summary.json in {out.as_posix()})")
    assert not (out / "summary.json").exists()
    report = subprocess.run([sys.executable, "-m", "openeval", "report", "--input", str(out)],
                            capture_output=True, text=True, timeout=60)
    assert report.returncode == 1 and "holds no result" in report.stderr
    assert not [pid for pid in workers if alive(pid)]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="workers die with their "
                    "parent through Linux's PR_SET_PDEATHSIG")
def test_a_killed_run_leaves_no_worker_behind(tmp_path: Path) -> None:
    marks = slow_suite(tmp_path / "suite", cases=40, seconds=0.3)
    run = start_run(tmp_path / "suite", tmp_path / "results")
    workers = scoring_pids(marks, 2)
    run.kill()
    run.communicate(timeout=60)
    deadline = time.monotonic() + 60
    while [pid for pid in workers if alive(pid)]:
        assert time.monotonic() < deadline, "workers outlived the run"
        time.sleep(0.02)


def test_a_second_run_into_a_folder_being_written_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results"
    finished_run(out)
    before = sorted(p.name for p in out.iterdir())
    with output_folder_lock(out):  # this test process is the run writing the folder
        done = subprocess.run(
            [sys.executable, "-m", "openeval", "run", "--suite", str(GOOD_CASE), "--output",
             str(out)], capture_output=True, text=True, timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr == (
        f"openeval: error: {out}: another OpenEval run (pid {os.getpid()}) is writing this "
        "results folder; wait for it to finish or choose another folder\n"
    )
    assert sorted(p.name for p in out.iterdir()) == before  # nothing cleared, nothing written


def test_the_lock_of_a_run_that_died_is_taken_over(tmp_path: Path) -> None:
    out = tmp_path / "results"
    out.mkdir()
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    (out / LOCK_NAME).write_text(gone.stdout)  # what a run killed with SIGKILL leaves
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(GOOD_CASE), "--output",
         str(out), "--quiet"], capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert (out / "summary.json").is_file()
    assert not (out / LOCK_NAME).exists()

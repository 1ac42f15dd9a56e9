"""A Ray node that fails to start never holds ``openeval score --engine ray`` (proposals/0292):
no local node is started under an address-space limit it cannot start in, the half-started
node is given a bounded time to stop, and a process it would keep alive is ended with the
error's exit code after the error is said."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from openeval.production.engines.ray import (
    LOCAL_NODE_ROOM,
    STUCK_EXIT_CODE,
    local_node_refusal,
    stopped_within,
)

ROOT = Path(__file__).resolve().parents[2]


def test_a_stop_that_never_returns_is_given_up_after_the_bound() -> None:
    never = threading.Event()
    started = time.monotonic()
    assert stopped_within(never.wait, 0.2) is False
    assert time.monotonic() - started < 5
    never.set()


def _refuse() -> None:
    raise RuntimeError("the node is gone already")


@pytest.mark.parametrize("stop", [lambda: None, _refuse], ids=["returns", "raises"])
def test_a_stop_that_ends_is_waited_for(stop: object) -> None:
    assert stopped_within(stop, 5) is True  # type: ignore[arg-type]


def test_a_process_held_by_a_thread_is_ended_with_the_code() -> None:
    child = textwrap.dedent(f"""
        import sys, threading
        from openeval.production.engines.ray import end_process_after
        threading.Thread(target=threading.Event().wait).start()  # holds the exit forever
        end_process_after(0.5, {STUCK_EXIT_CODE})
        print("said first", file=sys.stderr, flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60, check=False)
    assert (done.returncode, done.stderr) == (STUCK_EXIT_CODE, "said first\n")


def test_a_process_that_ends_by_itself_keeps_its_own_code() -> None:
    # A daemon timer: it goes with the process, which ends with its own code.
    done = subprocess.run([sys.executable, "-c",
                           "from openeval.production.engines.ray import end_process_after\n"
                           "end_process_after(3600, 9)\nraise SystemExit(4)"],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60, check=False)
    assert done.returncode == 4


GIB = 2**30


@pytest.mark.parametrize(("limit", "refused"), [
    (7 * GIB + 2 * GIB - 1, True),  # one byte short of the store (7 GiB) and the room
    (int(7.6 * GIB), True),  # a limit just above the store: where Ray hung
    (1 * GIB, True),
    (7 * GIB + LOCAL_NODE_ROOM, False),
    (64 * GIB, False),
], ids=["one-byte-short", "just-above-the-store", "1-gib", "exactly-enough", "64-gib"])
def test_a_local_node_needs_its_store_and_room_within_the_limit(limit: int, refused: bool) -> None:
    why = local_node_refusal(limit, memory=70 * GIB, share=0.1)
    assert (why is not None) == refused
    if why is not None:
        assert why.startswith(f"this process may map {limit / GIB:.1f} GiB (ulimit -v), and a "
                              "local Ray node needs 9.0 GiB: its object store (7.0 GiB)")


def test_the_process_limit_is_read() -> None:
    child = ("import resource\n"
             "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))\n"
             "from openeval.production.engines.ray import local_node_refusal\n"
             "print(local_node_refusal())\n")
    done = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=60, check=True)
    assert done.stdout.startswith("this process may map 3.0 GiB (ulimit -v)")


def _address_space(limit: int) -> None:
    os.setsid()  # its own session: what Ray leaves behind is found and ended by that id
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


@pytest.mark.ray
def test_engine_ray_under_a_memory_cap_ends_with_one_line(tmp_path: Path) -> None:
    pytest.importorskip("ray", reason="Ray has no wheel for this Python")
    (tmp_path / "t.jsonl").write_text('{"task_id": "t", "steps": [], "final_output": "hi"}\n')
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("RAY_ADDRESS", None)
    bound = 60  # the limit is read before Ray starts: importing Ray is all it waits for
    process = subprocess.Popen(
        [sys.executable, "-m", "openeval", "score", "t.jsonl", "--engine", "ray", "--output",
         "out"], cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, preexec_fn=lambda: _address_space(2_000_000 * 1024))
    try:
        _, stderr = process.communicate(timeout=bound)
    finally:
        with_session = process.pid
        process.kill()
        process.wait()
        _end_session(with_session)
    assert process.returncode == 2, stderr
    assert stderr.startswith("openeval: error: cannot start or find a Ray cluster: this "
                             "process may map 1.9 GiB (ulimit -v)")
    assert stderr.count("\n") == 1 and "Traceback" not in stderr


def _end_session(session: int) -> None:
    """End what the command left in its session (Ray's gcs_server, raylet ...), by id."""
    listed = subprocess.run(["ps", "-s", str(session), "-o", "pid="], capture_output=True,
                            text=True, check=False).stdout.split()
    for pid in map(int, listed):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            continue

"""Running a user's check in a worker process, so that nothing it does reaches the run.

:func:`run_isolated` sends one check's reference and inputs to a worker process
(:mod:`.worker_main`) and reads its scores back. The user's code therefore runs outside the
scoring process: patching OpenEval's functions, ``os._exit``, ``os.abort``, a signal, a thread
left running or a ``print`` changes only the worker. The scoring process reads the worker's
answer as untrusted JSON (never a pickle: unpickling runs code) and turns every way the worker
can fail into that check's :class:`~openeval.code_checks.types.CodeCheckError`:

- the worker ends (any exit code, any signal) while running the check: errored, naming how it
  ended; a fresh worker serves the next check;
- no answer by the hard deadline (twice the check's time limit, plus a second: the worker stops
  a slow check itself at its limit, with the line it was at, and only a check that defeats that
  stop reaches the deadline): the worker is killed, the check errored;
- an answer that is not the expected JSON, or larger than
  :data:`~openeval.code_checks.worker_main.MAX_ANSWER_BYTES`: errored.

One worker per scoring process (started at the first code check, reused, restarted after a
failure; a process pool's workers each start their own). Design:
proposals/0160-code-opt-in.md.
"""

from __future__ import annotations

import atexit
import contextlib
import copy
import os
import pickle
import select
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from typing import IO, Any, NoReturn

from openeval.code_checks.loader import CodeCheckRef
from openeval.code_checks.types import INPUTS, CodeCheckError
from openeval.code_checks.worker_main import _HEADER, MAX_ANSWER_BYTES, write_frame
from openeval.errors import OpenEvalError
from openeval.models import AgentTrace, EvalTestCase
from openeval.scores import DATA_TYPES, Score, Scores

_GRACE_SECONDS = 1.0
_MAX_SCORES = 10_000
_MAX_TEXT = 100_000


class _Dead(Exception):
    """The worker ended or stopped answering; ``how`` says which, in a few words."""

    def __init__(self, how: str) -> None:
        super().__init__(how)
        self.how = how


class _Worker:
    """One worker process and its two pipes."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "openeval.code_checks.worker_main"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            start_new_session=True,  # its own process group: killed as a whole, and alone
        )
        self.pid = os.getpid()  # a forked child must not use its parent's worker
        assert self.process.stdin is not None and self.process.stdout is not None
        self.requests: IO[bytes] = self.process.stdin
        self.answers: IO[bytes] = self.process.stdout
        if self._read(time.monotonic() + 60.0) != b"ready":
            self.kill()
            raise _Dead("did not start")

    def ask(self, request: dict[str, Any], deadline: float) -> bytes:
        try:
            write_frame(self.requests, pickle.dumps(request))
        except (BrokenPipeError, OSError):
            raise _Dead(self._ending()) from None
        return self._read(deadline)

    def _read(self, deadline: float) -> bytes:
        header = self._read_exactly(_HEADER.size, deadline)
        (size,) = _HEADER.unpack(header)
        if size > MAX_ANSWER_BYTES:
            self.kill()
            raise _Dead(f"answered with {size:,} bytes, more than {MAX_ANSWER_BYTES:,}")
        return self._read_exactly(size, deadline)

    def _read_exactly(self, size: int, deadline: float) -> bytes:
        fd = self.answers.fileno()
        chunks: list[bytes] = []
        left = size
        while left:
            wait = deadline - time.monotonic()
            if wait <= 0:
                self.kill()
                raise _Dead("timeout")
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                continue
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                raise _Dead(self._ending())
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _ending(self) -> str:
        try:
            code = self.process.wait(timeout=5.0)
        except subprocess.TimeoutExpired:
            self.kill()
            return "stopped answering"
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"was killed by {name}"
        return f"exited with code {code}"

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5.0)
        for stream in (self.requests, self.answers):
            with contextlib.suppress(OSError):
                stream.close()

    def close(self) -> None:
        try:
            self.requests.close()  # the worker reads the end of its input and exits
            self.process.wait(timeout=2.0)
        except (OSError, subprocess.TimeoutExpired):
            self.kill()


_lock = threading.Lock()
_current: _Worker | None = None


def _worker() -> _Worker:
    global _current
    if _current is not None and _current.pid != os.getpid():
        _current = None  # the parent's, inherited through fork: not ours to stop
    if _current is not None and _current.process.poll() is not None:
        _current.kill()
        _current = None
    if _current is None:
        _current = _Worker()
    return _current


def _drop(worker: _Worker) -> None:
    global _current
    worker.kill()
    if _current is worker:
        _current = None


def shutdown() -> None:
    """Stop this process's worker, if one runs (at exit, and for tests)."""
    global _current
    with _lock:
        if _current is not None and _current.pid == os.getpid():
            _current.close()
        _current = None


atexit.register(shutdown)


def run_isolated(
    ref: CodeCheckRef,
    *,
    name: str,
    params: Mapping[str, Any],
    trace: AgentTrace,
    test_case: EvalTestCase | None,
    scores: Mapping[str, Scores],
) -> Scores:
    """Return the scores of the check ``ref`` on one case, computed in the worker process.

    Same arguments and errors as :func:`openeval.code_checks.call.run_code_check`, plus an
    errored check for every way the worker fails (see the module docstring).
    """
    request = {"ref": ref, "name": name, "params": dict(params), "trace": trace,
               "test_case": test_case, "scores": dict(scores), "cwd": os.getcwd(),
               "sys_path": list(sys.path), "covers": None}
    declared = _declared.get(ref)
    if declared is not None:
        request["trace"], request["covers"] = _cut(trace, declared)
    deadline_seconds = 2 * ref.time_limit + _GRACE_SECONDS
    with _lock:
        try:
            worker = _worker()
        except (_Dead, OSError) as exc:
            raise CodeCheckError(f"the process that runs code checks could not start: {exc}",
                                 source=ref.reference) from None
        try:
            payload = worker.ask(request, time.monotonic() + deadline_seconds)
            answer = _read_answer(payload, ref)
            if isinstance(answer, tuple) and request["covers"] is not None:
                request["trace"], request["covers"] = trace, None
                payload = worker.ask(request, time.monotonic() + deadline_seconds)
                answer = _read_answer(payload, ref)
        except _Dead as exc:
            _drop(worker)
            raise _died(ref, exc.how, deadline_seconds) from None
        except KeyboardInterrupt:
            _drop(worker)
            raise
    if isinstance(answer, tuple):  # asked to resend the whole trace, which it had
        raise CodeCheckError("its process answered with something that is not a verdict",
                             source=ref.reference)
    return answer


_declared: dict[CodeCheckRef, frozenset[str]] = {}
"""The inputs each check declared when it last ran, as its worker reported them: the next
call sends only the parts of the trace those inputs read (a 10,000-step trace need not cross
the pipe for a check that reads ``model_output``)."""

_STEP_INPUTS = frozenset({"trace", "steps", "tool_calls"})
_MESSAGE_INPUTS = frozenset({"trace", "model_input"})


def _cut(trace: AgentTrace, declared: frozenset[str]) -> tuple[AgentTrace, list[str] | None]:
    """Return the trace to send a check that declares ``declared``, and the inputs that trace
    still serves (None: the whole trace, every input)."""
    keep_steps = bool(declared & _STEP_INPUTS)
    keep_messages = bool(declared & _MESSAGE_INPUTS)
    if keep_steps and keep_messages:
        return trace, None
    cut = copy.copy(trace)  # a shallow copy: only the pickle of it crosses the pipe
    served = set(INPUTS) - {"trace"}
    if not keep_steps:
        cut.steps = []
        served -= _STEP_INPUTS
    if not keep_messages:
        cut.messages = []
        served -= _MESSAGE_INPUTS
    return cut, sorted(served)


def _died(ref: CodeCheckRef, how: str, deadline: float) -> CodeCheckError:
    if how == "timeout":
        message = (f"ran past its time limit of {ref.time_limit:g} s and did not stop; its "
                   f"process was killed after {deadline:g} s")
    else:
        message = f"the process running it {how}; nothing it did reached this run"
    return CodeCheckError(message, source=ref.reference)


def _read_answer(payload: bytes, ref: CodeCheckRef) -> Scores | tuple[str, ...]:
    """Return the scores the worker answered, or the inputs it asks the whole trace for."""
    from openeval.jsonio import parse_json

    try:
        found = parse_json(payload, max_depth=8)
    except OpenEvalError:
        found = None
    if isinstance(found, dict) and set(found) == {"error", "source"}:
        message, source = found["error"], found["source"]
        if isinstance(message, str) and (source is None or isinstance(source, str)):
            return _raise(message[:_MAX_TEXT], source[:_MAX_TEXT] if source else None)
    inputs = found.get("inputs") if isinstance(found, dict) else None
    if isinstance(inputs, list) and all(name in INPUTS for name in inputs):
        # What the check declared: a lie only cuts what that same check is sent next.
        _declared[ref] = frozenset(inputs)
        if set(found) == {"resend", "inputs"} and found["resend"] is True:
            return tuple(inputs)
    if isinstance(found, dict) and set(found) == {"inputs", "scores"}:
        listed = found["scores"]
        if isinstance(listed, list) and 0 < len(listed) <= _MAX_SCORES:
            built = [_score(entry) for entry in listed]
            if all(s is not None for s in built):
                return Scores([s for s in built if s is not None])
    raise CodeCheckError("its process answered with something that is not a verdict",
                         source=ref.reference)


def _raise(message: str, source: str | None) -> NoReturn:
    raise CodeCheckError(message, source=source)


def _score(entry: Any) -> Score | None:
    keys = {"value", "data_type", "comment", "name", "higher_is_better"}
    if not isinstance(entry, dict) or set(entry) != keys:
        return None
    value, data_type = entry["value"], entry["data_type"]
    comment, name, better = entry["comment"], entry["name"], entry["higher_is_better"]
    if data_type not in DATA_TYPES or not isinstance(value, (bool, int, float, str)):
        return None
    if not all(v is None or isinstance(v, str) for v in (comment, name)):
        return None
    if better is not None and not isinstance(better, bool):
        return None
    try:
        return Score(value, data_type, comment, name, better)
    except ValueError:
        return None

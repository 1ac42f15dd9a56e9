"""The worker process that runs users' checks: ``python -m openeval.code_checks.worker_main``.

Started by :mod:`openeval.code_checks.worker`, never by hand. It reads requests on its standard
input and answers on its standard output, each a frame (:func:`write_frame`): a request is a
pickle from the scoring process (which this process trusts), an answer is JSON (which the
scoring process trusts no more than any other input: a check could write anything on it).

Before any user code runs, the two pipes are moved to file descriptors of their own and the
standard input, output and error are pointed at the null device, so nothing the user's code
prints reaches the run's log or the protocol by accident. On Linux the process dies with its
parent (``PR_SET_PDEATHSIG``), so a killed run leaves no worker behind.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from typing import IO, Any

_HEADER = struct.Struct(">Q")

MAX_ANSWER_BYTES = 16 * 1024 * 1024
"""Largest answer the scoring process reads; a larger one is the check's error."""


def write_frame(stream: IO[bytes], payload: bytes) -> None:
    """Write one frame: an 8-byte big-endian length, then ``payload``."""
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


def read_frame(stream: IO[bytes], limit: int | None = None) -> bytes | None:
    """Return the next frame's payload; None at the end of the stream or on a short frame."""
    header = stream.read(_HEADER.size)
    if len(header) < _HEADER.size:
        return None
    (size,) = _HEADER.unpack(header)
    if limit is not None and size > limit:
        return None
    payload = stream.read(size)
    return payload if len(payload) == size else None


def _private_pipes() -> tuple[IO[bytes], IO[bytes]]:
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)
    return requests, answers


def _die_with_parent() -> None:
    # The scoring process stops this worker itself; a Ctrl-C of the terminal is its business.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        import ctypes

        pr_set_pdeathsig = 1
        parent = os.getppid()
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before prctl
            raise SystemExit(0)


def answer(request: dict[str, Any]) -> dict[str, Any]:
    """Return the JSON-ready answer to one request: the check's scores, or its error."""
    from openeval.code_checks.call import run_code_check
    from openeval.code_checks.loader import load_check
    from openeval.code_checks.types import CodeCheckError

    try:
        declared = list(load_check(request["ref"]).inputs)
        covers = request.get("covers")
        if covers is not None and not set(declared) <= set(covers):
            # The trace was cut to what the check declared before (its file changed since):
            # ask for the whole of it rather than hand the check a trace missing its steps.
            return {"resend": True, "inputs": declared}
        scores = run_code_check(
            request["ref"], name=request["name"], params=request["params"],
            trace=request["trace"], test_case=request["test_case"], scores=request["scores"],
            fresh=True,  # unpickled for this request alone: no other check sees them
        )
    except CodeCheckError as exc:
        return {"error": exc.message, "source": exc.source}
    return {"inputs": declared, "scores": [
        {"value": s.value, "data_type": s.data_type, "comment": s.comment, "name": s.name,
         "higher_is_better": s.higher_is_better}
        for s in scores
    ]}


def serve(requests: IO[bytes], answers: IO[bytes]) -> None:
    """Answer requests until the scoring process closes the pipe."""
    import orjson

    write_frame(answers, b"ready")
    while True:
        frame = read_frame(requests)
        if frame is None:
            return
        request = pickle.loads(frame)
        # The scoring process's folder and import path: paths show and modules resolve as
        # they would there.
        if os.getcwd() != request["cwd"]:
            os.chdir(request["cwd"])
        sys.path[:] = request["sys_path"]
        found = answer(request)
        try:
            payload = orjson.dumps(found)
        except TypeError as exc:  # a CATEGORICAL value that is not text, and the like
            payload = orjson.dumps({"error": f"returned a score that is not JSON: {exc}",
                                    "source": None})
        write_frame(answers, payload)


def main() -> None:
    """Run the worker (see the module docstring)."""
    requests, answers = _private_pipes()
    _die_with_parent()
    serve(requests, answers)
    os._exit(0)  # threads the user's code left running do not keep the worker alive


if __name__ == "__main__":
    main()

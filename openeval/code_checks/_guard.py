"""Running the user's code: a time limit, and every way it can end turned into a verdict.

:func:`guarded` calls user code (importing a check file, or calling its function) and returns
what it returned. Anything else becomes one :class:`~openeval.code_checks.types.CodeCheckError`
naming ``file:line`` in the user's code: an exception (the deepest frame in the check's file),
``sys.exit()``, running past the time limit (where it was stopped), ``KeyboardInterrupt`` too:
this runs in the worker process of :mod:`openeval.code_checks.worker`, which ignores SIGINT, so
a ``KeyboardInterrupt`` there is the check's own (Ctrl-C stops the scoring process, which
kills the worker).

The time limit (proposals/0070-code-checks-and-pytest.md, "Time limits"):

- in the main thread, where ``signal.setitimer`` exists and no other timer is running, a
  ``SIGALRM`` timer raises an exception inside the check when the limit passes; the check
  stops there and nothing of it keeps running;
- elsewhere (a worker thread, Windows, a test runner's own alarm already armed) the call runs in
  a daemon thread that is abandoned after the limit: the run goes on, but the abandoned call may
  keep running in the background until it returns or the process exits.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType, TracebackType
from typing import Any, TypeVar

from openeval.code_checks.types import CodeCheckError, code_error

T = TypeVar("T")

_OPENEVAL_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_STDLIB_DIR = os.path.dirname(os.path.abspath(os.__file__))


class _TimeUp(BaseException):
    """Raised inside the check by the alarm; a BaseException so ``except Exception`` in the
    user's code does not swallow it."""


class _Abandoned(Exception):
    """The check's thread was still running at the limit; ``frame`` is where it was."""

    def __init__(self, frame: FrameType | None) -> None:
        super().__init__("abandoned")
        self.frame = frame


def shown(path: str) -> str:
    """Return ``path`` as messages show it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    if relative.startswith(os.pardir):
        return path.replace(os.sep, "/")
    return relative.replace(os.sep, "/")


def guarded(
    run: Callable[[], T],
    *,
    limit: float,
    what: str,
    file: str | None,
    line: int | None = None,
    where: str | None = None,
) -> T:
    """Return ``run()``; raise CodeCheckError when it raises, exits or runs past ``limit``.

    ``what`` names the code in messages (``refund_limit``, ``importing the check file``);
    ``file`` (absolute) and ``line`` say where it is defined, the place a message points at
    when the user's code itself gives none; ``where`` is shown instead when ``file`` is
    unknown (a module that could not be found).
    """
    fallback = (shown(file) if file else where or "<unknown>", line)
    try:
        return _with_limit(run, limit)
    except _TimeUp as exc:
        place = _user_frame(exc.__traceback__, file) or fallback
        raise _late(what, limit, place, "stopped") from None
    except _Abandoned as exc:
        place = _frame_place(exc.frame, file) or fallback
        raise _late(what, limit, place, "abandoned (it may still run in the background)") from None
    except SystemExit as exc:
        place = _user_frame(exc.__traceback__, file) or fallback
        call = "sys.exit()" if exc.code is None else f"sys.exit({safe_text(repr, exc.code)})"
        raise code_error(f"{what} called {call}", *place) from None
    except BaseException as exc:  # isolation: whatever the user's code raises is its verdict
        place = _user_frame(exc.__traceback__, file) or fallback
        text = safe_text(str, exc)
        reason = f"{type(exc).__name__}: {text}" if text else type(exc).__name__
        raise code_error(f"{what} raised {reason}", *place) from None


ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
"""The memory address in a default repr (``<Thing object at 0x7f...>``): it differs on every
run, and result files must not."""


def safe_text(show: Callable[[Any], str], value: Any) -> str:
    """Return ``show(value)`` (``str`` or ``repr``) without memory addresses, or a placeholder
    when the user's own ``__str__``/``__repr__`` raises: describing a failure must not fail,
    nor differ from run to run (an exception carrying an object's repr)."""
    try:
        return ADDRESS.sub("", show(value))
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"


def _late(what: str, limit: float, place: tuple[str, int | None], how: str) -> CodeCheckError:
    return code_error(
        f"{what} ran past its time limit of {limit:g} s and was {how}; give its check entry a "
        "larger 'time_limit' if it needs longer",
        *place,
    )


def _with_limit(run: Callable[[], T], limit: float) -> T:
    if _alarm_available():
        return _with_alarm(run, limit)
    return _with_thread(run, limit)


def _alarm_available() -> bool:
    return (
        hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
        and signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # never clobber another alarm
    )


def _with_alarm(run: Callable[[], T], limit: float) -> T:
    fired = False

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        fired = True
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, on_alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            result = run()
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, previous if previous is not None else signal.SIG_DFL)
    if fired:  # the check caught the stop itself and returned late: still too late
        raise _TimeUp
    return result


def _with_thread(run: Callable[[], T], limit: float) -> T:
    outcome: dict[str, Any] = {}

    def target() -> None:
        try:
            outcome["value"] = run()
        except BaseException as exc:  # carried to the caller, which decides what it means
            outcome["error"] = exc

    worker = threading.Thread(target=target, name="openeval-code-check", daemon=True)
    worker.start()
    worker.join(limit)
    if worker.is_alive():
        frame = sys._current_frames().get(worker.ident) if worker.ident is not None else None
        raise _Abandoned(frame)
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


def _user_frame(tb: TracebackType | None, file: str | None) -> tuple[str, int] | None:
    """Return ``(file as shown, line)`` of the deepest frame in ``file``, else of the deepest
    frame of the user's code (:func:`_is_users`); None when there is none."""
    frames: list[tuple[str, int]] = []
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return _deepest(frames, file)


def _frame_place(frame: FrameType | None, file: str | None) -> tuple[str, int] | None:
    frames: list[tuple[str, int]] = []
    while frame is not None:
        frames.append((frame.f_code.co_filename, frame.f_lineno))
        frame = frame.f_back
    return _deepest(frames[::-1], file)


def _deepest(frames: list[tuple[str, int]], file: str | None) -> tuple[str, int] | None:
    if file is not None:
        own = [line for name, line in frames if name == file]
        if own:
            return shown(file), own[-1]
    outside = [(shown(name), line) for name, line in frames if _is_users(name)]
    return outside[-1] if outside else None


def _is_users(filename: str) -> bool:
    """True for a frame of code neither OpenEval nor Python itself wrote (the import system,
    the standard library); installed packages count as the user's."""
    if filename.startswith("<") or filename.startswith(_OPENEVAL_DIR + os.sep):
        return False
    in_stdlib = filename.startswith(_STDLIB_DIR + os.sep)
    return not in_stdlib or "site-packages" in filename or "dist-packages" in filename


"""A CPU-time budget for every search of a user's regular expression.

Python's ``re`` backtracks, and the static refusal of :mod:`openeval.matching.regex_bounds`
cannot see every pattern that backtracks without bound (``\\w*b\\w*$``: two repetitions around
a required character both can match take minutes on 10,000 characters). The matcher of
``_sre`` checks for signals while it runs, so :func:`bounded_search` arms a timer of the
process's CPU time (``ITIMER_VIRTUAL``, :data:`BUDGET_SECONDS`) around the search; when it
expires, the handler raises inside the search, which stops there, and the search gives up
with :class:`RegexGaveUp` naming the pattern: an errored check, never a pass
(proposals/0310-regex-cpu-budget.md).

- CPU time, not wall time: a loaded machine does not make an honest search give up.
- The handler (for ``SIGVTALRM``, which nothing else in a run uses; pytest-timeout uses
  ``SIGALRM``) is installed once per process, on the first search, because replacing it on
  every search costs 5 µs; each search only arms and disarms the timer (under 1 µs). Outside
  a search it ignores the signal, so a timer that expires just as its search returns is
  harmless.
- A search inside another one's budget runs under that budget and does not re-arm.
- Where the timer cannot be armed, the search runs unbounded, as before this module, with only
  the static refusal: off the main thread (signals reach only the main thread), without
  ``signal.setitimer`` (Windows), when another ``ITIMER_VIRTUAL`` timer is already running (it
  is left as it was), and when another ``SIGVTALRM`` handler was installed before the first
  search (it is left in place).
"""

from __future__ import annotations

import re
import signal
import threading
from types import FrameType

from openeval.errors import OpenEvalError

BUDGET_SECONDS = 1.0
"""CPU seconds one search may take. An honest search is linear: 10 MB (the largest trace text)
takes 0.1 s or less (proposals/0310-regex-cpu-budget.md); a pattern that backtracks on a hostile
text takes minutes, and gives up after this."""

_SHOWN = 80
"""The most characters of a pattern's repr a message shows."""

_CAN_TIME = all(hasattr(signal, name) for name in ("setitimer", "ITIMER_VIRTUAL", "SIGVTALRM"))
"""Whether this platform has a CPU-time timer (not Windows)."""
_TIMER: int = getattr(signal, "ITIMER_VIRTUAL", 0)
_SIGNAL: int = getattr(signal, "SIGVTALRM", 0)


class RegexGaveUp(OpenEvalError):
    """A user's regular expression used up its CPU budget on one text and was stopped."""


class _OutOfBudget(BaseException):
    """Raised inside the search by the timer's handler; a BaseException so no ``except
    Exception`` between the search and its guard (jsonschema's) swallows it."""


class _State:
    """The process's one guard: whether a search is under the budget, and where one can be."""

    active = False
    thread: int | None = None
    """The thread whose searches are bounded: the main one, once the handler is in place;
    None before the first search, and in a process that cannot bound them."""
    prepared = False


def _on_timer(signum: int, frame: FrameType | None) -> None:
    if _State.active:
        # Cleared here too: should the signal land in the search's ``finally`` before it
        # clears the flag, the rest of that block is skipped, and a one-shot timer needs no
        # disarming.
        _State.active = False
        raise _OutOfBudget
    # Not in a search: the timer expired as its search returned. Nothing to stop.


def _prepare() -> bool:
    """Install the handler, once per process, from the main thread, and return whether it is
    in place: not on a platform without a CPU timer, nor when another SIGVTALRM handler is
    there (left alone, with its signals)."""
    if not _CAN_TIME or threading.current_thread() is not threading.main_thread():
        return False  # asked again from the main thread
    _State.prepared = True
    if signal.getsignal(_SIGNAL) not in (signal.SIG_DFL, signal.SIG_IGN, None):
        return False
    signal.signal(_SIGNAL, _on_timer)
    _State.thread = threading.get_ident()
    return True


def shown_pattern(pattern: str) -> str:
    """Return ``pattern``'s repr, cut to :data:`_SHOWN` characters."""
    text = repr(pattern)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 1] + "…"


def gave_up_message(what: str, pattern: str, length: int | None) -> str:
    """Return the one line a pattern that used up its budget is reported with."""
    on = f" on a {length:,}-character text" if length is not None else ""
    return (
        f"{what} {shown_pattern(pattern)} gave up after {BUDGET_SECONDS:.1f} s of CPU{on}: it "
        "backtracks; rewrite it so no two repetitions can match the same characters"
    )


def bounded_search(
    compiled: re.Pattern[str], text: str, what: str = "the pattern", pattern: str | None = None,
) -> re.Match[str] | None:
    """Return ``compiled.search(text)``, stopped with :class:`RegexGaveUp` when it uses up
    :data:`BUDGET_SECONDS` of CPU; the message says ``what`` and ``pattern`` (the one the
    user wrote, which ``compiled`` may have been rewritten from)."""
    if _State.thread != threading.get_ident() or _State.active:
        if not (_State.prepared or _State.active) and _prepare():
            return bounded_search(compiled, text, what, pattern)
        return compiled.search(text)  # unbounded here; or inside a bounded search already
    previous = signal.setitimer(_TIMER, BUDGET_SECONDS)
    if previous[0]:  # another timer was running: put it back, and do not bound this search
        signal.setitimer(_TIMER, *previous)
        return compiled.search(text)
    _State.active = True
    try:
        try:
            return compiled.search(text)
        finally:
            _State.active = False  # first: a signal from here on is ignored
            signal.setitimer(_TIMER, 0)
    except _OutOfBudget:  # also when the timer expired as the search returned: still too late
        label = compiled.pattern if pattern is None else pattern
        raise RegexGaveUp(gave_up_message(what, label, len(text))) from None


def search_verdict(pattern: str, text: str, what: str = "the schema's pattern") -> bool:
    """Return whether ``re.search(pattern, text)`` finds a match, bounded: the search
    jsonschema's ``pattern`` and ``patternProperties`` make, for a user's schema."""
    return bounded_search(re.compile(pattern), text, what) is not None

"""The CPU budget of a user regex search (proposals/0310-regex-cpu-budget.md): a search that
backtracks gives up after the budget naming the pattern; an honest one on a long text is
untouched; the timer and handler of anyone else are left as they were; a late signal is
ignored; off the main thread the search runs unbounded."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from openeval.errors import OpenEvalError
from openeval.matching.regex_budget import (
    BUDGET_SECONDS,
    RegexGaveUp,
    bounded_search,
    gave_up_message,
    shown_pattern,
)

ROOT = Path(__file__).resolve().parents[2]

# (pattern, hostile text): each takes minutes unbounded and passes the static refusal.
HOSTILE = [
    (r"\w*b\w*$", "b" * 10_000 + "!"),
    (r"^\S+@\S+\.\S+$", "@" * 3_333 + "." * 6_666 + " "),
]


@pytest.mark.parametrize(("pattern", "text"), HOSTILE, ids=[p for p, _ in HOSTILE])
def test_a_search_that_backtracks_gives_up_naming_the_pattern(pattern: str, text: str) -> None:
    start = time.process_time()
    with pytest.raises(RegexGaveUp) as raised:
        bounded_search(re.compile(pattern), text, "regex_match: the pattern")
    spent = time.process_time() - start
    assert BUDGET_SECONDS * 0.9 <= spent < BUDGET_SECONDS + 2
    assert isinstance(raised.value, OpenEvalError)
    assert str(raised.value) == (
        f"regex_match: the pattern {pattern!r} gave up after 1.0 s of CPU on a "
        f"{len(text):,}-character text: it backtracks; rewrite it so no two repetitions can "
        "match the same characters")
    assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)


@pytest.mark.parametrize(("pattern", "flags"), [
    (r"refund \d+", 0), (r"(?i)password|secret", 0), (r"^\S+@\S+\.\S+$", re.MULTILINE),
    (r"[\w.+-]+@[\w-]+\.[\w.]+", 0), (r"\w*b\w*$", 0),
])
def test_an_honest_search_of_a_long_text_is_untouched(pattern: str, flags: int) -> None:
    text = "Your refund 12 for jane@example.com is on its way; thanks!\n" * 17_000  # 1 MB
    compiled = re.compile(pattern, flags)
    found = bounded_search(compiled, text + "b")
    expected = compiled.search(text + "b")
    assert (found and found.span()) == (expected and expected.span())
    assert bounded_search(compiled, "") == compiled.search("")


def test_the_timer_is_disarmed_and_a_late_signal_is_ignored() -> None:
    assert bounded_search(re.compile("b"), "abc") is not None  # the handler is in place
    assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)
    signal.raise_signal(signal.SIGVTALRM)  # as if the timer expired just after the search
    assert bounded_search(re.compile("x"), "abc") is None  # still running, still bounding
    # A $regex searches its pattern without a leading .*: the message names what was written.
    written = r".*\w*b\w*$"
    with pytest.raises(RegexGaveUp, match=re.escape(f"$regex {written!r} gave up")):
        bounded_search(re.compile(r"\w*b\w*$"), "b" * 5_000 + "!", "$regex", written)


def test_another_running_timer_is_left_as_it_was() -> None:
    signal.setitimer(signal.ITIMER_VIRTUAL, 100.0, 7.0)
    try:
        assert bounded_search(re.compile("b"), "abc") is not None
        left, interval = signal.getitimer(signal.ITIMER_VIRTUAL)
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    assert 99.0 < left <= 100.1  # the kernel rounds to its tick
    assert interval == 7.0


def test_another_handler_installed_first_is_left_in_place() -> None:
    # A fresh process: the handler is installed on the first search, so "first" needs one.
    script = textwrap.dedent("""
        import re, signal
        from openeval.matching.regex_budget import bounded_search
        seen = []
        def theirs(signum, frame):
            seen.append(signum)
        signal.signal(signal.SIGVTALRM, theirs)
        assert bounded_search(re.compile("b"), "abc").group() == "b"
        assert signal.getsignal(signal.SIGVTALRM) is theirs
        assert signal.getitimer(signal.ITIMER_VIRTUAL) == (0.0, 0.0)
        signal.raise_signal(signal.SIGVTALRM)
        assert seen == [signal.SIGVTALRM]
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script],
                          env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.stdout.strip() == "ok", done.stderr


def test_off_the_main_thread_the_search_runs_unbounded() -> None:
    # Signals reach only the main thread: a thread's search is not stopped, however long.
    pattern, text = re.compile(r"(a|aa)+$"), "a" * 35 + "b"  # exponential: 2.7 s here
    outcome: dict[str, object] = {}

    def search() -> None:
        start = time.thread_time()
        try:
            outcome["found"] = bounded_search(pattern, text)
        except RegexGaveUp as exc:
            outcome["found"] = exc
        outcome["spent"] = time.thread_time() - start

    worker = threading.Thread(target=search)
    worker.start()
    worker.join(timeout=120)
    assert outcome["found"] is None
    assert isinstance(outcome["spent"], float) and outcome["spent"] > BUDGET_SECONDS


@pytest.mark.parametrize(("pattern", "shown"), [
    ("a+b", "'a+b'"),
    ("x" * 200, "'" + "x" * 78 + "…"),
])
def test_a_huge_pattern_is_shown_cut(pattern: str, shown: str) -> None:
    assert shown_pattern(pattern) == shown
    assert gave_up_message("$regex", pattern, None).startswith(f"$regex {shown} gave up after")

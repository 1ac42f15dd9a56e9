"""What the CPU budget on a user regex costs, and how far honest searches stay below it (not
collected by pytest).

Run: ``.venv/bin/python benchmarks/bench_regex_budget.py [--repeat N]``. Prints, in CPU time
(user + sys, the best of N runs):

- microseconds per search of a short text: ``re`` alone, :func:`bounded_search`, a ``$regex``
  matcher's ``test`` and a ``regex_match`` check on a 2 KB reply (the last two also run
  without this module, on an older checkout: compare the figures across checkouts);
- seconds of honest linear searches over 10 MB (the largest trace text), each of which must
  stay far below :data:`~openeval.matching.regex_budget.BUDGET_SECONDS`
  (proposals/0310-regex-cpu-budget.md).
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable

from timing import best_cpu

from openeval.checks import regex_match
from openeval.matching.matchers import compile_expected

SHORT = "Your refund for order R-12345 was sent on 2024-05-01; reply STOP to opt out."
HONEST = [  # (pattern, flags): the kinds of patterns test cases write
    (r"order R-\d+", 0),
    (r"(?i)password|secret", 0),
    (r"^\S+@\S+\.\S+$", re.MULTILINE),
    (r"\b\d{4}-\d{2}-\d{2}\b", 0),
    (r"[\w.+-]+@[\w-]+\.[\w.]+", 0),
    (r"^#{1,6} .*$", re.MULTILINE),
]
LINE = "The refund of $1,200 for order R-1 was sent on 2024-05-01; mail jane@example.com.\n"


def per_call(repeat: int, calls: int, run: Callable[[], object]) -> float:
    """Return microseconds per call of ``run``, the best of ``repeat`` loops of ``calls``."""
    def loop() -> None:
        for _ in range(calls):
            run()
    return best_cpu(repeat, loop) / calls * 1e6


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    compiled = re.compile(r"order R-\d+")
    matcher = compile_expected({"$regex": r"order R-\d+"}, "args.q")
    reply = (LINE * (2_000 // len(LINE) + 1))[:2_000]
    rows: list[tuple[str, Callable[[], object], int]] = [
        ("re search, short text", lambda: compiled.search(SHORT), 200_000),
        ("$regex matcher test", lambda: matcher.test(SHORT), 200_000),
        ("regex_match check, 2 KB", lambda: regex_match(
            reply, must_match=[r"R-\d+"], must_not_match=["(?i)password"]), 20_000),
    ]
    try:
        from openeval.matching.regex_budget import bounded_search
    except ImportError:  # an older checkout: no budget
        pass
    else:
        rows.insert(1, ("bounded_search, short text",
                        lambda: bounded_search(compiled, SHORT), 200_000))
    for label, run, calls in rows:
        print(f"{label:32} {per_call(repeat, calls, run):8.2f} µs")
    text = (LINE * (10_000_000 // len(LINE) + 1))[:10_000_000]
    # Every match found is a scan of the whole text: no single honest search does more.
    print(f"honest patterns, every match over {len(text):,} characters (CPU s):")
    for pattern, flags in HONEST:
        found = re.compile(pattern, flags)
        seconds = best_cpu(max(1, repeat // 2),
                           lambda found=found: sum(1 for _ in found.finditer(text)))
        print(f"  {pattern!r:34} {seconds:6.3f}")


if __name__ == "__main__":
    main()

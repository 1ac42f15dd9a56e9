"""Time every check of the check library on a 2 KB and a 1 MB reply (not collected by pytest).

Run: ``.venv/bin/python benchmarks/bench_checks.py [--repeat N]``. The reply is realistic agent
text (Markdown, a table, a JSON block, SQL, URLs, numbers) in a two-turn conversation, with the
same text as the expected output and as the metadata context. Each check runs with the settings
it needs to do work; an area module not written yet is skipped and named. Prints the best of N
runs per check, in milliseconds; the figure to watch is the 1 MB column staying well under
1,000 ms (the checks cut what they read at 100,000 characters where their work grows faster
than the text).
"""

from __future__ import annotations

import argparse
import importlib.util
import time
from typing import Any

import openeval.checks as checks
from openeval.checks import AREAS, CheckContext
from openeval.models import AgentTrace, EvalTestCase, Message

PARAGRAPH = (
    "# Refund status\n\nThe refund of $1,200 for order R-1 was sent on 2024-05-01 [1]. "
    "See https://example.com/orders/R-1 for details!\n\n| item | price |\n|---|---|\n"
    "| lamp | 40 |\n\n```json\n{\"ok\": true, \"id\": 7}\n```\nSELECT id FROM orders; "
    "<b>bold</b> and a calm, helpful tone. Thanks a lot.\n\n"
)

SETTINGS: dict[str, dict[str, Any]] = {
    "regex_match": {"must_match": [r"R-\d+"], "must_not_match": ["(?i)password"]},
    "keyword_check": {"required": ["refund", "order"], "forbidden": ["sorry"]},
    "contains": {"values": ["R-1"]},
    "json_validity": {"required_keys": ["ok"]},
    "tool_trajectory": {"expected": ["lookup", "refund"]},
}


def make_context(size: int) -> CheckContext:
    """Return a context whose reply, expected output and metadata context are ``size`` chars."""
    text = (PARAGRAPH * (size // len(PARAGRAPH) + 1))[:size]
    trace = AgentTrace(
        task_id="bench", input="Where is my refund for R-1?",
        messages=[Message("user", "Where is my refund for order R-1?"),
                  Message("assistant", text)],
        final_output=text, metadata={"context": text},
    )
    return CheckContext(trace, EvalTestCase(task_id="bench", expected_output=text))


def best_of(repeat: int, function: Any, context: CheckContext, settings: dict[str, Any]) -> float:
    """Return the fastest of ``repeat`` runs, in milliseconds."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(context, **settings)
        times.append((time.perf_counter() - start) * 1000)
    return min(times)


def main() -> None:
    """Print one row per check: its area and milliseconds on the 2 KB and the 1 MB reply."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    small, large = make_context(2_000), make_context(1_000_000)
    print(f"{'check':28} {'area':14} {'2 KB ms':>9} {'1 MB ms':>9}")
    for area, names in AREAS.items():
        if importlib.util.find_spec(f"openeval.checks.{area}") is None:
            print(f"{'(' + area + ' not written yet)':28}")
            continue
        for name in names:
            function = getattr(checks, name)
            settings = SETTINGS.get(name, {})
            if name == "detect_language":
                function = lambda ctx, _f=function: _f(ctx.output)  # noqa: E731
            try:
                figures = [best_of(repeat, function, ctx, settings) for ctx in (small, large)]
            except ValueError as exc:
                print(f"{name:28} {area:14} needs settings: {exc}")
                continue
            except Exception as exc:  # a benchmark reports a broken check and goes on
                print(f"{name:28} {area:14} failed: {type(exc).__name__}: {exc}")
                continue
            print(f"{name:28} {area:14} {figures[0]:9.2f} {figures[1]:9.2f}")


if __name__ == "__main__":
    main()

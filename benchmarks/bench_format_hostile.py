"""Time every format check on hostile replies of 100 KB and 10 MB.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/bench_format_hostile.py``. Each input is a
shape that made a parser quadratic or is a parser's worst case (unclosed tags, a tag name full
of ``<``, deep nesting, long dotted keys, many tables, unbalanced fences, ragged CSV). A reply
longer than the checks' text limit is cut first, so the 10 MB figures show that the cut holds.
Prints the best of three runs in seconds per check and input; the figure to watch is "well
under 1 s" everywhere.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from openeval.checks import format as checks

SHAPES: dict[str, list[tuple[str, str]]] = {
    "html_validity": [("<a<a<a...", "<a"), ("<div> unclosed", "<div>"), ("lone <", "<"),
                      ("attributes", "<a x=1 "), ("comment", "<!--")],
    "toml_validity": [("dotted key", "a."), ("tables", "[t]\n"), ("inline table", "a={"),
                      ("open arrays", "["), ("escapes", '"\\u0041')],
    "json_validity": [("open arrays", "["), ("strings", '"a",')],
    "markdown_structure": [("fences", "```\n"), ("table rows", "|a|b|\n"),
                           ("headings", "# h\n")],
    "csv_validity": [("ragged rows", "a,b\n1\n"), ("quotes", '"a""')],
    "sql_shape": [("statements", "SELECT 1;"), ("comments", "/* x */"), ("quotes", "'a''")],
}
SIZES = {"100 KB": 100_000, "10 MB": 10_000_000}


def _best(run: Callable[[], Any]) -> float:
    times = []
    for _ in range(3):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    print(f"{'check':20} {'input':16} " + " ".join(f"{s:>8}" for s in SIZES))
    for name, shapes in SHAPES.items():
        check = getattr(checks, name)
        for label, piece in shapes:
            figures = []
            for size in SIZES.values():
                text = piece * (size // len(piece))
                figures.append(_best(partial(check, text)))
            print(f"{name:20} {label:16} " + " ".join(f"{f:8.3f}" for f in figures), flush=True)


if __name__ == "__main__":
    main()

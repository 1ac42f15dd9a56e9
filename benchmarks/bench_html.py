"""Size and speed of the HTML report of a big suite (not collected by pytest).

Run: ``.venv/bin/python benchmarks/bench_html.py [--cases 5000] [--browser]``. The suite is the
tour (``examples/tour``: eight cases, nine metrics, real details) scored once and repeated under
new case ids up to ``--cases``. Prints the page's size (raw, per case, gzipped as a CI artifact
zip would hold it) and the render time, best of ``--repeat``. With ``--browser``, also the time
headless Chromium takes to open the page and run its script (``--dump-dom`` at ``#failed``),
minus the time it takes on the tour's own small page, so browser start-up is left out.
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

from openeval.report import render
from openeval.results import SuiteResult
from openeval.runner import run_suite

ROOT = Path(__file__).resolve().parents[1]


def big_suite(cases: int) -> tuple[SuiteResult, SuiteResult]:
    """Return the tour and the tour repeated to ``cases`` cases."""
    tour = run_suite(ROOT / "examples" / "tour")
    per = len(tour.cases)
    repeated = tuple(
        dataclasses.replace(case, case_id=f"batch-{i // per:04d}/{case.case_id}")
        for i, case in ((i, tour.cases[i % per]) for i in range(cases))
    )
    return tour, SuiteResult(cases=repeated, metadata=tour.metadata)


def open_seconds(chromium: str, page: Path, profile: Path) -> float:
    """Return the wall time of one headless ``--dump-dom`` of ``page`` at ``#failed``."""
    start = time.perf_counter()
    subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--dump-dom",
         page.as_uri() + "#failed"],
        capture_output=True, check=True, timeout=600,
    )
    return time.perf_counter() - start


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--browser", action="store_true", help="also time headless Chromium")
    args = parser.parse_args()

    tour, suite = big_suite(args.cases)
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        text = render(suite, "html")
        times.append(time.perf_counter() - start)
    data = text.encode("utf-8")
    n = len(suite.cases)
    print(f"cases: {n} ({len(suite.summary.per_check)} metrics each)")
    print(f"size: {len(data):,} bytes ({len(data) / 1e6:.1f} MB), {len(data) // n:,} bytes a case")
    print(f"gzipped: {len(gzip.compress(data)):,} bytes")
    print(f"render: {min(times):.2f} s (best of {args.repeat})")
    if not args.browser:
        return
    chromium = shutil.which("chromium") or shutil.which("google-chrome")
    if chromium is None:
        raise SystemExit("--browser: no chromium on PATH (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as scratch:
        big, small = Path(scratch, "big.html"), Path(scratch, "small.html")
        big.write_bytes(data)
        small.write_text(render(tour, "html"), encoding="utf-8")
        profile = Path(scratch, "profile")
        open_seconds(chromium, small, profile)  # warm-up: the first start creates the profile
        base = min(open_seconds(chromium, small, profile) for _ in range(args.repeat))
        full = min(open_seconds(chromium, big, profile) for _ in range(args.repeat))
    print(f"chromium: {full - base:.1f} s to open and filter the page "
          f"({full:.1f} s, of which {base:.1f} s browser start-up, best of {args.repeat})")


if __name__ == "__main__":
    main()

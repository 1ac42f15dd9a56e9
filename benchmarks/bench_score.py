"""``openeval score`` over N production-like traces: wall time, traces/s, peak RSS, and the
ratio against a bare orjson parse of the same JSON Lines, measured in the same run.

    python benchmarks/bench_score.py 1000000 --data /tmp/production --output /tmp/score-out

Generates the data with :mod:`gen_production` (in a child process) when the folder does not
exist yet (never write it into the repository). ``score`` runs as the real command, in a child
process started while this one is still small: a child's ``ru_maxrss`` counts the pages it
shares with its parent between fork and exec, so the bare parse runs after it. The bare parse
reads every file (zstd too), splits its lines and ``orjson.loads`` each one, and nothing more.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def bare_parse(folder: Path) -> tuple[int, float]:
    """Return (lines parsed, seconds) for reading and parsing every line under ``folder``."""
    started = time.perf_counter()
    lines = 0
    for path in sorted(folder.iterdir()):
        data = path.read_bytes()
        if path.suffix == ".zst":
            import zstandard

            data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
        for line in data.splitlines():
            if line:
                orjson.loads(line)
                lines += 1
    return lines, time.perf_counter() - started


def run_score(folder: Path, output: Path, extra: list[str]) -> tuple[float, float, int, str]:
    """Return (seconds, CPU seconds of the child, its peak RSS in KiB, its last output line)
    of one score run."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "openeval", "score", str(folder), "--output", str(output),
               "--quiet", *extra]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"score failed ({done.returncode}): {done.stderr.strip()}")
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss,
            done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, nargs="?", default=100_000)
    parser.add_argument("--data", type=Path, default=Path("/tmp/openeval-production"))
    parser.add_argument("--output", type=Path, default=Path("/tmp/openeval-score-out"))
    parser.add_argument("--per-file", type=int, default=20_000)
    args, extra = parser.parse_known_args()
    if not args.data.exists():
        started = time.perf_counter()
        subprocess.run([sys.executable, str(HERE / "gen_production.py"), str(args.count),
                        str(args.data), "--per-file", str(args.per_file)], check=True)
        print(f"generated in {time.perf_counter() - started:.0f}s")
    seconds, cpu, peak_kib, last = run_score(args.data, args.output, extra)
    lines, parse_s = bare_parse(args.data)
    rows = sum(1 for _ in (args.output / "results.jsonl").open("rb"))
    print(f"input: {lines} JSON lines under {args.data}; {rows} result rows")
    print(f"bare orjson parse: {parse_s:.1f}s ({lines / parse_s:,.0f} lines/s)")
    print(f"openeval score:    {seconds:.1f}s ({rows / seconds:,.0f} traces/s), "
          f"peak RSS {peak_kib / 1024:.0f} MiB")
    # A shared machine slows the wall clock; CPU time is what one core spent on it.
    print(f"score CPU time:    {cpu:.1f}s ({rows / cpu:,.0f} traces/s per core)")
    print(f"ratio score / bare parse: {seconds / parse_s:.1f}x (wall)")
    print(f"score said: {last}")


if __name__ == "__main__":
    main()

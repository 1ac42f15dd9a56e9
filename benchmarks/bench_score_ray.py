"""``openeval score --engine ray`` on a local Ray cluster: traces/s, against the local engine
on the same input in the same run, with the outputs compared byte for byte.

    python benchmarks/bench_score_ray.py 100000 --data /tmp/openeval-production --cpus 2

The input is :mod:`gen_production`'s (generated when ``--data`` does not exist; never write it
into the repository), the one ``bench_score.py`` reads. Three timings:

- ``local``: ``openeval score`` in a child process (the one-machine engine);
- ``ray, cold``: ``openeval score --engine ray`` in a child process, starting its own local
  cluster (what a user runs; cluster start-up included);
- ``ray, warm``: :func:`openeval.distributed.ray.score_rows` in this process on a cluster of
  ``--cpus`` CPUs started beforehand, every row counted into a summary as the command does
  (the steady throughput a long run sees), also per CPU.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


def warm_ray(folder: Path, cpus: int) -> tuple[float, float, int]:
    """Return (cluster start seconds, scoring seconds, rows) of score_rows on a fresh cluster."""
    import ray

    from openeval.distributed.ray import score_rows
    from openeval.production import ScoreSummary, expand_inputs, load_checks

    started = time.perf_counter()
    ray.init(num_cpus=cpus, include_dashboard=False, logging_level=logging.ERROR,
             log_to_driver=False)
    ready = time.perf_counter()
    summary = ScoreSummary()
    try:
        for row in score_rows(expand_inputs([folder]), load_checks(None)):
            summary.add(row)
    finally:
        done = time.perf_counter()
        ray.shutdown()
    return ready - started, done - ready, summary.rows


def _same(a: Path, b: Path) -> bool:
    return all((a / name).read_bytes() == (b / name).read_bytes()
               for name in ("results.jsonl", "summary.json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int, nargs="?", default=100_000)
    parser.add_argument("--data", type=Path, default=Path("/tmp/openeval-production"))
    parser.add_argument("--output", type=Path, default=Path("/tmp/openeval-score-ray-out"))
    parser.add_argument("--per-file", type=int, default=20_000)
    parser.add_argument("--cpus", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not args.data.exists():
        from gen_production import generate

        files = generate(args.count, args.data, per_file=args.per_file)
        print(f"generated {args.count} traces in {files} files under {args.data}")
    from bench_score import bare_parse, run_score

    lines, parse_s = bare_parse(args.data)
    local_s, _, _, local_said = run_score(args.data, args.output / "local", [])
    cold_s, _, _, cold_said = run_score(args.data, args.output / "ray", ["--engine", "ray"])
    start_s, warm_s, rows = warm_ray(args.data, args.cpus)
    print(f"input: {lines} JSON lines under {args.data}; {rows} result rows; machine: "
          f"{os.cpu_count()} CPUs")
    print(f"bare orjson parse:       {parse_s:7.1f}s ({lines / parse_s:,.0f} lines/s)")
    print(f"local engine (CLI):      {local_s:7.1f}s ({rows / local_s:,.0f} traces/s)")
    print(f"ray, cold (CLI):         {cold_s:7.1f}s ({rows / cold_s:,.0f} traces/s, "
          "cluster start included)")
    print(f"ray, warm ({args.cpus} CPUs):     {warm_s:7.1f}s ({rows / warm_s:,.0f} traces/s, "
          f"{rows / warm_s / args.cpus:,.0f} per CPU; the cluster took {start_s:.1f}s to start)")
    print(f"ray files identical to local: {_same(args.output / 'local', args.output / 'ray')}")
    print(f"local said: {local_said}")
    print(f"ray said:   {cold_said}")


if __name__ == "__main__":
    main()

"""The five rows of issue 20's table in one run, as CPU ratios against a bare orjson parse of the
same files measured in the same run.

Run (not collected by pytest)::

    python benchmarks/bench_ratios.py --cases 2000 --traces 5000 --repeat 3
    python benchmarks/bench_ratios.py --agentevals /tmp/agentevals-venv/bin/python

Every figure is CPU time (user + system) of a child process (``RUSAGE_CHILDREN``), the minimum
of ``--repeat`` runs: on a shared machine wall time measures the neighbours. A row's commands
(its bare parse, the command, its floors) run in turn, round after round, so that a change
in the machine's load falls on all of them alike. The rows:

1. ``openeval run --suite S --output O --workers 1`` over ``--cases`` generated cases (the
   suite of ``bench.py``), beside the plain-Python floors of ``floor_run.py`` (the same nine
   metrics, writing each file with write + rename, once in place, one results file, none);
2. the same run with the default engine (no ``--workers``);
3. ``openeval score`` over ``--traces`` native JSON Lines traces (``gen_production.native``)
   with four cheap checks (``pii_leak``, ``repeated_tool_calls``, ``length_budget``,
   ``tool_call_validity``), beside ``floor_score.py``;
4. one case in process (``bench_hotpath.py``'s OpenAI-messages cases: adapter and the nine
   metrics), beside its plain loop and, given ``--agentevals PYTHON``, agentevals strict;
5. ``openeval --help`` against ``python -c pass``.

Rows 1-3 divide by a bare orjson parse of their own inputs; row 4 is in microseconds per case.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench  # noqa: E402
import gen_production  # noqa: E402
from timing import best_cpu  # noqa: E402

CHECKS = {"checks": [
    {"check": "pii_leak"},
    {"check": "repeated_tool_calls"},
    {"check": "length_budget"},
    {"check": "tool_call_validity"},
]}

BARE_LINES = """
import sys, orjson
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        for line in f:
            if line.strip():
                orjson.loads(line)
"""

# Byte-compiled modules, as an installed wheel has them (see bench.py); --root may point the
# children at another checkout (a "before" build) while these scripts stay the same.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(ROOT)


def cpu_once(command: list[str]) -> float:
    """Return the CPU seconds (user + sys) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          env=ENV, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[:5]} failed ({done.returncode}): "
                         f"{done.stderr.decode()[-2000:]}")
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def cpu(command: list[str], repeat: int) -> float:
    """Return the least CPU seconds (user + sys) of ``repeat`` runs of ``command``."""
    return min(cpu_once(command) for _ in range(repeat))


def cpu_rounds(commands: dict[str, list[str]], repeat: int) -> dict[str, float]:
    """Return the least CPU seconds of each command over ``repeat`` rounds that run every
    command once, in turn: a ratio then compares runs made under the same load, where
    ``repeat`` runs of one command and then of the next let a change in the machine's load
    (its neighbours, the page cache) fall on one side only."""
    best = dict.fromkeys(commands, float("inf"))
    for _ in range(repeat):
        for name, command in commands.items():
            best[name] = min(best[name], cpu_once(command))
    return best


def native_lines(count: int, seed: int = 14) -> Path:
    """Write ``count`` native traces as one JSON Lines file under ``benchmarks/.work``."""
    path = bench.WORK / f"native-{count}-{seed}.jsonl"
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        rng = random.Random(seed)
        with path.open("wb") as handle:
            for i in range(count):
                for line in gen_production.native(rng, f"t{i:07d}", rng.randint(2, 40)):
                    handle.write(line + b"\n")
    return path


def in_process(cases: int, repeat: int, agentevals: str | None) -> list[tuple[str, str]]:
    """Return row 4: microseconds per case of the adapter and nine metrics, and the others."""
    import bench_hotpath
    from bench_trajectory import _messages, make_cases

    from openeval.adapters.openai import from_openai_messages
    from openeval.models import EvalTestCase
    from openeval.scoring import compile_plan, score

    generated = make_cases(cases)
    messages = [_messages(c["calls"]) for c in generated]
    plans = [compile_plan(EvalTestCase.from_dict(bench_hotpath._test_case(n, c, False)))
             for n, c in enumerate(generated)]
    ours = best_cpu(repeat, lambda: [
        score(from_openai_messages(m, task_id=str(n)), p)
        for (n, m), p in zip(enumerate(messages), plans, strict=True)
    ]) / cases * 1e6
    pairs = [(m, c["expected"]) for m, c in zip(messages, generated, strict=True)]
    floor = best_cpu(repeat, lambda: bench_hotpath.plain_loop(pairs)) / cases * 1e6
    rows = [("one case in process, nine metrics", f"{ours:.0f} us/case"),
            ("  plain loop (floor)", f"{floor:.0f} us/case, {ours / floor:.1f}x of it")]
    if agentevals:
        theirs = bench_hotpath.run_agentevals(agentevals, generated, repeat) / cases * 1e6
        rows.append(("  agentevals strict", f"{theirs:.0f} us/case: OpenEval is "
                     f"{theirs / ours:.1f}x faster"))
    else:
        rows.append(("  agentevals strict", "not measured (no --agentevals interpreter)"))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--traces", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--agentevals", metavar="PYTHON")
    parser.add_argument("--only", type=int, nargs="*", default=[1, 2, 3, 4, 5],
                        help="rows to measure (1-5)")
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout whose openeval the commands run (default: this one)")
    args = parser.parse_args()
    ENV["PYTHONPATH"] = str(args.root.resolve())
    if args.root.resolve() != ROOT:  # row 4 runs in this process: import that checkout
        sys.path.insert(0, str(args.root.resolve()))
    py = sys.executable
    openeval = bench.openeval_command()
    repeat = args.repeat
    rows: list[tuple[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="openeval-ratios-") as scratch:
        out = Path(scratch)
        if {1, 2} & set(args.only):
            suite = bench.generate(args.cases, args.seed)
            run = [*openeval, "run", "--suite", str(suite), "--quiet", "--output",
                   str(out / "run")]
            cpu([*run, "--workers", "1"], 1)  # warm-up: byte-compile, page cache
            commands = {"bare": [py, "-c", bench.BARE, str(suite)]}
            if 1 in args.only:
                commands["1"] = [*run, "--workers", "1"]
                for how in ("rename", "inplace", "one-file", "none"):
                    commands[how] = [py, str(HERE / "floor_run.py"), str(suite),
                                     str(out / f"floor-{how}"), "--write", how]
            if 2 in args.only:
                commands["2"] = run
            took = cpu_rounds(commands, repeat)
            bare = took["bare"]
            rows.append((f"bare orjson parse, {args.cases} cases", f"{bare:.2f} s"))
            if 1 in args.only:
                rows.append(("1. run --suite --workers 1", f"{took['1'] / bare:.1f}x"))
                rows.extend((f"  floor, {how}", f"{took[how] / bare:.1f}x")
                            for how in ("rename", "inplace", "one-file", "none"))
            if 2 in args.only:
                rows.append(("2. run --suite, default engine", f"{took['2'] / bare:.1f}x"))
        if 3 in args.only:
            lines = native_lines(args.traces)
            checks = out / "checks.json"
            checks.write_bytes(orjson.dumps(CHECKS))
            score = [*openeval, "score", str(lines), "--checks", str(checks), "--quiet",
                     "--output", str(out / "score")]
            cpu(score, 1)
            took = cpu_rounds({
                "bare": [py, "-c", BARE_LINES, str(lines)], "score": score,
                "floor": [py, str(HERE / "floor_score.py"), str(out / "floor-score"), str(lines)],
            }, repeat)
            bare = took["bare"]
            rows.append((f"bare orjson parse, {args.traces} native lines", f"{bare:.2f} s"))
            rows.append(("3. score, 4 cheap checks", f"{took['score'] / bare:.1f}x"))
            rows.append(("  floor", f"{took['floor'] / bare:.1f}x"))
        if 4 in args.only:
            rows.extend(in_process(1000, repeat, args.agentevals))
        if 5 in args.only:
            startup = max(10, repeat)
            cpu([*openeval, "--help"], 1)
            helped = cpu([*openeval, "--help"], startup)
            passed = cpu([py, "-c", "pass"], startup)
            rows.append(("5. openeval --help vs python -c pass",
                         f"{helped / passed:.1f}x ({helped * 1000:.0f} vs "
                         f"{passed * 1000:.0f} ms)"))
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPU(s), load "
          f"{os.getloadavg()[0]:.1f}; CPU time, least of {repeat}; {time.strftime('%H:%M')}")
    width = max(len(label) for label, _ in rows)
    for label, value in rows:
        print(f"  {label.ljust(width)}  {value}")


if __name__ == "__main__":
    main()

"""Time the in-process hot path per case, and agentevals' strict trajectory match beside it.

Run (not collected by pytest)::

    .venv/bin/python benchmarks/bench_hotpath.py                       # OpenEval only
    .venv/bin/python benchmarks/bench_hotpath.py --agentevals /tmp/agentevals-venv/bin/python

Per case, OpenEval reads the case's OpenAI chat messages with :func:`from_openai_messages` and
scores them with every registered metric through the pure scorer (the case's plan compiled
once beforehand, as a run does). agentevals (in its own virtualenv, never a dependency of this
project; run as a subprocess through ``bench_trajectory.py --agentevals-half``) scores the same
messages with ``create_trajectory_match_evaluator`` strict. The cases are those of
``bench_trajectory.py``: 2-40 tool calls with nested arguments, in turns of one to three
parallel calls.

Printed: CPU time per case (user + system of this process, ``time.process_time``), best of
the repeats, for the adapter alone, each metric alone (on traces read beforehand), the whole
path (adapter + scorer), a plain-Python loop doing the same comparisons as the metrics (the
floor), and agentevals; then the ratio. Two plans are timed: the case without a
``trajectory`` key (``trajectory_match`` not applicable: the nine metrics of issue 14) and with
``trajectory: {"mode": "strict"}`` (all ten, doing agentevals' work and the rest).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_trajectory import _messages, make_cases
from timing import best_cpu


def _test_case(number: int, case: dict[str, Any], trajectory: bool) -> dict[str, Any]:
    document: dict[str, Any] = {
        "task_id": str(number),
        "expected_tool_calls": [{"tool": c["tool"], "args": c["args"]} for c in case["expected"]],
        "expected_output_contains": ["done"],
        "expected_final_state": {},
        "max_steps": 50,
    }
    if trajectory:
        document["trajectory"] = {"mode": "strict"}
    return document


def plain_loop(pairs: list[tuple[list[dict[str, Any]], list[dict[str, Any]]]]) -> None:
    """The floor: the same comparisons in a bare loop over the raw messages (no model, no
    validation): decode arguments, tool names in order, argument equality, output text."""
    for messages, expected in pairs:
        calls = []
        for message in messages:
            for call in message.get("tool_calls") or ():
                function = call["function"]
                calls.append((function["name"], json.loads(function["arguments"])))
        names = [name for name, _ in calls]
        wanted = [e["tool"] for e in expected]
        _ = names == wanted
        _ = all(a == e["args"] for (_, a), e in zip(calls, expected, strict=False))
        _ = set(wanted) <= set(names)
        _ = "done" in messages[-1]["content"]
        _ = len(calls) <= 50


def run_openeval(cases: list[dict[str, Any]], repeat: int) -> dict[str, float]:
    """Return CPU seconds for all cases, best of ``repeat``, per measured part."""
    from openeval.adapters.openai import from_openai_messages
    from openeval.metrics.registry import metric_names
    from openeval.models import EvalTestCase
    from openeval.scoring import compile_plan, score

    messages = [_messages(c["calls"]) for c in cases]
    out: dict[str, float] = {}
    out["adapter"] = best_cpu(repeat, lambda: [
        from_openai_messages(m, task_id=str(n)) for n, m in enumerate(messages)
    ])
    traces = [from_openai_messages(m, task_id=str(n)) for n, m in enumerate(messages)]
    for trajectory in (False, True):
        label = "10 metrics" if trajectory else "9 metrics"
        plans = [
            compile_plan(EvalTestCase.from_dict(_test_case(n, c, trajectory)))
            for n, c in enumerate(cases)
        ]
        out[f"scorer, {label}"] = best_cpu(repeat, lambda plans=plans: [
            score(t, p) for t, p in zip(traces, plans, strict=True)
        ])
        out[f"adapter + scorer, {label}"] = best_cpu(repeat, lambda plans=plans: [
            score(from_openai_messages(m, task_id=str(n)), p)
            for (n, m), p in zip(enumerate(messages), plans, strict=True)
        ])
        if trajectory:
            for name in metric_names():
                narrowed = [compile_plan(p.test_case, metrics=[name]) for p in plans]
                out[f"  {name}"] = best_cpu(repeat, lambda narrowed=narrowed: [
                    score(t, p) for t, p in zip(traces, narrowed, strict=True)
                ])
    pairs = [(m, c["expected"]) for m, c in zip(messages, cases, strict=True)]
    out["plain-Python loop (floor)"] = best_cpu(repeat, lambda: plain_loop(pairs))
    return out


def run_agentevals(python: str, cases: list[dict[str, Any]], repeat: int) -> float:
    """Return agentevals' strict CPU seconds for all cases, best of ``repeat`` runs."""
    best = float("inf")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps(cases))
        script = Path(__file__).with_name("bench_trajectory.py")
        for _ in range(repeat):
            done = subprocess.run(
                [python, str(script), "--agentevals-half", str(path), "--repeat", "1"],
                capture_output=True, text=True, check=False,
            )
            if done.returncode != 0:
                sys.exit(f"agentevals half failed:\n{done.stderr}")
            found = json.loads(done.stdout.strip().splitlines()[-1])
            best = min(best, found["strict"]["seconds"])
    return best


def main() -> None:
    """Generate the cases, time both sides, print per-case figures and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--agentevals", metavar="PYTHON",
                        help="interpreter of a virtualenv that has agentevals installed")
    options = parser.parse_args()
    cases = make_cases(options.cases)
    steps = sum(len(c["calls"]) for c in cases) / len(cases)
    print(f"{len(cases)} cases, {steps:.1f} tool calls per case on average; CPU time per case "
          f"(user + sys), best of {options.repeat}")
    ours = run_openeval(cases, options.repeat)
    theirs = run_agentevals(options.agentevals, cases, options.repeat) if options.agentevals \
        else None
    for label, seconds in ours.items():
        line = f"  {label:34s} {seconds / len(cases) * 1e6:8.1f} µs"
        if theirs is not None and label.startswith("adapter + scorer"):
            line += f"   agentevals strict is {theirs / seconds:.1f}x slower"
        print(line)
    if theirs is not None:
        print(f"  {'agentevals strict':34s} {theirs / len(cases) * 1e6:8.1f} µs")


if __name__ == "__main__":
    main()

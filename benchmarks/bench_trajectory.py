"""Time ``trajectory_match`` per case, and agentevals' trajectory match on the same cases.

Run (not collected by pytest)::

    .venv/bin/python benchmarks/bench_trajectory.py                       # OpenEval only
    .venv/bin/python benchmarks/bench_trajectory.py --agentevals /tmp/agentevals-venv/bin/python

The second form needs a separate virtualenv holding agentevals (never a dependency of this
project): ``python -m venv /tmp/agentevals-venv && /tmp/agentevals-venv/bin/pip install
agentevals``. The script writes the generated cases to a JSON file and runs the agentevals half
with that interpreter as a subprocess (``--agentevals-half FILE``), so neither package is
imported beside the other.

Cases are seeded: 2-40 tool calls with nested arguments, grouped into turns of one to three
parallel calls; the expected calls are the executed ones, sometimes with one argument changed,
two calls swapped or one removed. OpenEval scores each case in every mode (args ``exact``);
agentevals runs its ``strict`` and ``unordered`` modes (``tool_args_match_mode="exact"``) on the
same cases written as OpenAI chat messages. Figures are CPU time per case, best of the repeats.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TOOLS = ["search", "lookup_order", "refund_payment", "send_email", "read_file", "create_event"]
MODES = ["strict", "in_order", "unordered", "superset", "subset"]


def make_cases(count: int, seed: int = 11) -> list[dict[str, Any]]:
    """Return ``count`` cases: executed calls (with turns) and expected calls, as plain JSON."""
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        size = rng.randint(2, 40)
        calls = []
        turn = 0
        while len(calls) < size:
            for _ in range(min(rng.randint(1, 3), size - len(calls))):
                calls.append({
                    "tool": rng.choice(TOOLS),
                    "args": {
                        "id": rng.randint(1, 50),
                        "filter": {"status": rng.choice(["open", "closed"]),
                                   "tags": rng.sample(["a", "b", "c", "d"], rng.randint(0, 2))},
                        "amount": round(rng.uniform(1, 100), 2),
                    },
                    "turn": turn,
                })
            turn += 1
        expected = [dict(call) for call in calls]
        change = number % 5
        if change == 1:
            victim = rng.randrange(len(expected))
            expected[victim] = {**expected[victim], "args": {**expected[victim]["args"], "id": -1}}
        elif change == 2 and len(expected) > 1:
            i, j = rng.sample(range(len(expected)), 2)
            expected[i], expected[j] = expected[j], expected[i]
        elif change == 3:
            del expected[rng.randrange(len(expected))]
        cases.append({"calls": calls, "expected": expected})
    return cases


def _messages(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return ``calls`` as OpenAI chat messages: one assistant message per run of calls sharing
    a turn (in list order), each followed by its tool results."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "do the task"}]
    runs: list[list[dict[str, Any]]] = []
    for call in calls:
        if runs and runs[-1][-1]["turn"] == call["turn"]:
            runs[-1].append(call)
        else:
            runs.append([call])
    counter = 0
    for run in runs:
        tool_calls = []
        for call in run:
            counter += 1
            tool_calls.append({"id": f"c{counter}", "type": "function", "function": {
                "name": call["tool"], "arguments": json.dumps(call["args"])}})
        messages.append({"role": "assistant", "content": "", "tool_calls": tool_calls})
        messages += [{"role": "tool", "content": "ok", "tool_call_id": tc["id"]}
                     for tc in tool_calls]
    messages.append({"role": "assistant", "content": "done"})
    return messages


def run_agentevals_half(path: Path, repeat: int) -> dict[str, Any]:
    """Time agentevals on the cases in ``path``; runs inside the agentevals virtualenv."""
    from agentevals.trajectory.match import create_trajectory_match_evaluator

    cases = json.loads(path.read_text())
    pairs = [(_messages(c["calls"]), _messages(c["expected"])) for c in cases]
    out: dict[str, Any] = {}
    for mode in ("strict", "unordered"):
        evaluator = create_trajectory_match_evaluator(
            trajectory_match_mode=mode, tool_args_match_mode="exact"  # type: ignore[arg-type]
        )
        best = float("inf")
        verdicts: list[bool] = []
        for _ in range(repeat):
            start = time.process_time()
            verdicts = [bool(evaluator(outputs=o, reference_outputs=r)["score"]) for o, r in pairs]
            best = min(best, time.process_time() - start)
        out[mode] = {"seconds": best, "verdicts": verdicts}
    return out


def run_openeval(cases: list[dict[str, Any]], repeat: int) -> dict[str, Any]:
    """Time the ``trajectory_match`` metric on the cases, in every mode."""
    from openeval.metrics import get_metric
    from openeval.models import AgentTrace, EvalTestCase, TraceStep

    metric = get_metric("trajectory_match")
    traces = [
        AgentTrace(task_id=str(n), steps=[
            TraceStep(step_id=i, type="tool_call", tool_name=call["tool"],
                      tool_args=call["args"], turn=call["turn"])
            for i, call in enumerate(case["calls"])
        ])
        for n, case in enumerate(cases)
    ]
    out: dict[str, Any] = {}
    for mode in MODES:
        tests = [
            EvalTestCase(task_id=str(n), trajectory={"mode": mode, "args": "exact"},
                         expected_tool_calls=[{"tool": c["tool"], "args": c["args"]}
                                              for c in case["expected"]])
            for n, case in enumerate(cases)
        ]
        best = float("inf")
        verdicts: list[bool] = []
        for _ in range(repeat):
            start = time.process_time()
            verdicts = [metric.score(t, c).passed is True for t, c in zip(traces, tests,
                                                                         strict=True)]
            best = min(best, time.process_time() - start)
        out[mode] = {"seconds": best, "verdicts": verdicts}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--agentevals", metavar="PYTHON",
                        help="interpreter of a virtualenv that has agentevals installed")
    parser.add_argument("--agentevals-half", metavar="FILE", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.agentevals_half:
        print(json.dumps(run_agentevals_half(options.agentevals_half, options.repeat)))
        return

    cases = make_cases(options.cases)
    calls = sum(len(c["calls"]) for c in cases)
    print(f"{len(cases)} cases, {calls / len(cases):.1f} tool calls per case on average; "
          f"CPU time per case, best of {options.repeat} (the two halves take turns)")
    ours: dict[str, Any] = {}
    theirs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cases.json"
        path.write_text(json.dumps(cases))
        for _ in range(options.repeat):
            _keep_best(ours, run_openeval(cases, 1))
            if options.agentevals:
                _keep_best(theirs, _agentevals(options.agentevals, path))
    for mode, found in ours.items():
        per_case = found["seconds"] / len(cases) * 1e6
        print(f"  openeval   {mode:10s} {per_case:8.1f} µs   matched {sum(found['verdicts'])}")
    for mode, found in theirs.items():
        per_case = found["seconds"] / len(cases) * 1e6
        ratio = found["seconds"] / ours[mode]["seconds"]
        agree = sum(a == b for a, b in zip(found["verdicts"], ours[mode]["verdicts"],
                                           strict=True))
        print(f"  agentevals {mode:10s} {per_case:8.1f} µs   matched {sum(found['verdicts'])}"
              f"   openeval is {ratio:.1f}x faster; same verdict on {agree}/{len(cases)}")


def _keep_best(best: dict[str, Any], found: dict[str, Any]) -> None:
    for mode, result in found.items():
        if mode not in best or result["seconds"] < best[mode]["seconds"]:
            best[mode] = result


def _agentevals(python: str, path: Path) -> dict[str, Any]:
    done = subprocess.run(
        [python, __file__, "--agentevals-half", str(path), "--repeat", "1"],
        capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        print(f"agentevals half failed:\n{done.stderr}", file=sys.stderr)
        sys.exit(1)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


if __name__ == "__main__":
    main()

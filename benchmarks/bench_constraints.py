"""Time the order-and-count solver on 40-call traces, against the plain pairing.

Run (not collected by pytest), once with this build and once with the build to compare::

    PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_constraints.py
    PYTHONPATH=/path/to/older/checkout .venv/bin/python benchmarks/bench_constraints.py --plain-only

Cases are seeded: 40 tool calls of six tools in turns of one to three parallel calls, each
with an id and an amount; the expected calls are the executed ones, sometimes with one
removed or two swapped. Four variants of each case are scored by the three call metrics
(``trajectory_match`` in every mode, ``tool_selection_accuracy``, ``argument_correctness``):

- ``plain``: no order or count key (the path every existing suite takes);
- ``ids``: the same calls, each with an ``id`` only (the solver, with no rule to honour);
- ``edges``: ``after`` edges from each mutating call to the lookup before it, and
  ``uses_result_of`` from each call to one of the previous turn;
- ``counts``: ``times: 1`` on every refund, ``optional`` on every ``send_email``,
  ``min_times: 1`` on ``search``.

Figures are CPU time per case (all modes and metrics of one case), best of the repeats.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from typing import Any

TOOLS = ["search", "lookup_order", "refund_payment", "send_email", "read_file", "create_event"]
MODES = ["strict", "in_order", "unordered", "superset", "subset"]
METRICS = ["trajectory_match", "tool_selection_accuracy", "argument_correctness"]
SIZE = 40


def make_cases(count: int, seed: int = 23) -> list[dict[str, Any]]:
    """Return ``count`` cases: executed calls (with turns) and plain expected calls."""
    rng = random.Random(seed)
    cases = []
    for number in range(count):
        calls: list[dict[str, Any]] = []
        turn = 0
        while len(calls) < SIZE:
            for _ in range(min(rng.randint(1, 3), SIZE - len(calls))):
                calls.append({"tool": rng.choice(TOOLS), "turn": turn,
                              "args": {"id": rng.randint(1, 30),
                                       "amount": round(rng.uniform(1, 100), 2)}})
            turn += 1
        expected = [{"tool": c["tool"], "args": dict(c["args"])} for c in calls]
        if number % 3 == 1:
            del expected[rng.randrange(len(expected))]
        elif number % 3 == 2:
            i, j = rng.sample(range(len(expected)), 2)
            expected[i], expected[j] = expected[j], expected[i]
        cases.append({"calls": calls, "expected": expected})
    return cases


def variant(case: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    """Return the case's expected calls written as variant ``kind``."""
    expected = [dict(call) for call in case["expected"]]
    if kind == "plain":
        return expected
    for n, call in enumerate(expected):
        call["id"] = f"c{n}"
    if kind == "edges":
        last_lookup = None
        for n, call in enumerate(expected):
            if call["tool"] == "lookup_order":
                last_lookup = n
            elif call["tool"] in ("refund_payment", "create_event") and last_lookup is not None:
                call["after"] = [f"c{last_lookup}"]
            if n >= 4 and n % 4 == 0:
                call["uses_result_of"] = [f"c{n - 4}"]
    elif kind == "counts":
        for call in expected:
            if call["tool"] == "refund_payment":
                call["times"] = 1
            elif call["tool"] == "send_email":
                call["optional"] = True
            elif call["tool"] == "search":
                call["min_times"] = 1
    return expected


def run(cases: list[dict[str, Any]], kinds: list[str], repeat: int) -> dict[str, Any]:
    from openeval.metrics import get_metric
    from openeval.models import AgentTrace, EvalTestCase, TraceStep

    metrics = [get_metric(name) for name in METRICS]
    traces = [
        AgentTrace(task_id=str(n), steps=[
            TraceStep(step_id=i + 1, type="tool_call", tool_name=c["tool"], tool_args=c["args"],
                      turn=c["turn"])
            for i, c in enumerate(case["calls"])])
        for n, case in enumerate(cases)
    ]
    out: dict[str, Any] = {}
    for kind in kinds:
        tests = [
            [EvalTestCase(task_id=str(n), trajectory={"mode": mode},
                          expected_tool_calls=variant(case, kind)) for mode in MODES]
            for n, case in enumerate(cases)
        ]
        best = float("inf")
        verdicts: list[Any] = []
        for _ in range(repeat):
            start = time.process_time()
            verdicts = [
                [metric.score(trace, test).passed for test in group for metric in metrics]
                for trace, group in zip(traces, tests, strict=True)
            ]
            best = min(best, time.process_time() - start)
        passed = sum(v is True for row in verdicts for v in row)
        out[kind] = {"ms_per_case": round(1000 * best / len(cases), 3), "passed": passed,
                     "results": sum(len(row) for row in verdicts)}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--plain-only", action="store_true",
                        help="only the plain variant (a build without order and count keys)")
    args = parser.parse_args()
    kinds = ["plain"] if args.plain_only else ["plain", "ids", "edges", "counts"]
    print(json.dumps(run(make_cases(args.cases), kinds, args.repeat), indent=2))


if __name__ == "__main__":
    main()

"""A plain-Python floor for ``openeval run --suite``: the nine metrics over parsed dicts, one
result file per case and a ``summary.json``, with none of OpenEval's machinery.

Run (not collected by pytest)::

    python benchmarks/floor_run.py SUITE OUT [--write rename|inplace|one-file|none]

SUITE is the folder ``bench.py`` generates (one folder per case holding ``testcase.json`` and
``trace.json``). The floor reads both files with orjson, scores the same nine metrics a run
scores there (tool selection, argument values, step efficiency, final state, denial recovery,
divergence, fixture freshness, output contains, step budget) in their simplest correct form,
and writes results of the same shape (a check per metric with its score, verdict, threshold
and details). It is what a careful hand-written script costs, the bar the real command is
measured against in ``bench_ratios.py``; it does not aim at OpenEval's bytes, only its work.

``--write`` picks how each file is written: ``rename`` (a temporary file, then a rename, as a
crash-safe writer does), ``inplace`` (each file written once), ``one-file`` (every case into
one ``results.jsonl``) or ``none`` (nothing written but the summary).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import orjson

OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS


def _check(name: str, value: float | None, threshold: float, details: str) -> dict[str, Any]:
    verdict = "n/a" if value is None else ("pass" if value >= threshold else "fail")
    return {
        "name": name, "kind": name, "family": "metric", "threshold": threshold,
        "verdict": verdict, "details": details, "settings": {},
        "scores": [] if value is None else [{
            "name": name, "value": value, "data_type": "NUMERIC", "higher_is_better": True,
            "comment": None,
        }],
    }


def score_case(case: dict[str, Any], trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the nine metric checks of one case."""
    steps = trace["steps"]
    calls = [s for s in steps if s["type"] == "tool_call"]
    names = [c["tool_name"] for c in calls]
    expected = case.get("expected_tool_calls") or []
    wanted = [e["tool"] for e in expected]
    made = sum(1 for w in wanted if w in names)
    checks = [_check("tool_selection_accuracy", made / len(wanted) if wanted else None, 1.0,
                     f"expected tool calls made: {made}/{len(wanted)}")]
    # Argument values: each expected call against the first unused call of its tool with equal
    # arguments, else the first unused call of its tool (key by key).
    used: set[int] = set()
    matched = total = 0
    for e in expected:
        candidates = [i for i, c in enumerate(calls) if c["tool_name"] == e["tool"]
                      and i not in used]
        exact = next((i for i in candidates if calls[i]["tool_args"] == e["args"]), None)
        pick = exact if exact is not None else (candidates[0] if candidates else None)
        total += len(e["args"])
        if pick is not None:
            used.add(pick)
            args = calls[pick]["tool_args"]
            matched += sum(1 for k, v in e["args"].items() if args.get(k) == v)
    checks.append(_check("argument_correctness", matched / total if total else None, 1.0,
                         f"expected argument values matched: {matched}/{total}"))
    optimal = max(1, len(wanted))
    checks.append(_check("step_efficiency", min(1.0, optimal / len(calls)) if calls else None,
                         0.5, f"{len(calls)} tool calls for optimal {optimal}"))
    state = case.get("expected_final_state") or {}
    actual = trace.get("actual_state") or {}
    hits = sum(1 for k, v in state.items() if actual.get(k) == v)
    checks.append(_check("goal_completion_rate", hits / len(state) if state else None, 1.0,
                         f"expected state keys matched: {hits}/{len(state)}"))
    denied = [i for i, c in enumerate(calls) if c.get("denied")]
    recovered = sum(1 for i in denied if i + 1 < len(calls)
                    and calls[i + 1]["tool_name"] != calls[i]["tool_name"])
    checks.append(_check("denial_recovery_rate", recovered / len(denied) if denied else None,
                         1.0, f"denials recovered: {recovered}/{len(denied)}"))
    first = next((i for i, (a, b) in enumerate(zip(names, wanted, strict=False)) if a != b),
                 min(len(names), len(wanted)))
    divergence = 1.0 - first / len(wanted) if wanted else None
    checks.append(_check("divergence_score", 1.0 - divergence if divergence is not None
                         else None, 0.5, f"diverged at step {first + 1}"))
    checks.append(_check("fixture_freshness", None, 1.0, "no fixture in the trace"))
    output = trace.get("final_output") or ""
    needles = case.get("expected_output_contains") or []
    found = sum(1 for n in needles if n.lower() in output.lower())
    checks.append(_check("output_contains", found / len(needles) if needles else None, 1.0,
                         f"expected phrases found: {found}/{len(needles)}"))
    budget = case.get("max_steps")
    checks.append(_check("step_budget", None if budget is None else float(len(steps) <= budget),
                         1.0, f"{len(steps)} steps for a budget of {budget}"))
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite")
    parser.add_argument("out")
    parser.add_argument("--write", choices=("rename", "inplace", "one-file", "none"),
                        default="inplace")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    passed = failed = 0
    one_file = os.path.join(args.out, "results.jsonl")
    lines = open(one_file, "wb") if args.write == "one-file" else None  # noqa: SIM115
    for folder in sorted(os.listdir(args.suite)):
        path = os.path.join(args.suite, folder)
        if not os.path.isdir(path):
            continue
        with open(os.path.join(path, "testcase.json"), "rb") as handle:
            case = orjson.loads(handle.read())
        with open(os.path.join(path, "trace.json"), "rb") as handle:
            trace = orjson.loads(handle.read())
        checks = score_case(case, trace)
        ok = all(c["verdict"] != "fail" for c in checks)
        passed, failed = passed + ok, failed + (not ok)
        result = {"case_id": folder, "task_id": case["task_id"], "checks": checks,
                  "testcase_path": os.path.join(path, "testcase.json"),
                  "trace_path": os.path.join(path, "trace.json"), "trace_format": "native",
                  "error": None, "passed": ok}
        target = os.path.join(args.out, f"{folder}.result.json")
        if args.write == "rename":
            with open(target + ".tmp", "wb") as handle:
                handle.write(orjson.dumps(result, option=OPTIONS))
            os.replace(target + ".tmp", target)
        elif args.write == "inplace":
            with open(target, "wb") as handle:
                handle.write(orjson.dumps(result, option=OPTIONS))
        elif lines is not None:
            lines.write(orjson.dumps(result, option=orjson.OPT_SORT_KEYS) + b"\n")
    if lines is not None:
        lines.close()
    with open(os.path.join(args.out, "summary.json"), "wb") as handle:
        handle.write(orjson.dumps({"cases": passed + failed, "passed_cases": passed,
                                   "failed_cases": failed}, option=OPTIONS))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

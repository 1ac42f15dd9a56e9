"""Benchmark what a code check costs OpenEval itself, beyond the user's own code.

(a) scoring one case whose only check is a user function that returns at once, on a small
    trace (5 steps) and a large one (10,000 steps), asking for ``model_output`` (nothing to
    copy) or ``tool_calls`` (the trace is copied for the check);
(b) the copy of the large trace, against ``copy.deepcopy``.

Usage: ``python benchmarks/bench_code_checks.py [--repeat 5]``. The check file is written
under ``benchmarks/.work/``.
"""

from __future__ import annotations

import argparse
import copy
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from openeval.code_checks.call import _copy
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.scoring import compile_plan, score
from openeval.trust import TRUSTED

WORK = Path(__file__).resolve().parent / ".work"

CHECK = '''def light(model_output):
    return "ok" in model_output


def counts(tool_calls):
    return len(tool_calls) > 0
'''


def _trace(steps: int) -> AgentTrace:
    return AgentTrace(
        task_id="t",
        steps=[TraceStep(step_id=i, type="tool_call", tool_name="refund",
                         tool_args={"order_id": i, "meta": {"reasons": ["late", "damaged"]}},
                         tool_result="x" * 100) for i in range(steps)],
        final_output="ok",
    )


def _best(run: Callable[[], Any], repeat: int, inner: int) -> float:
    """Seconds per call: the best of ``repeat`` rounds of ``inner`` calls."""
    rounds = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            run()
        rounds.append((time.perf_counter() - start) / inner)
    return min(rounds)


def main() -> None:
    """Print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    WORK.mkdir(exist_ok=True)
    (WORK / "bench_check.py").write_text(CHECK, encoding="utf-8")
    for steps in (5, 10_000):
        trace = _trace(steps)
        for function in ("light", "counts"):
            case = EvalTestCase(task_id="t", metrics=[],
                                checks=[{"code": f"bench_check.py:{function}"}])
            plan = compile_plan(case, source=WORK / "testcase.json", code_policy=TRUSTED)
            score(trace, plan)  # the file's one import, out of the figures
            inner = 1000 if steps < 100 else 5
            seconds = _best(lambda: score(trace, plan), args.repeat, inner)  # noqa: B023
            print(f"{steps:>6} steps, {function:<7} {seconds * 1e3:9.3f} ms per case")
    large = _trace(10_000)
    ours = _best(lambda: _copy(large), args.repeat, 3)
    theirs = _best(lambda: copy.deepcopy(large), args.repeat, 1)
    print(f"copy of 10,000 steps: {ours * 1e3:.0f} ms (copy.deepcopy {theirs * 1e3:.0f} ms, "
          f"{theirs / ours:.1f}x)")


if __name__ == "__main__":
    main()

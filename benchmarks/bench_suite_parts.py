"""CPU per case of the parts of a run over a generated suite (not collected by pytest).

Run: ``PYTHONPATH=$PWD .venv/bin/python benchmarks/bench_suite_parts.py [SUITE]`` (default
``benchmarks/.work/suite-2000-7``, written by ``bench.py --cases 2000``). Measured as a run
does them: each case's files parsed, then the part timed at once (the values still warm), the
collector frozen and relaxed as during a run (``scoring/collector.py``); CPU time, the least of
``--repeat`` passes. The parts: reading a case (``build_test_case``: schema and matcher
checks), and ``argument_correctness`` and ``tool_selection_accuracy`` on a fresh compiled
case (a run scores each case once, so its forms are built every time).
"""

from __future__ import annotations

import argparse
import gc
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from openeval.metrics.arguments import ArgumentCorrectness
from openeval.metrics.compiled import CompiledCase
from openeval.metrics.tool_selection import ToolSelectionAccuracy
from openeval.models import AgentTrace, EvalTestCase
from openeval.scoring.collector import RUN_THRESHOLDS
from openeval.testcase_file import build_test_case

HERE = Path(__file__).resolve().parent


def least(passes: int, one_pass: Callable[[], int]) -> int:
    """The least nanoseconds of ``passes`` calls of ``one_pass``."""
    return min(one_pass() for _ in range(passes))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", nargs="?", type=Path,
                        default=HERE / ".work" / "suite-2000-7")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    files = [(folder / "testcase.json", (folder / "testcase.json").read_bytes(),
              (folder / "trace.json").read_bytes())
             for folder in sorted(args.suite.glob("case-*"))]
    gc.freeze()
    gc.set_threshold(*RUN_THRESHOLDS)
    clock = time.process_time_ns

    def reading() -> int:
        spent = 0
        for path, case_bytes, _ in files:
            document = orjson.loads(case_bytes)
            start = clock()
            build_test_case(document, source=path)
            spent += clock() - start
        return spent

    def scoring(metric: ArgumentCorrectness | ToolSelectionAccuracy) -> Callable[[], int]:
        def one_pass() -> int:
            spent = 0
            for _, case_bytes, trace_bytes in files:
                case = CompiledCase(EvalTestCase.from_dict(orjson.loads(case_bytes)))
                trace = AgentTrace.from_dict(orjson.loads(trace_bytes))
                start = clock()
                metric.measure_compiled(trace, case)
                spent += clock() - start
            return spent
        return one_pass

    parts: list[tuple[str, Callable[[], int]]] = [
        ("build_test_case", reading),
        ("argument_correctness", scoring(ArgumentCorrectness())),
        ("tool_selection_accuracy", scoring(ToolSelectionAccuracy())),
    ]
    for name, one_pass in parts:
        spent = least(args.repeat, one_pass)
        print(f"{name:26} {spent / 1e3 / len(files):6.1f} us/case")


if __name__ == "__main__":
    main()

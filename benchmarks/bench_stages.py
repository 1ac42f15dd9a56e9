"""Break ``openeval run --suite`` down stage by stage, in process, on the suite of ``bench.py``.

Run (not collected by pytest)::

    .venv/bin/python benchmarks/bench_stages.py --cases 10000 --repeat 3

Each stage runs over every case of the suite (the same seeded suite ``bench.py`` writes under
``benchmarks/.work/``), on the outputs of the stage before, calling the functions a run calls:

1. discover   - :func:`openeval.suite.discover.discover` (walk the folder, find the case files)
2. parse      - read both files and parse them (orjson; the test case refusing duplicate keys)
3. validate   - the test case and trace JSON Schemas
4. build      - the test case (metric names, matchers) and trace models, with the trace limits
5. plan       - :func:`openeval.scoring.compile_plan` per case
6. score      - :func:`openeval.scoring.score`: every metric on every case
7. write      - :func:`openeval.results.files.write_results` of the whole suite

then the whole run in process (``run_suite`` on the serial engine, then ``write_results``),
whose excess over the stages' sum is what the stages leave out (format detection, the path
confinement, building the case results). Beside them: a bare orjson parse of the same files,
the floor any tool pays. Figures are CPU time (user + system of this process), best of
``--repeat``: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
from bench import generate


def _best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        value = run()
        best = min(best, time.process_time() - start)
    return best, value


def main() -> None:
    """Time every stage and print a table of CPU time per case and share of the whole run."""
    from openeval.adapters.registry import check_trace
    from openeval.engines.local import SerialEngine
    from openeval.errors import TestCaseError, TraceFormatError
    from openeval.io.limits import ReadLimits
    from openeval.io.source import TraceSource
    from openeval.jsonio import read_json_file
    from openeval.matching.validate import validate_test_case_matchers
    from openeval.models import AgentTrace, EvalTestCase
    from openeval.results.files import write_results
    from openeval.runner import run_suite
    from openeval.schemas import validate
    from openeval.scoring import compile_plan, score
    from openeval.suite.discover import discover
    from openeval.testcase_file import check_metric_names

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    options = parser.parse_args()
    suite = generate(options.cases, options.seed)
    repeat = options.repeat
    out = Path(tempfile.mkdtemp(prefix="openeval-stages-"))
    limits = ReadLimits()

    def bare() -> None:
        for folder, _, names in os.walk(suite):
            for name in names:
                if name.endswith(".json"):
                    with open(os.path.join(folder, name), "rb") as handle:
                        orjson.loads(handle.read())

    def parse() -> list[tuple[Any, Any]]:
        return [
            (read_json_file(s.testcase_path, error=TestCaseError, unique_keys=True),
             TraceSource(Path(s.trace_path), limits).document())
            for s in specs
        ]

    def check() -> None:
        for case, trace in documents:
            validate(case, "testcase", source=None, error=TestCaseError)
            validate(trace, "trace", source=None, error=TraceFormatError)

    def build() -> list[tuple[EvalTestCase, AgentTrace]]:
        built = []
        for case, trace_document in documents:
            check_metric_names(case, source=None)
            validate_test_case_matchers(case, source=None)
            trace = AgentTrace.from_dict(trace_document)
            check_trace(trace, limits, Path("trace.json"))
            built.append((EvalTestCase.from_dict(case), trace))
        return built

    stages: list[tuple[str, float]] = []
    seconds, specs = _best(repeat, lambda: discover(suite))
    stages.append(("discover", seconds))
    seconds, documents = _best(repeat, parse)
    stages.append(("parse", seconds))
    stages.append(("validate", _best(repeat, check)[0]))
    seconds, models = _best(repeat, build)
    stages.append(("build models", seconds))
    seconds, plans = _best(repeat, lambda: [compile_plan(case) for case, _ in models])
    stages.append(("compile plans", seconds))
    stages.append(("score (metrics)", _best(repeat, lambda: [
        score(trace, plan) for (_, trace), plan in zip(models, plans, strict=True)
    ])[0]))
    result = run_suite(suite, engine=SerialEngine())
    stages.append(("write results", _best(repeat, lambda: write_results(result, out))[0]))
    whole, _ = _best(repeat, lambda: write_results(run_suite(suite, engine=SerialEngine()), out))
    floor, _ = _best(repeat, bare)
    shutil.rmtree(out, ignore_errors=True)

    count = len(specs)
    print(f"python {sys.version.split()[0]}, {count} cases; CPU time (user + sys) of this "
          f"process, best of {repeat}; load {os.getloadavg()[0]:.1f}")
    total = sum(s for _, s in stages)
    rows = [*stages, ("(not in a stage)", whole - total), ("whole run, in process", whole),
            ("bare orjson parse", floor)]
    for label, s in rows:
        print(f"  {label:24s} {s / count * 1e6:8.1f} us/case  {s / whole:6.1%}  "
              f"{s / floor:6.2f}x parse")


if __name__ == "__main__":
    main()

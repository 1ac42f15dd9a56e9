"""Suite discovery and scoring: a folder of cases in, one :class:`SuiteResult` out.

Discovery (CONTRACT §3) understands two layouts, and both may appear in one tree:

(a) openeval-core 0.2.1: ``DIR/testcases/X.json`` paired with ``DIR/traces/X.*``;
(b) case folders: a ``testcase.json`` (or ``X.testcase.json``) whose trace is the file its
    ``trace`` key names, else the one trace file beside it (``trace.*``, ``*.trace``,
    ``*.trace.json``, ``*.trace.jsonl``).

Every case found appears in the result. A case whose files cannot be read becomes an errored
:class:`CaseResult` holding the reason, and the run goes on; an exception that is not an
:class:`OpenEvalError` is a bug in OpenEval and propagates. Nothing here prints: the CLI passes
a ``progress`` callback to draw its bar.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openeval.errors import OpenEvalError, SuiteError, TestCaseError
from openeval.results import CaseResult, SuiteResult
from openeval.testcase_file import load_test_case

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.metrics.base import Metric
    from openeval.models import AgentTrace, EvalTestCase, MetricResult

Progress = Callable[[int, int, CaseResult], None]
"""Called after each case with ``(cases done, cases in total, the case's result)``."""

TESTCASE_NAME = "testcase.json"
TESTCASE_SUFFIX = ".testcase.json"
LEGACY_TESTCASES = "testcases"
LEGACY_TRACES = "traces"


@dataclass(frozen=True)
class CaseSpec:
    """A case found in a suite: where its files are, or why its trace could not be found."""

    case_id: str
    """The case's path relative to the suite folder, POSIX style."""
    testcase_path: Path
    trace_path: Path | None
    """The trace file; None when it is named by the test case's ``trace`` key (read later)
    or when ``problem`` says why none was found."""
    problem: str | None = None
    """Why the case cannot be scored before reading anything (no trace, several traces)."""


def is_trace_name(name: str) -> bool:
    """Return True when a file name marks a trace: ``trace.*``, ``*.trace``, ``*.trace.json(l)``."""
    return (
        name.startswith("trace.")
        or name.endswith((".trace", ".trace.json", ".trace.jsonl"))
    )


def discover(suite_dir: str | Path) -> list[CaseSpec]:
    """Return every case under ``suite_dir``, in sorted path order.

    Raises SuiteError when ``suite_dir`` is not a folder or holds no case.
    """
    root = Path(suite_dir)
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise SuiteError(f"suite folder {what}", source=root)
    specs: list[CaseSpec] = []
    for folder, dirnames, filenames in _walk(root):
        dirnames.sort()
        names = sorted(filenames)
        if folder.name == LEGACY_TESTCASES and (folder.parent / LEGACY_TRACES).is_dir():
            specs += _legacy_cases(root, folder, names)
            continue
        testcases = [n for n in names if n == TESTCASE_NAME or n.endswith(TESTCASE_SUFFIX)]
        traces = [n for n in names if is_trace_name(n)]
        specs += [_folder_case(root, folder, name, traces) for name in testcases]
    if not specs:
        raise SuiteError(
            "no case found: expected folders holding testcase.json (or *.testcase.json) and a "
            "trace file, or testcases/ and traces/ folders (openeval-core 0.2.1 layout)",
            source=root,
        )
    return sorted(specs, key=lambda s: s.case_id)


def _walk(root: Path) -> Iterator[tuple[Path, list[str], list[str]]]:
    for folder, dirnames, filenames in os.walk(root):
        # Our own work folders (results written inside the suite, caches) hold no cases.
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d != "__pycache__"]
        yield Path(folder), dirnames, filenames


def _case_id(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def _legacy_cases(root: Path, folder: Path, names: list[str]) -> list[CaseSpec]:
    traces_dir = folder.parent / LEGACY_TRACES
    trace_names = sorted(p.name for p in traces_dir.iterdir() if p.is_file())
    specs = []
    for name in names:
        if not name.endswith(".json"):
            continue
        stem = name[: -len(".json")]
        matches = [t for t in trace_names if t == stem or t.startswith(stem + ".")]
        testcase = folder / name
        if len(matches) == 1:
            specs.append(CaseSpec(_case_id(root, testcase), testcase, traces_dir / matches[0]))
            continue
        problem = (
            f"no trace for this test case: expected {LEGACY_TRACES}/{stem}.json (or {stem}.*)"
            if not matches
            else f"several traces for this test case in {LEGACY_TRACES}/: {', '.join(matches)}"
        )
        specs.append(CaseSpec(_case_id(root, testcase), testcase, None, problem))
    return specs


def _folder_case(root: Path, folder: Path, name: str, traces: list[str]) -> CaseSpec:
    testcase = folder / name
    # A case folder is named by its path; a suite that is itself one case folder, by its file.
    named_by_folder = name == TESTCASE_NAME and folder != root
    case_id = _case_id(root, folder if named_by_folder else testcase)
    if name != TESTCASE_NAME:
        # X.testcase.json pairs with X.trace* first, so several cases may share a folder.
        stem = name[: -len(TESTCASE_SUFFIX)]
        own = [t for t in traces if t.startswith(stem + ".trace")]
        traces = own or traces
    if len(traces) == 1:
        return CaseSpec(case_id, testcase, folder / traces[0])
    # The test case's own `trace` key may still name it; decided when the case runs.
    problem = (
        "no trace file beside the test case (expected trace.json, trace.jsonl, *.trace, "
        "*.trace.json or a 'trace' key in the test case)"
        if not traces
        else f"several trace files beside the test case ({', '.join(traces)}); name one with "
        "the test case's 'trace' key"
    )
    return CaseSpec(case_id, testcase, None, problem)


def select_metrics(names: Sequence[str] | None = None) -> list[Metric]:
    """Return the registered metrics, narrowed to ``names`` when given (in registry order).

    Raises SuiteError naming an unknown metric and listing the valid ones.
    """
    from openeval.metrics.registry import all_metrics, metric_names

    if names is None:
        return all_metrics()
    known = metric_names()
    for name in names:
        if name not in known:
            valid = ", ".join(known) if known else "(no metric is registered)"
            raise SuiteError(f"unknown metric {name!r}; expected one of: {valid}")
    wanted = set(names)
    return [m for m in all_metrics() if m.name in wanted]


def score_case(
    trace: AgentTrace, test_case: EvalTestCase, metrics: Sequence[Metric]
) -> list[MetricResult]:
    """Return the metric results of ``trace`` against ``test_case``.

    Only the metrics the test case selects (its ``metrics`` list, None for all) are run.
    """
    chosen = test_case.metrics
    if chosen is None:
        return [m.score(trace, test_case) for m in metrics]
    wanted = set(chosen)
    return [m.score(trace, test_case) for m in metrics if m.name in wanted]


def evaluate_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    case_id: str | None = None,
    metrics: Sequence[Metric] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    problem: str | None = None,
) -> CaseResult:
    """Return the scored result of one case; raise OpenEvalError when a file cannot be read.

    ``trace_path`` None means "the file the test case's ``trace`` key names"; when the key is
    absent too, TestCaseError says ``problem`` (or that no trace was given). A ``trace`` key is
    read relative to the test case file; an explicit ``trace_path`` wins over it.
    """
    testcase_path = Path(testcase_path)
    chosen = metrics if metrics is not None else select_metrics()
    test_case = load_test_case(testcase_path)
    trace_file = Path(trace_path) if trace_path is not None else None
    if trace_file is None and test_case.trace is not None:
        trace_file = testcase_path.parent / test_case.trace
    if trace_file is None:
        raise TestCaseError(problem or "no trace given for this test case", source=testcase_path)
    from openeval.adapters.registry import read_trace

    trace, trace_format = read_trace(trace_file, format, options=options)
    return CaseResult(
        case_id=case_id if case_id is not None else testcase_path.as_posix(),
        task_id=test_case.task_id,
        testcase_path=testcase_path.as_posix(),
        trace_path=trace_file.as_posix(),
        trace_format=trace_format,
        metrics=tuple(score_case(trace, test_case, chosen)),
        trace_task_id=trace.task_id,
    )


def run_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    case_id: str | None = None,
    metrics: Sequence[Metric] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    problem: str | None = None,
) -> CaseResult:
    """Return the result of one case; a file that cannot be read gives an errored result.

    Same arguments as :func:`evaluate_case`. Only OpenEvalError becomes an errored result;
    any other exception is a bug and propagates.
    """
    try:
        return evaluate_case(
            testcase_path, trace_path, case_id=case_id, metrics=metrics, format=format,
            options=options, problem=problem,
        )
    except OpenEvalError as exc:
        testcase_path = Path(testcase_path)
        return CaseResult(
            case_id=case_id if case_id is not None else testcase_path.as_posix(),
            task_id=_task_id_hint(testcase_path),
            testcase_path=testcase_path.as_posix(),
            trace_path=Path(trace_path).as_posix() if trace_path is not None else None,
            trace_format=None,
            error=str(exc),
        )


def _task_id_hint(testcase_path: Path) -> str:
    """Return the task id of a test case that failed to load, as best known, for reports."""
    from openeval.jsonio import parse_json

    try:
        document = parse_json(testcase_path.read_bytes())
    except (OSError, OpenEvalError):
        return testcase_path.stem
    task_id = document.get("task_id") if isinstance(document, dict) else None
    return task_id if isinstance(task_id, str) else testcase_path.stem


PARALLEL_FROM = 500
"""Suites with at least this many cases are scored in worker processes (when fork exists)."""


def _worker_count(cases: int) -> int:
    import multiprocessing

    if cases < PARALLEL_FROM or "fork" not in multiprocessing.get_all_start_methods():
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, 8))


@dataclass(frozen=True)
class _Job:
    """Everything a worker needs to score a case, in one picklable value."""

    metrics: tuple[Metric, ...]
    format: str | None
    options: LoadOptions | None


def _run_spec(spec: CaseSpec, job: _Job) -> CaseResult:
    return run_case(
        spec.testcase_path, spec.trace_path, case_id=spec.case_id, metrics=job.metrics,
        format=job.format, options=job.options, problem=spec.problem,
    )


_worker_job: _Job | None = None
"""The job of this worker process, set once by the pool's initializer."""


def _start_worker(job: _Job) -> None:
    global _worker_job
    _worker_job = job


def _run_spec_in_worker(spec: CaseSpec) -> CaseResult:
    if _worker_job is None:  # only _score_all starts workers, always with an initializer
        raise RuntimeError("worker started without a job")
    return _run_spec(spec, _worker_job)


def _score_all(specs: list[CaseSpec], job: _Job, workers: int) -> Iterator[CaseResult]:
    if workers <= 1:
        for spec in specs:
            yield _run_spec(spec, job)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork keeps adapters and metrics registered at run time; the job is handed over once
    # per worker, not once per case; map keeps suite order.
    context = multiprocessing.get_context("fork")
    chunk = max(1, min(256, len(specs) // (workers * 8)))
    with ProcessPoolExecutor(
        workers, mp_context=context, initializer=_start_worker, initargs=(job,)
    ) as pool:
        yield from pool.map(_run_spec_in_worker, specs, chunksize=chunk)


def run_suite(
    suite_dir: str | Path,
    *,
    metrics: Sequence[str] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    fail_under: float | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
) -> SuiteResult:
    """Return the results of every case under ``suite_dir``, in sorted path order.

    ``metrics`` narrows the registered metrics by name (None for all); ``format`` forces a
    trace adapter. ``workers`` is the number of processes scoring cases (None: one per CPU
    for suites of PARALLEL_FROM cases or more, else 1); the result is the same either way.
    Raises SuiteError when the folder holds no case or a metric name is unknown.
    """
    chosen = select_metrics(metrics)
    if format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(format)
    specs = discover(suite_dir)
    job = _Job(metrics=tuple(chosen), format=format, options=options)
    count = _worker_count(len(specs)) if workers is None else workers
    cases: list[CaseResult] = []
    for case in _score_all(specs, job, count):
        cases.append(case)
        if progress is not None:
            progress(len(cases), len(specs), case)
    metadata: dict[str, Any] = {"suite": Path(suite_dir).as_posix()}
    if metrics is not None:
        metadata["metrics"] = list(metrics)
    if format is not None:
        metadata["format"] = format
    return SuiteResult(cases=tuple(cases), fail_under=fail_under, metadata=metadata)

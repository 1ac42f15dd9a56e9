"""Suite discovery and scoring: both layouts, every case kept, errors as reasons, a crashing
check isolated as an errored result, and the same bytes from every engine."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from openeval.engines import ProcessPoolEngine, SerialEngine
from openeval.errors import SuiteError
from openeval.metrics import Measurement, Metric, metric_names
from openeval.metrics.registry import METRICS
from openeval.models import AgentTrace, EvalTestCase
from openeval.results import CaseResult
from openeval.results.files import write_results
from openeval.runner import discover, run_suite

SUITES = Path(__file__).parent / "data" / "suites"
MIXED = SUITES / "mixed"
EXAMPLES = Path(__file__).parents[1] / "examples"


def test_discovery_finds_every_case_in_sorted_path_order() -> None:
    assert [s.case_id for s in discover(MIXED)] == [
        "a-good",
        "b-missing-trace",
        "c-truncated-trace",
        "d-unknown-key",
        "e-two-traces",
        "f-trace-key",
        "g-named/fail.testcase.json",
        "g-named/lookup.testcase.json",
        "h-wrong-metric",
    ]


def test_named_test_cases_pair_with_their_own_trace() -> None:
    specs = {s.case_id: s for s in discover(MIXED)}
    lookup = specs["g-named/lookup.testcase.json"]
    assert lookup.trace_path == MIXED / "g-named" / "lookup.trace.json"
    assert specs["g-named/fail.testcase.json"].trace_path == MIXED / "g-named" / "fail.trace.jsonl"


ERRORED = [
    ("b-missing-trace", "b-missing-trace/testcase.json", "no trace file beside the test case"),
    ("c-truncated-trace", "c-truncated-trace/trace.json",
     "line 8 column 2: invalid JSON: unexpected end of data"),
    ("d-unknown-key", "d-unknown-key/testcase.json",
     "expected_tool_call: unknown key 'expected_tool_call'"),
    ("e-two-traces", "e-two-traces/testcase.json",
     "several trace files beside the test case (run.trace.json, trace.json)"),
    ("g-named/fail.testcase.json", "g-named/fail.trace.jsonl", "empty file, expected a trace"),
    ("h-wrong-metric", "h-wrong-metric/testcase.json",
     "thresholds.goal_completion: unknown metric 'goal_completion'"),
]


@pytest.fixture(scope="module")
def mixed() -> dict[str, CaseResult]:
    return {case.case_id: case for case in run_suite(MIXED).cases}


@pytest.mark.parametrize(("case_id", "file", "reason"), ERRORED, ids=[e[0] for e in ERRORED])
def test_unreadable_cases_are_errored_with_the_reason(
    mixed: dict[str, CaseResult], case_id: str, file: str, reason: str
) -> None:
    case = mixed[case_id]
    assert case.errored and not case.passed and case.checks == ()
    assert case.error is not None
    assert case.error.startswith((MIXED / file).as_posix())
    assert reason in case.error


@pytest.mark.parametrize("case_id", ["a-good", "f-trace-key", "g-named/lookup.testcase.json"])
def test_readable_cases_are_scored_by_every_metric(
    mixed: dict[str, CaseResult], case_id: str
) -> None:
    case = mixed[case_id]
    assert not case.errored and case.passed
    assert [c.name for c in case.checks] == metric_names()
    assert case.trace_format == "native"


def test_errored_case_keeps_the_task_id_it_could_read(mixed: dict[str, CaseResult]) -> None:
    assert mixed["b-missing-trace"].task_id == "missing-trace"
    assert mixed["d-unknown-key"].task_id == "unknown-key"


def test_trace_key_is_read_relative_to_the_test_case(mixed: dict[str, CaseResult]) -> None:
    expected = MIXED / "f-trace-key" / "recordings" / "run-1.json"
    assert mixed["f-trace-key"].trace_path == expected.as_posix()


def test_021_layout_pairs_testcases_with_traces() -> None:
    suite = run_suite(SUITES / "legacy_021")
    by_id = {c.case_id: c for c in suite.cases}
    assert list(by_id) == ["testcases/lookup.json", "testcases/refund.json"]
    assert by_id["testcases/lookup.json"].passed
    refund = {c.name: c for c in by_id["testcases/refund.json"].checks}
    assert refund["argument_correctness"].passed is False
    assert refund["goal_completion_rate"].passed is False
    assert by_id["testcases/refund.json"].trace_task_id == "refund"


@pytest.mark.parametrize("folder", ["no_cases", "does-not-exist"])
def test_a_folder_without_cases_is_a_suite_error(folder: str) -> None:
    with pytest.raises(SuiteError) as caught:
        run_suite(SUITES / folder)
    assert caught.value.source == str(SUITES / folder)


def test_metric_option_narrows_and_rejects_unknown_names() -> None:
    first, second = metric_names()[:2]
    suite = run_suite(MIXED, metrics=[second, first])
    good = next(c for c in suite.cases if c.case_id == "a-good")
    assert [c.name for c in good.checks] == [first, second]  # registry order
    with pytest.raises(SuiteError, match=f"unknown metric 'speed'; expected one of: {first}"):
        run_suite(MIXED, metrics=["speed"])


def test_test_case_metrics_list_narrows_its_own_case(tmp_path: Path) -> None:
    case_dir = tmp_path / "one"
    shutil.copytree(MIXED / "a-good", case_dir)
    document = json.loads((case_dir / "testcase.json").read_text())
    # Only the expectation goal_completion_rate reads: any other would configure nothing.
    kept = {k: v for k, v in document.items()
            if k in ("task_id", "input", "trace", "expected_final_state")}
    (case_dir / "testcase.json").write_text(json.dumps({**kept,
                                                        "metrics": ["goal_completion_rate"]}))
    (result,) = run_suite(tmp_path).cases
    assert [c.name for c in result.checks] == ["goal_completion_rate"]
    document["metrics"] = ["goal_completion_rate"]  # beside expectations no metric reads
    (case_dir / "testcase.json").write_text(json.dumps(document))
    (result,) = run_suite(tmp_path).cases
    assert "configures nothing: no metric in 'metrics' reads" in (result.error or "")


def test_progress_is_reported_after_each_case() -> None:
    seen: list[tuple[int, int, str]] = []
    run_suite(MIXED, progress=lambda done, total, case: seen.append((done, total, case.case_id)))
    assert [s[:2] for s in seen] == [(i, 9) for i in range(1, 10)]
    assert seen[0][2] == "a-good"


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_worker_processes_give_the_same_bytes_as_one_process(
    tmp_path: Path, start_method: str
) -> None:
    serial = write_results(run_suite(MIXED, engine=SerialEngine()), tmp_path / "serial")
    pooled = write_results(
        run_suite(MIXED, engine=ProcessPoolEngine(2, start_method)), tmp_path / start_method
    )
    names = sorted(p.name for p in serial.iterdir())
    assert names == sorted(p.name for p in pooled.iterdir())
    for name in names:
        assert (serial / name).read_bytes() == (pooled / name).read_bytes(), name


def test_the_whole_examples_tree_runs_as_one_suite() -> None:
    suite = run_suite(EXAMPLES)
    ids = [c.case_id for c in suite.cases]
    assert "simple_agent" in ids and "quickstart/01-refund-order" in ids
    quickstart = [c for c in suite.cases if c.case_id.startswith("quickstart/")]
    assert len(quickstart) == 8 and all(c.passed for c in quickstart)
    formats = {c.trace_format for c in quickstart}
    assert formats == {"native", "openai", "anthropic", "langchain", "otel", "fixtura"}
    for case in suite.cases:  # nothing in examples/ is broken on purpose
        assert not case.errored, case.error


class ExplodingMetric(Metric):
    """Fails with a bug of its own, which must become an errored result, never a score."""

    name = "exploding"

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        raise ZeroDivisionError("a bug in a metric")


def test_a_crashing_metric_is_an_errored_result_and_the_run_goes_on() -> None:
    METRICS.register("exploding", ExplodingMetric)
    try:
        suite = run_suite(MIXED, engine=SerialEngine())
    finally:
        METRICS.unregister("exploding")
    good = next(c for c in suite.cases if c.case_id == "a-good")
    by_name = {c.name: c for c in good.checks}
    crashed = by_name["exploding"]
    assert crashed.verdict == "error" and crashed.scores == ()
    assert crashed.details == (
        "exploding crashed: ZeroDivisionError: a bug in a metric (a bug; please report it)"
    )
    assert by_name["tool_selection_accuracy"].verdict == "pass"  # the others still ran
    assert good.status == "error" and not suite.gate_passed
    assert len(suite.cases) == 9  # and so did every other case


def test_a_single_case_folder_is_a_suite_of_one_named_by_its_task_id() -> None:
    (spec,) = discover(EXAMPLES / "simple_agent")
    assert spec.case_id == ""  # no path to name it by: its task id names it when it runs
    assert spec.trace_path == EXAMPLES / "simple_agent" / "trace.json"
    (case,) = run_suite(EXAMPLES / "simple_agent").cases
    assert case.case_id == case.task_id == "quickstart-1"


def test_a_trace_naming_another_task_is_a_warning(tmp_path: Path) -> None:
    shutil.copytree(MIXED / "a-good", tmp_path / "a")
    trace = (tmp_path / "a" / "trace.json").read_text()
    (tmp_path / "a" / "trace.json").write_text(trace.replace('"good"', '"other-task"', 1))
    (case,) = run_suite(tmp_path).cases
    assert case.status == "passed"  # a warning changes no verdict
    assert case.warnings == ("the trace's task id 'other-task' differs from the test case's "
                             "'good': is this the right trace for this case?",)

"""The metric tour (``examples/tour/``): each case scores exactly as its ``expected.json`` says.

Each folder holds ``testcase.json``, ``trace.json`` (native trace JSON), ``expected.json``
(metric name -> "pass" | "fail" | "n.a." for every metric) and a README. Between them the cases
make every metric pass, fail and be n.a. at least once (two metrics are never n.a.).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openeval.adapters.registry import load_trace
from openeval.errors import TestCaseError, TraceFormatError
from openeval.jsonio import read_json_file
from openeval.metrics import all_metrics, metric_names
from openeval.models import AgentTrace, EvalTestCase
from openeval.schemas import validate

TOUR = Path(__file__).resolve().parents[2] / "examples" / "tour"
CASES = sorted(p for p in TOUR.iterdir() if (p / "testcase.json").is_file())
NEVER_NA = {"denial_recovery_rate", "divergence_score"}
OUTCOME = {True: "pass", False: "fail", None: "n.a."}


def _load(folder: Path) -> tuple[AgentTrace, EvalTestCase]:
    trace_doc = read_json_file(folder / "trace.json", error=TraceFormatError)
    validate(trace_doc, "trace", source=folder / "trace.json", error=TraceFormatError)
    case_doc = read_json_file(folder / "testcase.json", error=TestCaseError)
    validate(case_doc, "testcase", source=folder / "testcase.json", error=TestCaseError)
    return AgentTrace.from_dict(trace_doc), EvalTestCase.from_dict(case_doc)


def _outcomes(folder: Path) -> dict[str, str]:
    trace, test_case = _load(folder)
    return {m.name: OUTCOME[m.score(trace, test_case).passed] for m in all_metrics()}


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_tour_case_scores_as_expected(folder: Path) -> None:
    expected = read_json_file(folder / "expected.json")
    assert list(expected) == sorted(metric_names()), "expected.json must name every metric"
    assert _outcomes(folder) == expected


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_tour_case_is_a_suite_case(folder: Path) -> None:
    # The suite runner finds testcase.json plus exactly one trace.* file, and reads it by content.
    assert [p.name for p in folder.glob("trace.*")] == ["trace.json"]
    assert (folder / "README.md").is_file()
    trace, _ = _load(folder)
    assert load_trace(folder / "trace.json") == trace


def test_tour_covers_every_outcome_of_every_metric() -> None:
    assert len(CASES) >= 8
    seen: dict[str, set[str]] = {name: set() for name in metric_names()}
    for folder in CASES:
        for name, outcome in read_json_file(folder / "expected.json").items():
            seen[name].add(outcome)
    for name, outcomes in seen.items():
        wanted = {"pass", "fail"} if name in NEVER_NA else {"pass", "fail", "n.a."}
        assert outcomes == wanted, name


def test_tour_readme_lists_every_case() -> None:
    readme = (TOUR / "README.md").read_text(encoding="utf-8")
    for folder in CASES:
        assert f"[{folder.name}]" in readme

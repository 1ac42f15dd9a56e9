"""The metric tour (``examples/tour/``): each case scores exactly as its ``expected.json`` says.

Each folder holds ``testcase.json``, ``trace.json`` (native trace JSON), ``expected.json``
(metric name -> "pass" | "fail" | "n.a." for every metric, and the name of each of the case's
check entries -> its verdict as the scorer gives it, in sorted order) and a README; a case may
hold the state files its ``state`` names (``before.db``). Between them the cases make every
metric pass, fail and be n.a. at least once (two metrics are never n.a.), and show each
construct of the expectations (``after``, ``times: 1``, ``optional``, ``turns`` with checks,
``tool_schema_conformance``, ``state`` on JSON and on SQLite) passing once and failing once.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from openeval.adapters.registry import load_trace
from openeval.errors import TraceFormatError
from openeval.jsonio import read_json_file
from openeval.metrics import all_metrics, metric_names
from openeval.models import AgentTrace, EvalTestCase
from openeval.schemas import validate
from openeval.scoring import compile_plan, score
from openeval.testcase_file import load_test_case

TOUR = Path(__file__).resolve().parents[2] / "examples" / "tour"
CASES = sorted(p for p in TOUR.iterdir() if (p / "testcase.json").is_file())
NEVER_NA = {"denial_recovery_rate", "divergence_score"}
OUTCOME = {True: "pass", False: "fail", None: "n.a."}


def _load(folder: Path) -> tuple[AgentTrace, EvalTestCase]:
    trace_doc = read_json_file(folder / "trace.json", error=TraceFormatError)
    validate(trace_doc, "trace", source=folder / "trace.json", error=TraceFormatError)
    # As a suite reads it: schema, matchers, and the state files beside it read in.
    return AgentTrace.from_dict(trace_doc), load_test_case(folder / "testcase.json")


def _outcomes(folder: Path) -> dict[str, str]:
    trace, test_case = _load(folder)
    found = {m.name: OUTCOME[m.score(trace, test_case).passed] for m in all_metrics()}
    plan = compile_plan(test_case, metrics=[], source=folder / "testcase.json")
    return found | {result.spec.name: result.verdict for result in score(trace, plan)}


@pytest.mark.parametrize("folder", CASES, ids=lambda p: p.name)
def test_tour_case_scores_as_expected(folder: Path) -> None:
    expected = read_json_file(folder / "expected.json")
    _, test_case = _load(folder)
    checks = [entry.get("name", entry.get("check")) for entry in test_case.checks]
    assert list(expected) == sorted([*metric_names(), *checks]), (
        "expected.json must name every metric and each check entry, in sorted order")
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
            if name in seen:
                seen[name].add(outcome)
    for name, outcomes in seen.items():
        wanted = {"pass", "fail"} if name in NEVER_NA else {"pass", "fail", "n.a."}
        assert outcomes == wanted, name


def test_tour_readme_lists_every_case() -> None:
    readme = (TOUR / "README.md").read_text(encoding="utf-8")
    for folder in CASES:
        assert f"[{folder.name}]" in readme


# Each construct of the expectations: a key path in the test case that shows it, the result that
# judges it, and the case where that result passes and the one where it fails.
CONSTRUCTS = [
    ("after", ("expected_tool_calls", "after"), "trajectory_match",
     "13-validate-before-mutate-after", "14-mutate-before-validate-after"),
    ("times-1", ("expected_tool_calls", "times"), "trajectory_match",
     "11-refund-once-times-1", "12-double-refund-times-1"),
    ("optional", ("expected_tool_calls", "optional"), "trajectory_match",
     "15-optional-notify-skipped", "16-optional-notify-twice"),
    ("turns-with-checks", ("turns", "checks"), "turn_expectations",
     "21-per-turn-checks-held", "22-per-turn-check-broken"),
    ("tool-schema", ("checks", "check"), "tool_schema_conformance",
     "23-tool-args-fit-definitions", "24-tool-args-break-definitions"),
    ("state-json", ("state", "changes"), "state_diff",
     "17-refund-state-frame-held", "18-refund-state-extra-change"),
    ("state-sqlite", ("state", "initial"), "state_diff",
     "25-refund-sqlite-state-held", "26-refund-sqlite-state-extra-change"),
]


@pytest.mark.parametrize(("keys", "result", "passing", "failing"), [c[1:] for c in CONSTRUCTS],
                         ids=[c[0] for c in CONSTRUCTS])
def test_each_construct_passes_once_and_fails_once(
    keys: tuple[str, str], result: str, passing: str, failing: str,
) -> None:
    outcomes = []
    for name in (passing, failing):
        document = read_json_file(TOUR / name / "testcase.json")
        outer, inner = keys
        entries = document[outer] if isinstance(document[outer], list) else [document[outer]]
        assert any(inner in entry for entry in entries), f"{name} does not use {keys}"
        outcomes.append(read_json_file(TOUR / name / "expected.json")[result])
    assert outcomes == ["pass", "fail"]

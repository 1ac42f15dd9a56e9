"""One case with trials, end to end: each trace scored, the rule applied, errors kept per trial."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from openeval.runner import run_suite

EXAMPLE = Path(__file__).parents[2] / "examples" / "scale"
WEATHER = EXAMPLE / "support" / "weather-two-cities"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """A copy of examples/scale: a majority rule, and one case with three trials."""
    root = tmp_path / "scale"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("baseline", "head",
                                                                 "pull-request"))
    return root


def test_each_trial_is_scored_in_its_own_format(suite: Path) -> None:
    case = run_suite(suite).cases[-1]
    assert case.case_id == "support/weather-two-cities"
    assert [t.trace_format for t in case.trials] == ["openai", "native", "openai"]
    assert [t.status for t in case.trials] == ["passed", "passed", "failed"]
    assert case.trials_rule == "majority" and case.status == "passed"
    assert case.trace_path is None and case.checks == ()


@pytest.mark.parametrize(("rule", "status"), [("all", "failed"), ("pass_at_k=2", "passed"),
                                              ("majority", "passed")])
def test_the_rule_option_wins_over_the_configuration(suite: Path, rule: str, status: str
                                                     ) -> None:
    suite_result = run_suite(suite, trials_rule=rule)
    case = suite_result.cases[-1]
    assert (case.trials_rule, case.status) == (rule, status)
    assert suite_result.metadata["trials_rule"] == rule


def test_a_rule_that_needs_more_trials_errors_the_case(suite: Path) -> None:
    case = run_suite(suite, trials_rule="pass_at_k=4").cases[-1]
    assert case.status == "error"
    assert case.error == "trials rule pass_at_k=4 needs at least 4 trials; this case has 3"
    assert len(case.trials) == 3  # still scored, so the report shows what each did


def test_an_unreadable_trial_is_an_errored_trial(suite: Path) -> None:
    (suite / "support" / "weather-two-cities" / "trace-2.json").write_text("{")
    case = run_suite(suite).cases[-1]
    assert [t.status for t in case.trials] == ["passed", "error", "failed"]
    assert "trace-2.json: line 1 column 2: invalid JSON" in (case.trials[1].error or "")
    assert case.status == "error"


def test_a_trace_key_beside_trials_is_refused(suite: Path) -> None:
    testcase = suite / "support" / "weather-two-cities" / "testcase.json"
    document = json.loads(testcase.read_text())
    testcase.write_text(json.dumps({**document, "trace": "trace-1.json"}))
    case = run_suite(suite).cases[-1]
    assert case.status == "error"
    assert "trace: names one trace with its 'trace' key, but its folder holds trials" in (
        case.error or "")


def test_a_trial_linking_outside_the_suite_is_not_read(suite: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.json"
    shutil.copy(WEATHER / "trace-2.json", outside)
    link = suite / "support" / "weather-two-cities" / "trace-2.json"
    link.unlink()
    link.symlink_to(outside)
    case = run_suite(suite).cases[-1]
    assert case.trials[1].status == "error"
    assert "lies outside" in (case.trials[1].error or "")
    assert run_suite(suite, allow_outside=True).cases[-1].trials[1].status == "passed"

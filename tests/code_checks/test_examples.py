"""The custom checks example (``examples/custom_checks/``): each case gets exactly the verdicts
its ``expected.json`` says, from one function check and one class check."""

from __future__ import annotations

from pathlib import Path

import pytest

from openeval.adapters.base import LoadOptions
from openeval.code_checks import CodeCheckRef, load_check
from openeval.jsonio import read_json_file
from openeval.results.records import CaseResult
from openeval.runner import run_suite
from openeval.trust import CodePolicy

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "custom_checks"
CASES = sorted(p.name for p in EXAMPLE.iterdir() if (p / "testcase.json").is_file())


@pytest.fixture(scope="module")
def results() -> dict[str, CaseResult]:
    allow_code = LoadOptions(code=CodePolicy(files=True))  # what --allow-code gives
    return {case.case_id: case for case in run_suite(EXAMPLE, options=allow_code).cases}


def test_the_example_holds_four_cases(results: dict[str, CaseResult]) -> None:
    assert sorted(results) == CASES and len(CASES) == 4


@pytest.mark.parametrize("case", CASES)
def test_each_case_gets_its_expected_verdicts(
    results: dict[str, CaseResult], case: str
) -> None:
    verdicts = {check.name: check.verdict for check in results[case].checks}
    assert verdicts == read_json_file(EXAMPLE / case / "expected.json")
    assert not results[case].errored


def test_every_verdict_is_reached_and_both_forms_are_shown(
    results: dict[str, CaseResult],
) -> None:
    seen = {(c.name, c.verdict) for case in results.values() for c in case.checks}
    for name in ("refund_within_policy", "reply_quality"):
        assert {(name, "pass"), (name, "fail")} <= seen
    policy = load_check(CodeCheckRef("checks/refund_policy.py:refund_within_policy",
                                     str(EXAMPLE / "checks" / "refund_policy.py"), None,
                                     "refund_within_policy"))
    quality = load_check(CodeCheckRef("checks/reply_quality.py",
                                      str(EXAMPLE / "checks" / "reply_quality.py"), None, None))
    assert (policy.label, quality.label) == ("refund_within_policy", "Check.evaluate")


def test_the_readme_lists_every_case() -> None:
    readme = (EXAMPLE / "README.md").read_text(encoding="utf-8")
    for case in CASES:
        assert f"[{case}]" in readme

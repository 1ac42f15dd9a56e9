"""The pull-request comment's pieces: its marker, its body and where it goes.

The comment step itself runs end to end against a stand-in for GitHub's API in
tests/test_action.py; these tests pin what the body holds and what it never lets through.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from builders import case

from openeval.ci.pr_comment import (
    MARKER_PREFIX,
    MAX_CASES,
    MAX_TOOLS,
    case_line,
    comment_body,
    enabled,
    marker,
    run_url,
)
from openeval.results.records import SuiteResult
from openeval.runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
SUMMARY = {"cases": 2, "passed_cases": 1, "failed_cases": 1, "errored_cases": 0,
           "pass_rate": 0.5, "gate_passed": False, "gate_reason": "pass rate 50.0% under 100%"}


@pytest.mark.parametrize("key", ["evals", "a --> b", "x-->\n<script>", "--", "a b"])
def test_the_marker_is_one_html_comment_whatever_the_suite_is_called(key: str) -> None:
    found = marker(key)
    assert found.startswith(MARKER_PREFIX + " ") and found.endswith(" -->")
    inner = found[len(MARKER_PREFIX) + 1:-len(" -->")]
    assert inner and not any(ch in inner for ch in "-> \n")


def test_two_suites_get_two_markers() -> None:
    assert marker("evals/a") != marker("evals/b")


def _diff(case_id: str, n: int = 1) -> dict[str, Any]:
    return {"changes": [
        {"case_id": f"{case_id}{i}", "kind": "regressed", "worse": True,
         "base_status": "passed", "head_status": "failed", "checks_worse": ["x"]}
        for i in range(n)]}


def test_text_the_author_controls_renders_as_text() -> None:
    hostile = "@everyone [click](https://evil.test) <img src=x> | col"
    body = comment_body(key=hostile, step_code=1, summary=SUMMARY, diff=_diff(hostile))
    # Inline, a code span; in the table, a code span whose pipe cannot open a cell.
    assert f"Suite ` {hostile} `: 2 case(s)" in body
    assert "| ` @everyone [click](https://evil.test) <img src=x> \\| col0 ` |" in body
    rendered = body.split("\n", 1)[1]  # below the marker, a hidden comment
    outside = rendered.replace(f"` {hostile} `", "").replace(
        "` @everyone [click](https://evil.test) <img src=x> \\| col0 `", "")
    assert "@everyone" not in outside and "evil.test" not in outside


def test_the_list_of_cases_is_bounded() -> None:
    body = comment_body(key="evals", step_code=1, summary=SUMMARY, diff=_diff("case-", 250))
    rows = [line for line in body.splitlines() if line.startswith("| ` case-")]
    assert len(rows) == MAX_CASES
    assert f"… and {250 - MAX_CASES} more, listed in the job summary." in body
    assert "**250** case(s) got worse than the baseline:" in body


def test_without_a_baseline_the_cases_that_did_not_pass_are_listed() -> None:
    head = run_suite(ROOT / "tests" / "data" / "report" / "suites" / "gate_fail")
    failing = [c.case_id for c in head.cases if c.status == "failed"]
    assert failing
    body = comment_body(key="evals", step_code=1, summary=SUMMARY, head=head)
    assert "Cases that did not pass (no baseline to compare with):" in body
    for case_id in failing:
        assert f"| ` {case_id} ` | ` failed ` |" in body


def test_a_run_that_stopped_says_so() -> None:
    body = comment_body(key="evals", step_code=2, summary=None)
    assert "`openeval run` stopped (exit code 2) before writing results" in body
    assert "### ❌ OpenEval: the gate failed" in body


@pytest.mark.parametrize(
    ("env", "url"),
    [
        ({"GITHUB_SERVER_URL": "https://ghe.test", "GITHUB_REPOSITORY": "o/r",
          "GITHUB_RUN_ID": "9"}, "https://ghe.test/o/r/actions/runs/9"),
        ({"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r",
          "GITHUB_RUN_ID": "9", "GITHUB_RUN_ATTEMPT": "2"},
         "https://github.com/o/r/actions/runs/9/attempts/2"),
        ({"GITHUB_REPOSITORY": "o/r", "GITHUB_RUN_ID": "9"}, None),
        ({"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "o/r",
          "GITHUB_RUN_ID": "9)(x"}, None),
    ],
)
def test_the_link_to_the_job_summary(env: dict[str, str], url: str | None) -> None:
    assert run_url(env) == url


@pytest.mark.parametrize(("value", "wanted"), [("true", True), ("True ", True),
                                               ("false", False), ("", False)])
def test_the_comment_input_is_a_bool(value: str, wanted: bool) -> None:
    assert enabled(value) is wanted


def test_any_other_comment_input_is_refused() -> None:
    with pytest.raises(ValueError, match="the comment input must be true or false"):
        enabled("yes")


def test_the_tool_sequences_are_bounded_and_say_what_they_left_out() -> None:
    rows = [{"expected": n, "step_id": n + 1, "tool": f"tool_{n}", "status": "matched",
             "ok": True, "differences": []} for n in range(20)]
    rows[3] = {**rows[3], "status": "wrong tool", "ok": False, "got_tool": "drop_table"}
    data = {"alignment": rows, "first_divergence": {"row": 3, "expected": 3, "step_id": 4,
                                                    "tool": "tool_3", "status": "wrong tool"}}
    record = case("refund", False)
    aligned = dataclasses.replace(record.checks[0], spec=dataclasses.replace(
        record.checks[0].spec, kind="trajectory_match"), data=data)
    line = case_line(dataclasses.replace(record, checks=(aligned,)), "failed")
    assert line.divergence == "tool_3 (expected call 4): wrong tool"
    assert line.executed[3] == "drop_table" and len(line.expected) == 20
    body = comment_body(key="evals", step_code=1, summary=SUMMARY,
                        head=SuiteResult(cases=(dataclasses.replace(record, checks=(aligned,)),)))
    (row,) = [r for r in body.splitlines() if r.startswith("| ` refund ` |")]
    shown = " → ".join(f"tool_{n}" for n in range(MAX_TOOLS))
    assert f"` {shown} … (+{20 - MAX_TOOLS}) `" in row
    assert "→ drop_table →" in row

"""The comparison with a baseline as Markdown (a PR comment), JSON and GitHub annotations."""

from __future__ import annotations

import json

from builders import case

from openeval.report.diff import diff_github, diff_json, diff_markdown, points, render_diff
from openeval.results.diff import RateChange, diff_results
from openeval.results.records import SuiteResult

BASE = SuiteResult(cases=(case("billing/refund", True, True), case("fixed", False, True),
                          case("flaky", False, True), case("steady", True, True),
                          case("gone", True, True)))
HEAD = SuiteResult(cases=(case("billing/refund", True, False), case("fixed", True, True),
                          case("flaky", False, False), case("steady", True, True),
                          case("new|one", False, True)))
DIFF = diff_results(BASE, HEAD)


def test_markdown_puts_what_got_worse_first_and_folds_the_rest() -> None:
    text = diff_markdown(DIFF)
    lines = text.splitlines()
    assert lines[0] == ("## ❌ OpenEval baseline: 2 case(s) got worse than the baseline; 1 "
                        "case(s) of the baseline disappeared")
    assert lines[2].startswith("Matched **4** of 5 cases with the baseline's 5 (1 appeared, "
                               "1 disappeared). Pass rate 80.0% → 60.0% (-20.0 pts)")
    worse = text.index("### Got worse")
    details = text.index("<details>")
    assert worse < details
    assert "| billing/refund | ✅ passed | ❌ failed | passed → failed; newly failing: m1 |" in (
        text[worse:details])
    assert "| flaky | ❌ failed | ❌ failed | newly failing: m1 |" in text[worse:details]
    rest = text[details:]
    assert rest.startswith("<details><summary>All cases: 1 regressed, 1 improved, 1 still "
                           "failing, 1 unchanged, 1 appeared, 1 disappeared; pass rate per "
                           "metric and check</summary>")
    assert "| fixed | ❌ failed | ✅ passed | m0 |" in rest
    assert "| new\\|one | - | ❌ failed |" in rest
    assert "| gone | ✅ passed | gone/testcase.json |" in text[worse:details]
    assert "gone" not in rest
    assert "| m1 | 100.0% | 50.0% | -50.0 pts |" in rest
    assert "steady" not in text  # unchanged cases are counted, not listed
    assert text.endswith("</details>\n")


def test_markdown_when_nothing_got_worse() -> None:
    text = diff_markdown(diff_results(BASE, BASE))
    assert text.startswith("## ✅ OpenEval baseline: nothing got worse than the baseline\n")
    assert "### Got worse" not in text


def test_json_is_canonical_and_lists_the_regressions() -> None:
    text = diff_json(DIFF, "main-results", "pr-results")
    document = json.loads(text)
    assert document["regressions"] == ["billing/refund", "flaky"]
    assert document["base"] == "main-results" and document["counts"]["appeared"] == 1
    assert text == json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def test_github_annotates_the_test_case_of_each_case_that_got_worse() -> None:
    lines = diff_github(DIFF).splitlines()
    assert lines[0].startswith("::error title=OpenEval baseline::2 case(s) got worse")
    assert lines[1] == ("::error file=billing/refund/testcase.json,title=OpenEval%3A "
                        "billing/refund got worse than the baseline::passed → failed; newly "
                        "failing: m1")
    assert lines[3] == ("::error file=gone/testcase.json,title=OpenEval%3A gone disappeared::"
                        "gone was in the baseline (passed) and is not in this run")
    assert len(lines) == 4
    assert diff_github(DIFF, failing=False).splitlines()[1].startswith("::warning file=")
    assert diff_github(diff_results(BASE, BASE)).startswith("::notice title=OpenEval baseline::")


def test_points() -> None:
    assert points(RateChange("x", 0.5, 0.75)) == "+25.0 pts"
    assert points(RateChange("x", 0.5, 0.5000001)) == "no change"
    assert points(RateChange("x", None, 0.5)) == "n.a."


def test_same_diff_same_bytes_in_every_format() -> None:
    for fmt in ("markdown", "json", "github"):
        again = diff_results(BASE, HEAD)
        assert render_diff(DIFF, fmt) == render_diff(again, fmt)  # type: ignore[arg-type]

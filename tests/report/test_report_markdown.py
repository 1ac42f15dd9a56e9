"""The Markdown report: verdict headline, tables, folded long sections, escaped cells."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from builders import case

from openeval.report import render
from openeval.report.markdown import FOLD_OVER, cell, code_cell
from openeval.results import SuiteResult
from openeval.runner import run_suite

SUITES = Path(__file__).parents[1] / "data" / "suites"


HEADLINES = [
    ("passed", SuiteResult(cases=(case("a", True, None),)),
     "## ✅ OpenEval: pass rate 100.0%, gate passed"),
    ("failed", SuiteResult(cases=(case("a", True, False),)),
     "## ❌ OpenEval: pass rate 50.0%, gate failed"),
    ("fail-under", SuiteResult(cases=(case("a", True, True, True, False),), fail_under=0.7),
     "## ✅ OpenEval: pass rate 75.0%, gate passed"),
    ("nothing-evaluated", SuiteResult(cases=(case("a", None),)),
     "## ❌ OpenEval: no pass rate: nothing evaluated, gate failed"),
]


@pytest.mark.parametrize(("suite", "headline"), [h[1:] for h in HEADLINES],
                         ids=[h[0] for h in HEADLINES])
def test_headline_states_rate_and_verdict(suite: SuiteResult, headline: str) -> None:
    text = render(suite, "markdown")
    assert text.splitlines()[0] == headline
    has_gate_line = "Gate: pass rate at least 70.0% (`--fail-under 0.7`)" in text
    assert has_gate_line is (suite.fail_under is not None)


def test_tables_failures_and_errors_of_a_real_suite() -> None:
    suite = run_suite(SUITES / "legacy_021")
    broken = run_suite(SUITES / "mixed")
    text = render(SuiteResult(cases=suite.cases + broken.cases), "markdown")
    assert "| metric or check | passed | failed | errored | n.a. | pass rate |" in text
    assert "| argument_correctness | 4 | 1 | 0 | 0 | 80.0% |" in text
    assert "| testcases/refund.json | ❌ failed |" in text
    assert "| b-missing-trace | ⚠️ error | - |" in text
    failures = text.split("### Failures", 1)[1].split("###", 1)[0]
    assert "| testcases/refund.json | goal_completion_rate | **FAIL** | 0.00 |" in failures
    errors = text.split("### Errored cases", 1)[1]
    assert "several trace files beside the test case" in errors


def test_cells_escape_pipes_newlines_and_html() -> None:
    assert cell("a|b\nc <d> & e") == "a\\|b<br>c &lt;d&gt; &amp; e"
    suite = SuiteResult(cases=(case("x|y", False, details="got 'a|b'\nthen <c>"),))
    text = render(suite, "markdown")
    # Free text from a trace is a code span: nothing in it renders as a link, image or HTML.
    assert "| x\\|y | m0 | **FAIL** | 0.25 | ` got 'a\\|b' then <c> ` |" in text


@pytest.mark.parametrize(("text", "span"), [
    ("![pixel](https://evil.example/p.png) [click](https://evil.example)",
     "` ![pixel](https://evil.example/p.png) [click](https://evil.example) `"),
    ("uses `code` inside", "`` uses `code` inside ``"),
    ("<img src=x onerror=alert(1)>", "` <img src=x onerror=alert(1)> `"),
    ("", ""),
])
def test_text_from_a_trace_never_renders_as_markdown(text: str, span: str) -> None:
    assert code_cell(text) == span


def test_case_names_cannot_make_links() -> None:
    assert cell("[x](https://evil.example)!") == "\\[x\\](https://evil.example)\\!"


@pytest.mark.parametrize(("count", "folded"), [(FOLD_OVER, False), (FOLD_OVER + 1, True)])
def test_long_case_table_folds(count: int, folded: bool) -> None:
    suite = SuiteResult(cases=tuple(case(f"c{i:02d}", True) for i in range(count)))
    text = render(suite, "markdown")
    assert (f"<details><summary>All {count} cases</summary>" in text) is folded
    assert text.count("| ✅ passed |") == count


def test_same_suite_same_text() -> None:
    suite = run_suite(SUITES / "mixed")
    assert render(suite, "markdown") == render(run_suite(SUITES / "mixed"), "markdown")


def test_a_huge_suite_fits_a_github_job_summary() -> None:
    from openeval.report.markdown import MAX_ROWS

    cases = tuple(case(f"case-{i:05d}", True, i % 7 != 0, details="x" * 200)
                  for i in range(10_000))
    text = render(SuiteResult(cases=cases), "markdown")
    assert len(text.encode()) < 1024 * 1024  # GitHub's step-summary limit
    failing = sum(i % 7 == 0 for i in range(10_000))
    assert f"{10_000 - MAX_ROWS} more cases not listed here" in text
    assert f"{failing - MAX_ROWS} more failed results not listed here" in text
    # Failing cases are listed before passing ones once the table is cut.
    assert "| case-00000 | ❌ failed |" in text and "| case-00001 | ✅ passed |" not in text


TOUR = Path(__file__).parents[2] / "examples" / "tour"


def test_calls_that_did_not_match_are_shown_side_by_side() -> None:
    text = render(run_suite(TOUR), "markdown")
    section = text.split("### Expected vs executed calls", 1)[1].split("\n### ", 1)[0]
    assert "**02-refund-amount-as-string** · argument_correctness" in section
    assert ("| 2 | ` refund_order ` | step 2 ` refund_order ` | **args differ** ← first "
            'divergence | ` amount `: ` 42.5 ` → ` "42.50" ` |') in section
    # 04 fails three pairing metrics; its trajectory explains it best and is the one drawn.
    assert "**04-payment-denial-loop** · trajectory_match" in section
    assert "04-payment-denial-loop** · tool_selection_accuracy" not in section


def test_notes_of_passed_results_get_a_section_of_their_own() -> None:
    text = render(run_suite(TOUR), "markdown")
    notes = text.split("### Notes", 1)[1]
    row = "| 07-flight-booking-thresholds | tool_selection_accuracy | ` extra: search_flights ` |"
    assert row in notes
    failures = text.split("### Failures", 1)[1].split("\n### ", 1)[0]
    assert "extra: search_flights" not in failures


def test_the_side_by_side_section_is_bounded() -> None:
    from openeval.report.markdown import MAX_ALIGNMENT_ROWS, MAX_ALIGNMENTS, MAX_ROWS

    tour = run_suite(TOUR)
    failing = next(c for c in tour.cases if c.case_id == "02-refund-amount-as-string")
    check = next(c for c in failing.checks if c.name == "argument_correctness")
    row = check.data["alignment"][1]
    wide = dataclasses.replace(check, data={**check.data, "alignment": [row] * 500})
    many = tuple(dataclasses.replace(failing, case_id=f"c{n}", checks=(wide,)) for n in range(40))
    text = render(SuiteResult(cases=many), "markdown")
    section = text.split("### Expected vs executed calls", 1)[1].split("\n### ", 1)[0]
    assert section.count("| # | expected |") == MAX_ALIGNMENTS
    assert MAX_ALIGNMENTS * MAX_ALIGNMENT_ROWS <= MAX_ROWS
    assert section.count("475 more rows not shown.") == MAX_ALIGNMENTS
    assert "28 more cases with calls that did not match" in section
    assert len(text.encode()) < 1024 * 1024

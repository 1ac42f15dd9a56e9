"""What every reporter calls a result: a pass line of 0 is "report only", never a pass; a
boolean that flags a problem says what it found ("refused", "not refused"), never "false"
under a tick; and each gate line names where it was set (the option or the file's key)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from openeval.cli import main
from openeval.report import render
from openeval.results import SuiteResult
from openeval.runner import run_suite
from openeval.scores import Score

# small-refund: argument_correctness at pass line 0 (a 5.99 refund of a 59.9 order "passes");
# refused: the reply refuses. The suite's openeval.toml gates tool_selection_accuracy.
SUITE = Path(__file__).parents[1] / "data" / "report" / "suites" / "report_only"
CONFIG_GATE = f"{SUITE.as_posix()}/openeval.toml:2 gates.tool_selection_accuracy"


@pytest.fixture(scope="module")
def suite() -> SuiteResult:
    return run_suite(SUITE.as_posix(), fail_under=0.5)


SHOWN = [
    # id, format, text the report holds
    ("markdown-case-cell", "markdown", "| small-refund | ✅ passed | pass | pass | report only |"),
    ("markdown-metric-row", "markdown", "| argument_correctness (report only: pass line 0) | 1 |"),
    ("markdown-failed-refusal", "markdown", "| refused | no_refusal | **FAIL** | refused |"),
    ("markdown-floor-source", "markdown", "(`--fail-under 0.5`); no case may error."),
    ("markdown-gate-source", "markdown", f"| 100.0% | `{CONFIG_GATE}` | ✅ passed |"),
    ("html-case-cell", "html", '<abbr title="report only: pass line 0">report only</abbr> 0.67'),
    ("html-check-row", "html", "report only <small>(pass line 0: reported, not judged)</small>"),
    ("html-metric-row", "html", "metric · report only: pass line 0"),
    ("html-no-refusal-cell", "html", '<abbr title="pass">✓</abbr> not refused</td>'),
    ("html-gate-source", "html", f"<td><code>{CONFIG_GATE}</code></td>"),
    ("html-floor-source", "html", "--fail-under 0.5: pass rate at least this"),
    ("junit-line", "junit", "argument_correctness: report only (score 0.67)"),
    ("junit-no-refusal", "junit", "no_refusal: pass (score not refused)"),
    ("github-floor-source", "github", "gate passed (--fail-under 0.5)"),
]


@pytest.mark.parametrize(("fmt", "text"), [s[1:] for s in SHOWN], ids=[s[0] for s in SHOWN])
def test_each_report_says_what_a_result_means(suite: SuiteResult, fmt: str, text: str) -> None:
    assert text in render(suite, fmt)


NEVER = [
    # id, format, pattern no report may hold
    ("html-no-tick-on-report-only", "html", r"✓</abbr> 0\.67"),
    ("html-no-false-under-a-tick", "html", r"✓</abbr> false"),
    ("markdown-no-pass-for-report-only", "markdown", r"\| small-refund \|[^\n]*\| pass \|$"),
    ("junit-no-pass-for-report-only", "junit", r"argument_correctness: pass"),
]


@pytest.mark.parametrize(("fmt", "pattern"), [n[1:] for n in NEVER], ids=[n[0] for n in NEVER])
def test_no_report_calls_report_only_a_pass(suite: SuiteResult, fmt: str, pattern: str) -> None:
    assert re.search(pattern, render(suite, fmt), re.MULTILINE) is None


def test_the_console_marks_report_only_and_names_each_gate_source() -> None:
    result = CliRunner().invoke(main, ["run", "--suite", SUITE.as_posix(), "--fail-under",
                                       "0.5", "--fail-under-metric", "no_refusal=0.5"])
    lines = result.output.splitlines()
    assert "    report only argument_correctness 0.67: pass line 0, so this score is " \
           "reported, not judged" in lines
    assert any(line.startswith("    fail  no_refusal refused: refusal:") for line in lines)
    assert (f"gate tool_selection_accuracy: pass rate 100.0%, needs 100.0% ({CONFIG_GATE}): "
            "passed") in lines
    assert ("gate no_refusal: pass rate 50.0%, needs 50.0% (--fail-under-metric "
            "no_refusal=0.5): passed") in lines


BOOLEANS = [
    # id, score name, value, lower is better, text
    ("problem-found-participle", "refused", True, True, "refused"),
    ("problem-absent-participle", "refused", False, True, "not refused"),
    ("problem-absent-noun", "tool_loop", False, True, "no tool loop"),
    ("problem-found-noun", "injection_detected", True, True, "injection detected"),
    ("good-is-true", "pii_free", True, False, "true"),
    ("good-is-false", "pii_free", False, False, "false"),
]


@pytest.mark.parametrize(("name", "value", "lower", "text"), [b[1:] for b in BOOLEANS],
                         ids=[b[0] for b in BOOLEANS])
def test_a_boolean_cell_says_what_it_found(name: str, value: bool, lower: bool, text: str
                                           ) -> None:
    from openeval.results.records import boolean_text

    score = Score(value, "BOOLEAN", None, name, False if lower else None)
    assert boolean_text(score) == text


TRIALS = SUITE.with_name("report_only_trials")
"""small-refund again, run as two trials: each trial's argument_correctness is report only."""


def test_a_report_only_check_over_trials_is_report_only_in_the_html() -> None:
    html = render(run_suite(TRIALS.as_posix()), "html")
    assert ('<td class="v-pass v-report"><abbr title="report only: pass line 0; 2 of 2 judged '
            'trials passed">report only</abbr> 2/2</td>') in html
    assert html.count('<abbr title="2 of 2 judged trials passed">✓</abbr> 2/2') == 2


def test_a_report_only_check_over_trials_is_named_on_the_console() -> None:
    result = CliRunner().invoke(main, ["run", "--suite", TRIALS.as_posix()])
    lines = result.output.splitlines()
    assert lines[:4] == [
        "PASS  small-refund (2 of 2 trials passed, rule all, stable-pass)",
        "    trial trials/1.trace.json: passed",
        "    trial trials/2.trace.json: passed",
        "    report only argument_correctness: pass line 0, so its scores are reported, not "
        "judged",
    ]

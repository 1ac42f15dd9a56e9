"""The terminal table of ``openeval run --suite``: fitted to the terminal, failures explained
under it, and nothing from a trace read as markup or escape codes.

Drawn on rich Consoles of fixed widths, as a terminal of that size would show it.
"""

from __future__ import annotations

import io
import re

import pytest
from builders import check
from rich.console import Console

from openeval.cli.console import fit_columns, render_suite_table
from openeval.results.records import CaseResult, SuiteResult

CHECKS = [
    "tool_selection_accuracy", "argument_correctness", "goal_completion_rate", "step_budget",
    "output_contains", "trajectory_match", "denial_recovery_rate", "divergence_score",
    "step_efficiency", "pii_leakage",
]
FAILING = "divergence_score"
"""Late in the order: it must keep its column however narrow the terminal."""
HOSTILE_ID = "support/refund-[link=https://evil.example]here[/link]\x1b[2J"


def result(case_id: str, failing: str | None = None, error: str | None = None) -> CaseResult:
    checks = () if error else tuple(
        check(name, name != failing,
              "expected refund_payment.amount 59.9, got 5.99" if name == failing else "ok")
        for name in CHECKS)
    return CaseResult(case_id=case_id, task_id=case_id, testcase_path=f"{case_id}/testcase.json",
                      trace_path=None, trace_format="native", checks=checks, error=error)


SUITE = SuiteResult(cases=(
    result("support/a-passing-case"),
    result(HOSTILE_ID, failing=FAILING),
    result("support/unreadable", error="support/unreadable/trace.json: line 3 column 9: "
                                       "invalid JSON; expected a complete JSON value"),
), metadata={})


def drawn(width: int) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), force_terminal=True)
    render_suite_table(SUITE, console)
    return console.export_text()


def squeezed(text: str) -> str:
    """Return ``text`` without whitespace: lines wrap between words and inside long ones."""
    return "".join(text.split())


@pytest.mark.parametrize("width", [40, 80, 200])
def test_the_table_fits_the_terminal_and_says_what_it_left_out(width: int) -> None:
    text = drawn(width)
    assert max(len(line) for line in text.splitlines()) <= width
    found = re.search(r"(\d+) check\(s\) left out of the table to fit (\d+) columns: (.*?); "
                      "their failures are listed below", " ".join(text.split()))
    if width == 200:
        assert found is None
        return
    assert found is not None, text
    dropped = found[3].split(", ")
    assert (int(found[1]), int(found[2])) == (len(dropped), width)
    assert FAILING not in dropped and set(dropped) < set(CHECKS)
    header = text.split("┡")[0]  # every check shown has its column
    for name in set(CHECKS) - set(dropped):
        assert all(word[:5] in header for word in name.split("_")), name


@pytest.mark.parametrize("width", [40, 80, 200])
def test_failures_and_errors_are_explained_under_the_table(width: int) -> None:
    text = squeezed(drawn(width))
    escaped_id = "support/refund-[link=https://evil.example]here[/link]\\x1b[2J"
    assert squeezed(f"fail {escaped_id} {FAILING}: expected refund_payment.amount 59.9, "
                    "got 5.99") in text
    assert squeezed("error support/unreadable: support/unreadable/trace.json: line 3 column 9: "
                    "invalid JSON") in text


def test_text_from_a_trace_is_never_markup_or_an_escape_code() -> None:
    console = Console(width=120, file=io.StringIO(), force_terminal=True)
    render_suite_table(SUITE, console)
    raw = console.file.getvalue()  # type: ignore[attr-defined]
    assert "\x1b[2J" not in raw  # escaped as text, never sent to the terminal
    assert "\x1b]8;" not in raw  # no hyperlink escape: [link=...] stayed text


@pytest.mark.parametrize(("width", "shown"), [
    (200, CHECKS),
    (60, ["tool_selection_accuracy", "step_budget", "divergence_score"]),
    (45, [FAILING]),
    (30, []),
])
def test_failing_checks_get_the_room_first(width: int, shown: list[str]) -> None:
    kept, dropped = fit_columns(CHECKS, {FAILING}, width, case_width=20)
    assert kept == shown
    assert kept + [n for n in CHECKS if n in dropped] == kept + dropped
    assert sorted(kept + dropped) == sorted(CHECKS)

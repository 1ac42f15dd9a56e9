"""The ``markdown`` report, written to fit a GitHub job summary.

Order: a headline with the pass rate and the gate verdict; a table per metric; a table of
cases by metrics; then the failures with their details and the errored cases with their
reasons. Long sections fold into ``<details>`` so the summary stays readable on big suites.
"""

from __future__ import annotations

from openeval.models import MetricResult
from openeval.results import CaseResult, SuiteResult

FOLD_OVER = 20
"""Sections with more rows than this are folded into ``<details>``."""

_CELL_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|"}


def cell(text: str) -> str:
    """Return ``text`` safe inside a Markdown table cell (pipes, newlines and HTML escaped)."""
    out = "".join(_CELL_ESCAPES.get(ch, ch) for ch in text)
    return "<br>".join(line for line in out.replace("\r\n", "\n").split("\n"))


def percent(rate: float | None) -> str:
    """Return a rate as ``87.5%``, or ``n.a.`` when it is None."""
    return "n.a." if rate is None else f"{rate:.1%}"


def _verdict(result: MetricResult | None) -> str:
    if result is None:
        return "-"
    if result.passed is None:
        return "n.a."
    return "pass" if result.passed else "**FAIL**"


def _status(case: CaseResult) -> str:
    if case.errored:
        return "⚠️ error"
    return "✅ passed" if case.passed else "❌ failed"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _fold(title: str, body: list[str], rows: int) -> list[str]:
    if rows <= FOLD_OVER:
        return body
    return [f"<details><summary>{title}</summary>", "", *body, "", "</details>"]


def _headline(suite: SuiteResult) -> list[str]:
    mark = "✅" if suite.gate_passed else "❌"
    verdict = "gate passed" if suite.gate_passed else "gate failed"
    rate = suite.pass_rate
    figure = "no pass rate: nothing evaluated" if rate is None else f"pass rate {percent(rate)}"
    lines = [f"## {mark} OpenEval: {figure}, {verdict}", ""]
    if suite.fail_under is not None:
        lines.append(
            f"Gate: pass rate at least {percent(suite.fail_under)} "
            f"(`--fail-under {suite.fail_under:g}`); no case may error."
        )
    lines.append(f"Verdict: {cell(suite.gate_reason)}.")
    cases = suite.cases
    passed = sum(c.passed for c in cases)
    errored = sum(c.errored for c in cases)
    totals = suite.metric_totals()
    lines += [
        "",
        f"**{len(cases)}** cases: {passed} passed, {len(cases) - passed - errored} failed, "
        f"{errored} errored. Metric results: {totals.passed} passed, {totals.failed} failed, "
        f"{totals.not_applicable} n.a.",
    ]
    return lines


def _metric_section(suite: SuiteResult) -> list[str]:
    tallies = suite.per_metric()
    if not tallies:
        return []
    rows = [
        [name, str(t.passed), str(t.failed), str(t.not_applicable), percent(t.pass_rate)]
        for name, t in tallies.items()
    ]
    header = ["metric", "passed", "failed", "n.a.", "pass rate"]
    return ["", "### Metrics", "", *_table(header, rows)]


def _case_section(suite: SuiteResult) -> list[str]:
    names = list(suite.per_metric())
    rows = []
    for case in suite.cases:
        by_name = {m.metric_name: m for m in case.metrics}
        rows.append(
            [cell(case.case_id), _status(case), *(_verdict(by_name.get(n)) for n in names)]
        )
    table = _table(["case", "status", *names], rows)
    return ["", "### Cases", "", *_fold(f"All {len(rows)} cases", table, len(rows))]


def _failure_section(suite: SuiteResult) -> list[str]:
    rows = [
        [cell(case.case_id), m.metric_name, f"{m.score:.2f}", cell(m.details)]
        for case in suite.cases
        for m in case.metrics
        if m.passed is False
    ]
    if not rows:
        return []
    table = _table(["case", "metric", "score", "details"], rows)
    return ["", "### Failures", "", *_fold(f"{len(rows)} failed metric results", table, len(rows))]


def _error_section(suite: SuiteResult) -> list[str]:
    rows = [[cell(c.case_id), cell(c.error or "")] for c in suite.cases if c.errored]
    if not rows:
        return []
    table = _table(["case", "reason"], rows)
    return ["", "### Errored cases", "", *_fold(f"{len(rows)} errored cases", table, len(rows))]


class MarkdownReporter:
    """Renders a suite as Markdown for a pull request or a GitHub job summary."""

    name = "markdown"
    description = "Markdown for a GitHub job summary: verdict, per-metric and per-case tables"

    def render(self, suite: SuiteResult) -> str:
        """Return the Markdown text of the report, ending with a newline."""
        lines = [
            *_headline(suite),
            *_metric_section(suite),
            *_case_section(suite),
            *_failure_section(suite),
            *_error_section(suite),
        ]
        return "\n".join(lines) + "\n"


REPORTER = MarkdownReporter()

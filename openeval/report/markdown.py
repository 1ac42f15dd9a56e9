"""The ``markdown`` report, written to fit a GitHub job summary.

Order: a headline with the pass rate and the gate verdict; the per-metric gates; a table per
metric and check; a table of cases by checks (for a case with trials, how many passed); the
trials with pass^k and pass@k; then the failures with their details, the expected and executed
calls side by side for cases whose calls did not match, the state diffs and per-turn results
(failing first), the errored cases with their reasons, the warnings, and the notes of results
that passed. Long sections fold into ``<details>`` so the summary stays readable on big suites.
Every count comes from the run's :class:`~openeval.results.summary.Summary`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from openeval.report.alignment import Alignment, aligned_check, difference_parts, position, text_of
from openeval.report.frames import STATE_KIND, framed_checks, row_ok, table_of
from openeval.results.records import CaseResult, CheckResult, SuiteResult
from openeval.results.summary import Summary, percent

FOLD_OVER = 20
"""Sections with more rows than this are folded into ``<details>``."""

_CELL_ESCAPES = {
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "|": "\\|",
    # No link or image syntax from a case name: "[x](url)" and "![x](url)" stay text.
    "[": "\\[", "]": "\\]", "!": "\\!", "`": "\\`", "*": "\\*",
}



def cell(text: str) -> str:
    """Return ``text`` safe inside a Markdown table cell (pipes, newlines, link syntax and
    HTML escaped)."""
    out = "".join(_CELL_ESCAPES.get(ch, ch) for ch in text)
    return "<br>".join(line for line in out.replace("\r\n", "\n").split("\n"))


def code_cell(text: str) -> str:
    """Return free text from a trace (details, errors) as a code span in a table cell.

    Inside a code span nothing renders: no link, image, emphasis or HTML from a tool result
    reaches the job summary as anything but text. Line breaks become spaces; a pipe is the one
    character a table still needs escaped.
    """
    flat = " ".join(text.splitlines()).replace("|", "\\|")
    if not flat.strip():
        return ""
    longest = run = 0
    for ch in flat:
        run = run + 1 if ch == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    return f"{fence} {flat} {fence}"


def _source(text: str) -> str:
    """A gate line's source as code: a flag or ``file:line key``, from the run's own record."""
    plain = "`" not in text and "|" not in text and "\n" not in text
    return f"`{text}`" if plain else code_cell(text)


_VERDICT_CELL = {"pass": "pass", "fail": "**FAIL**", "n.a.": "n.a.", "error": "**ERROR**",
                 "report only": "report only"}
_STATUS_CELL = {"passed": "✅ passed", "failed": "❌ failed", "error": "⚠️ error", "n.a.": "○ n.a."}


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def _fold(title: str, body: list[str], rows: int) -> list[str]:
    if rows <= FOLD_OVER:
        return body
    return [f"<details><summary>{title}</summary>", "", *body, "", "</details>"]


def _headline(suite: SuiteResult, summary: Summary) -> list[str]:
    mark = "✅" if summary.gate_passed else "❌"
    verdict = "gate passed" if summary.gate_passed else "gate failed"
    rate = summary.pass_rate
    figure = "no pass rate: nothing evaluated" if rate is None else f"pass rate {percent(rate)}"
    lines = [f"## {mark} OpenEval: {figure}, {verdict}", ""]
    if suite.fail_under is not None:
        lines.append(
            f"Gate: pass rate at least {percent(suite.fail_under)} "
            f"({_source(suite.gate_source('fail_under'))}); no case may error."
        )
    lines += _case_floor_line(suite)
    lines.append(f"Verdict: {cell(summary.gate_reason)}.")
    r = summary.results
    lines += [
        "",
        f"**{summary.cases}** cases: {summary.passed_cases} passed, {summary.failed_cases} "
        f"failed, {summary.errored_cases} errored, {summary.not_evaluated_cases} n.a. "
        f"(cases passed: {percent(summary.case_pass_rate)}). Results: {r.passed} passed, "
        f"{r.failed} failed, {r.errored} errored, {r.not_applicable} n.a.",
    ]
    return lines


def _case_floor_line(suite: SuiteResult) -> list[str]:
    floor = suite.fail_under_cases
    if floor is None:
        return []
    return [f"Gate: cases passed at least {percent(floor)} "
            f"({_source(suite.gate_source('fail_under_cases'))}); no case may error."]


def _gate_section(suite: SuiteResult, summary: Summary) -> list[str]:
    """The per-metric gates: each name's pass rate, the line it must reach, where that line
    was set, and the verdict."""
    if not summary.gates:
        return []
    rows = [
        [cell(g.name), percent(g.figure), percent(g.line),
         _source(suite.gate_source(f"gates.{g.name}")), "✅ passed" if g.passed else "❌ failed"]
        for g in summary.gates
    ]
    header = ["gate (metric or check)", "pass rate", "needs", "set by", "verdict"]
    return ["", "### Gates", "", *_table(header, rows)]


def _trial_verdicts(case: CaseResult) -> str:
    marks = {"passed": "✅", "failed": "❌", "error": "⚠️", "n.a.": "○"}
    return " ".join(f"{marks[t.status]} {cell(t.trial_label)}" for t in case.trials)


def _figures(values: tuple[float, ...]) -> str:
    return ", ".join(f"{k}: {v:.2f}" for k, v in enumerate(values, 1))


def _trial_section(suite: SuiteResult, summary: Summary) -> list[str]:
    """Cases run several times: each trial's verdict, pass^k and pass@k, and the means."""
    trials = summary.trials
    if trials is None:
        return []
    rows = []
    for case in suite.cases:
        stats = case.trial_stats
        if stats is None:
            continue
        rows.append([
            cell(case.case_id), _STATUS_CELL[case.status], cell(case.trials_rule or ""),
            f"{stats.passed}/{stats.n}", case.stability or "-", _trial_verdicts(case),
            _figures(stats.pass_hat_k), _figures(stats.pass_at_k),
        ])
    header = ["case", "status", "rule", "passed", "label", "trials", "pass^k", "pass@k"]
    table = _table(header, rows)
    means = _table(
        ["k", "cases", "mean pass^k", "mean pass@k"],
        [[str(m.k), str(m.cases), f"{m.pass_hat_k:.3f}", f"{m.pass_at_k:.3f}"]
         for m in trials.by_k],
    )
    return [
        "", "### Trials", "",
        f"{trials.cases} case(s) ran {trials.trials} trials; {trials.passed_trials} passed."
        + _labels(trials.labels_text()),
        "", *_fold(f"All {len(rows)} cases with trials", table, len(rows)), "", *means,
    ]


def _labels(text: str) -> str:
    """`` Labels: 1 stable-pass, 2 flaky, 0 stable-fail.``; empty for older results."""
    return f" Labels: {text}." if text else ""


def _check_section(suite: SuiteResult, summary: Summary) -> list[str]:
    if not summary.per_check:
        return []
    marked = suite.report_only_names
    rows = [
        [cell(name) + (" (report only: pass line 0)" if name in marked else ""), str(t.passed),
         str(t.failed), str(t.errored), str(t.not_applicable), percent(t.pass_rate)]
        for name, t in summary.per_check.items()
    ]
    header = ["metric or check", "passed", "failed", "errored", "n.a.", "pass rate"]
    return ["", "### Metrics and checks", "", *_table(header, rows)]


MAX_ROWS = 300
"""Rows a table lists at most: GitHub refuses a job summary over 1 MiB, and 10,000 cases would
be 1.5 MB. Past it, the cases that did not pass are listed first and a line says how many rows
were left out and where the whole run is."""


def _bounded(rows: list[list[str]], what: str) -> tuple[list[list[str]], list[str]]:
    if len(rows) <= MAX_ROWS:
        return rows, []
    note = (f"{len(rows) - MAX_ROWS} more {what} not listed here; every one is in the results "
            "folder (`openeval report --format html` or `--format json` renders them all).")
    return rows[:MAX_ROWS], ["", note]


def _case_section(suite: SuiteResult, summary: Summary) -> list[str]:
    names = list(summary.per_check)
    rows = []
    cases = list(suite.cases)
    if len(cases) > MAX_ROWS:  # too many to list: the cases that need a look come first
        cases.sort(key=lambda c: c.status == "passed")
    for case in cases:
        rows.append([
            cell(case.case_id), _STATUS_CELL[case.status],
            *(_VERDICT_CELL.get(v, v) if (v := case.verdict_cell(n)) else "-" for n in names),
        ])
    total = len(rows)
    rows, note = _bounded(rows, "cases")
    table = _table(["case", "status", *(cell(n) for n in names)], rows)
    return ["", "### Cases", "", *_fold(f"All {total} cases", table, len(rows)), *note]


def _failed(check: CheckResult) -> bool:
    return check.verdict in ("fail", "error")


def _failure_section(suite: SuiteResult) -> list[str]:
    rows = [
        [cell(record.case_id), cell(c.name), _VERDICT_CELL[c.verdict], c.score_text(),
         code_cell(c.details)]
        for case in suite.cases
        for record in case.judged()
        for c in record.checks
        if _failed(c)
    ]
    if not rows:
        return []
    total = len(rows)
    rows, note = _bounded(rows, "failed results")
    table = _table(["case", "metric or check", "verdict", "score", "details"], rows)
    return ["", "### Failures", "",
            *_fold(f"{total} failed results", table, len(rows)), *note]


MAX_ALIGNMENTS = 12
"""Side-by-side tables the report draws at most (one per case that did not pass)."""
MAX_ALIGNMENT_ROWS = 25
"""Rows of one side-by-side table; 12 x 25 keeps the section within :data:`MAX_ROWS`."""
_SHOWN_DIFFERENCES = 2  # per row: the Markdown stays small, the HTML report shows them all
_DIFFERENCE_CHARS = 60


def _short(text: str) -> str:
    return text if len(text) <= _DIFFERENCE_CHARS else text[: _DIFFERENCE_CHARS - 1] + "…"


def _difference_cell(row: Mapping[str, Any]) -> str:
    found = difference_parts(row)
    parts = []
    for where, expected, got, reason in found[:_SHOWN_DIFFERENCES]:
        if reason is not None:
            parts.append(f"{code_cell(_short(where))}: {code_cell(_short(reason))}")
            continue
        want = "(not expected)" if expected is None else expected
        parts.append(f"{code_cell(_short(where))}: {code_cell(_short(want))} → "
                     f"{code_cell(_short(got))}")
    if len(found) > _SHOWN_DIFFERENCES:
        parts.append(f"+{len(found) - _SHOWN_DIFFERENCES} more")
    note = row.get("note")
    if isinstance(note, str) and note:
        parts.append(code_cell(_short(note)))
    return "<br>".join(parts)


def _aligned_rows(alignment: Alignment) -> tuple[list[list[str]], int]:
    """Return the table rows of an alignment (a window from before its first divergence) and
    how many rows were left out."""
    rows, at = alignment.rows, alignment.first
    start = 0
    if at is not None and len(rows) > MAX_ALIGNMENT_ROWS:
        start = max(0, min(at - 3, len(rows) - MAX_ALIGNMENT_ROWS))
    out = []
    for n, row in enumerate(rows[start:start + MAX_ALIGNMENT_ROWS], start):
        number = position(row)
        step = row.get("step_id")
        executed_tool = text_of(row.get("got_tool") or row.get("tool", ""))
        status = text_of(row.get("status", ""))
        status_cell = cell(status) if row.get("ok", True) else f"**{cell(status)}**"
        if n == at:
            status_cell += " ← first divergence"
        out.append([
            number,
            code_cell(text_of(row.get("tool", ""))) if number else "",
            f"step {cell(text_of(step))} {code_cell(executed_tool)}" if step is not None else "-",
            status_cell,
            _difference_cell(row),
        ])
    return out, alignment.total - len(out)


def _alignment_section(suite: SuiteResult) -> list[str]:
    """Expected and executed calls side by side, for the cases whose calls did not match."""
    found = [(record, check) for case in suite.cases for record in case.judged()
             if (check := aligned_check(record)) is not None and check.verdict == "fail"]
    if not found:
        return []
    lines = ["", "### Expected vs executed calls", ""]
    for record, check in found[:MAX_ALIGNMENTS]:
        rows, left_out = _aligned_rows(Alignment.of(check))
        header = ["#", "expected", "executed", "status", "differing arguments (expected → got)"]
        lines += [f"**{cell(record.case_id)}** · {cell(check.name)}", "", *_table(header, rows)]
        if left_out:
            lines += ["", f"{left_out} more rows not shown."]
        lines.append("")
    if len(found) > MAX_ALIGNMENTS:
        lines.append(f"{len(found) - MAX_ALIGNMENTS} more cases with calls that did not match; "
                     "the HTML report (`openeval report --format html`) shows every one.")
    return lines


def _frame_section(suite: SuiteResult) -> list[str]:
    """The state diff and per-turn results of the cases that hold them, the failing ones
    first; as bounded as the side-by-side calls."""
    found = [(record, check) for case in suite.cases for record in case.judged()
             for check in framed_checks(record) if check.verdict in ("pass", "fail")]
    if not found:
        return []
    found.sort(key=lambda pair: pair[1].verdict != "fail")
    lines = ["", "### State changes and turns", ""]
    for record, check in found[:MAX_ALIGNMENTS]:
        kind = check.spec.kind
        columns, rows, left_out = table_of(check, MAX_ALIGNMENT_ROWS)
        marked = 3 if kind == STATE_KIND else 1  # the verdict column: bold when it fails
        body = []
        for row in rows:
            # Paths, values and reasons come from the trace: code spans, where nothing renders.
            free = (0, 1, 2) if kind == STATE_KIND else (3,)
            cells = [code_cell(text) if n in free else cell(text) for n, text in enumerate(row)]
            if not row_ok(kind, row):
                cells[marked] = f"**{cells[marked]}**"
            body.append(cells)
        lines += [f"**{cell(record.case_id)}** · {cell(check.name)} · "
                  f"{_VERDICT_CELL[check.verdict]}", "", *_table(list(columns), body)]
        if left_out:
            lines += ["", f"{left_out} more rows not shown."]
        lines.append("")
    if len(found) > MAX_ALIGNMENTS:
        lines.append(f"{len(found) - MAX_ALIGNMENTS} more state diffs or per-turn results; "
                     "the HTML report (`openeval report --format html`) shows every one.")
    return lines


def _notes_section(suite: SuiteResult) -> list[str]:
    """Notes of results that passed: worth a look, and changing no verdict."""
    rows = [[cell(record.case_id), cell(c.name), code_cell(note)]
            for case in suite.cases for record in case.judged()
            for c in record.checks if c.verdict == "pass" for note in c.notes]
    if not rows:
        return []
    total = len(rows)
    rows, left = _bounded(rows, "notes")
    table = _table(["case", "metric or check", "note"], rows)
    return ["", "### Notes", "", "On results that passed; they change no verdict.", "",
            *_fold(f"{total} notes", table, len(rows)), *left]


def _warning_section(suite: SuiteResult) -> list[str]:
    rows = [[cell(c.case_id), code_cell(w)] for c in suite.cases for w in c.warnings]
    if not rows:
        return []
    table = _table(["case", "warning"], rows)
    return ["", "### Warnings", "", *_fold(f"{len(rows)} warnings", table, len(rows))]


def _error_section(suite: SuiteResult) -> list[str]:
    rows = [
        [cell(record.case_id), code_cell(record.error)]
        for case in suite.cases
        for record in (case, *case.trials)
        if record.error is not None
    ]
    if not rows:
        return []
    table = _table(["case", "reason"], rows)
    return ["", "### Errored cases", "", *_fold(f"{len(rows)} errored cases", table, len(rows))]


class MarkdownReporter:
    """Renders a suite as Markdown for a pull request or a GitHub job summary."""

    name = "markdown"
    description = "Markdown for a GitHub job summary: verdict, per-check and per-case tables"

    def render(self, suite: SuiteResult) -> str:
        """Return the Markdown text of the report, ending with a newline."""
        summary = suite.summary
        lines = [
            *_headline(suite, summary),
            *_gate_section(suite, summary),
            *_check_section(suite, summary),
            *_case_section(suite, summary),
            *_trial_section(suite, summary),
            *_failure_section(suite),
            *_alignment_section(suite),
            *_frame_section(suite),
            *_error_section(suite),
            *_warning_section(suite),
            *_notes_section(suite),
        ]
        return "\n".join(lines) + "\n"


REPORTER = MarkdownReporter()

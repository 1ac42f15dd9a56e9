"""A baseline comparison (:class:`~openeval.results.diff.ResultDiff`) as Markdown, JSON or
GitHub annotations: what ``openeval diff`` and ``openeval run --baseline`` print.

The Markdown is written for a pull-request comment or a job summary: the verdict and the
figures first, then every case that got worse, then everything else folded into one
``<details>`` block (improved, still failing, appeared, disappeared, and the pass rate of each
metric and check). Pure functions: the same diff always gives the same text.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from openeval.jsonio import dump_json
from openeval.report.github import command
from openeval.report.markdown import cell
from openeval.report.registry import BUILTIN_DIFF
from openeval.report.registry import render_diff as render_diff
from openeval.results.diff import KINDS, CaseChange, ChangeKind, RateChange, ResultDiff
from openeval.results.summary import percent

DiffFormat = str
"""A comparison format's name: one of ``openeval.report.registry.diff_names()``."""

DIFF_FORMATS: tuple[str, ...] = tuple(BUILTIN_DIFF)
"""The built-in comparison formats; every format, plugins' too, is in ``diff_names()``."""

_STATUS: dict[str | None, str] = {
    "passed": "✅ passed", "failed": "❌ failed", "error": "⚠️ error", "n.a.": "○ n.a.", None: "-",
}
_KIND_TITLE: dict[ChangeKind, str] = {
    "regressed": "Regressed", "improved": "Improved", "still_failing": "Still failing",
    "unchanged": "Unchanged", "appeared": "Appeared", "disappeared": "Disappeared",
}
_KIND_WORDS: dict[ChangeKind, str] = {
    "regressed": "regressed", "improved": "improved", "still_failing": "still failing",
    "unchanged": "unchanged", "appeared": "appeared", "disappeared": "disappeared",
}


def points(change: RateChange) -> str:
    """Return a rate change in percentage points: ``+8.3 pts``, ``no change`` or ``n.a.``."""
    delta = change.delta
    if delta is None:
        return "n.a."
    shown = round(delta * 100, 1)
    return "no change" if shown == 0 else f"{shown:+.1f} pts"


def worse_text(change: CaseChange) -> str:
    """Return what got worse in one case, as one phrase (empty when nothing did)."""
    parts = []
    if change.kind == "regressed":
        parts.append(f"{change.base_status} → {change.head_status}")
    if change.checks_worse:
        parts.append("newly failing: " + ", ".join(change.checks_worse))
    parts += [f"{d.check} {d.base:.2f} → {d.head:.2f}" for d in change.score_drops]
    return "; ".join(parts)


def flaky_text(change: CaseChange) -> str:
    """Return why a case is flaky, and whether that is new (empty when it is not flaky)."""
    if change.flaky is None:
        return ""
    return change.flaky + (" (new)" if change.new_flaky else " (flaky before this run too)")


def _counts_text(diff: ResultDiff) -> str:
    counts = diff.counts()
    return ", ".join(f"{counts[k]} {_KIND_WORDS[k]}" for k in KINDS)


def headline(diff: ResultDiff) -> str:
    """Return the one-line verdict of a comparison."""
    parts = []
    if diff.regressions:
        parts.append(f"{len(diff.regressions)} case(s) got worse than the baseline")
    if diff.removed:
        parts.append(f"{len(diff.removed)} case(s) of the baseline disappeared")
    if diff.new_flaky:
        parts.append(f"{len(diff.new_flaky)} case(s) newly flaky")
    return "; ".join(parts) or "nothing got worse than the baseline"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def _figures(diff: ResultDiff) -> list[str]:
    by_task = f" ({diff.matched_by_task_id} by task id)" if diff.matched_by_task_id else ""
    counts = diff.counts()
    rate, cases = diff.pass_rate, diff.case_pass_rate
    return [
        f"Matched **{diff.matched}** of {diff.head_cases} cases{by_task} with the baseline's "
        f"{diff.base_cases} ({counts['appeared']} appeared, {counts['disappeared']} "
        f"disappeared). Pass rate {percent(rate.base)} → {percent(rate.head)} "
        f"({points(rate)}); cases passed {percent(cases.base)} → {percent(cases.head)} "
        f"({points(cases)}). A score may drop by up to {diff.tolerance:g} while its verdict "
        "holds.",
    ]


def _worse_section(diff: ResultDiff) -> list[str]:
    rows = [
        [cell(c.case_id), _STATUS[c.base_status], _STATUS[c.head_status], cell(worse_text(c))]
        for c in diff.regressions
    ]
    if not rows:
        return []
    return ["", "### Got worse", "", *_table(["case", "baseline", "now", "what got worse"],
                                             rows)]


def _removed_section(diff: ResultDiff) -> list[str]:
    rows = [[cell(c.case_id), _STATUS[c.base_status], cell(c.testcase_path or "-")]
            for c in diff.removed]
    if not rows:
        return []
    return ["", "### Disappeared", "", "In the baseline, not in this run (a deleted case fails "
            "the comparison unless `--allow-removed`):", "",
            *_table(["case", "baseline", "test case"], rows)]


def _flaky_section(diff: ResultDiff) -> list[str]:
    rows = [[cell(c.case_id), _STATUS[c.head_status], "yes" if c.new_flaky else "no",
             cell(c.flaky or "")] for c in diff.flaky]
    if not rows:
        return []
    return ["", "### Flaky", "", *_table(["case", "now", "new", "why"], rows)]


def _kind_rows(diff: ResultDiff, kind: ChangeKind) -> list[list[str]]:
    rows = []
    for c in diff.changes:
        if c.kind != kind or c.worse or kind == "disappeared":
            continue
        row = [cell(c.case_id), _STATUS[c.base_status], _STATUS[c.head_status]]
        if kind == "improved":
            row.append(cell(", ".join(c.checks_better)) or "-")
        rows.append(row)
    return rows


def _rest_section(diff: ResultDiff) -> list[str]:
    body: list[str] = []
    for kind in KINDS:
        if kind == "unchanged":
            continue  # counted in the summary line; listing hundreds of them helps nobody
        rows = _kind_rows(diff, kind)
        if not rows:
            continue
        header = ["case", "baseline", "now"] + (["checks now passing"] if kind == "improved"
                                                else [])
        body += [f"#### {_KIND_TITLE[kind]}", "", *_table(header, rows), ""]
    rates = [
        [cell(r.name), percent(r.base), percent(r.head), points(r)] for r in diff.per_check
    ]
    if rates:
        body += [f"#### Pass rate per metric and check (the {diff.matched} matched cases)", "",
                 *_table(["metric or check", "baseline", "now", "change"], rates), ""]
    summary = f"All cases: {_counts_text(diff)}; pass rate per metric and check"
    return ["", f"<details><summary>{summary}</summary>", "", *body, "</details>"]


def diff_markdown(diff: ResultDiff) -> str:
    """Return the comparison as Markdown for a pull-request comment, ending with a newline."""
    # Newly flaky fails only with --fail-on-new-flaky, which the report cannot know: a warning.
    mark = "❌" if diff.regressions or diff.removed else "⚠️" if diff.new_flaky else "✅"
    lines = [f"## {mark} OpenEval baseline: {headline(diff)}", "", *_figures(diff),
             *_worse_section(diff), *_removed_section(diff), *_flaky_section(diff),
             *_rest_section(diff)]
    return "\n".join(lines) + "\n"


def diff_document(diff: ResultDiff, base: str | None = None, head: str | None = None
                  ) -> dict[str, Any]:
    """Return the comparison as a JSON value, with the two result folders when given."""
    return {"base": base, "head": head, **diff.to_dict()}


def diff_json(diff: ResultDiff, base: str | None = None, head: str | None = None) -> str:
    """Return the comparison as canonical JSON text."""
    return dump_json(diff_document(diff, base, head)).decode()


def diff_github(diff: ResultDiff, *, failing: bool = True) -> str:
    """Return GitHub annotations: the verdict, then one per case that got worse, on its test
    case file; ``error`` when the comparison fails the step, ``warning`` when it only reports.
    """
    severity: Literal["error", "warning"] = "error" if failing else "warning"
    verdict = f"{headline(diff)}; {_counts_text(diff)}"
    lines = [command(severity if diff.regressions or diff.removed else "notice", verdict,
                     title="OpenEval baseline")]
    lines += [
        command(severity, worse_text(c), file=c.testcase_path,
                title=f"OpenEval: {c.case_id} got worse than the baseline")
        for c in diff.regressions
    ]
    lines += [
        command(severity, f"{c.case_id} was in the baseline ({c.base_status}) and is not in "
                "this run", file=c.testcase_path,
                title=f"OpenEval: {c.case_id} disappeared")
        for c in diff.removed
    ]
    lines += [
        command("warning", flaky_text(c), file=c.testcase_path,
                title=f"OpenEval: {c.case_id} is flaky")
        for c in diff.new_flaky
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class _DiffFormat:
    """A built-in comparison format: a name, a line about it, and the function writing it."""

    name: str
    description: str
    write: Callable[[ResultDiff, str | None, str | None, bool], str]

    def render(
        self, diff: ResultDiff, *, base: str | None, head: str | None, failing: bool
    ) -> str:
        """Return the comparison as text (see :class:`~openeval.report.registry.DiffReporter`)."""
        return self.write(diff, base, head, failing)


MARKDOWN = _DiffFormat("markdown", "Markdown for a pull-request comment or a job summary",
                       lambda diff, base, head, failing: diff_markdown(diff))
JSON = _DiffFormat("json", "canonical JSON for tools, with the two result folders",
                   lambda diff, base, head, failing: diff_json(diff, base, head))
GITHUB = _DiffFormat("github", "GitHub annotations on the test cases that got worse",
                     lambda diff, base, head, failing: diff_github(diff, failing=failing))


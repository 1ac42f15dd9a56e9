"""Terminal output of ``openeval run``: a rich table on a terminal, plain lines in CI logs.

Only the CLI prints. On a terminal (stdout is a TTY) cases are drawn as a rich table with a
progress bar while a suite runs; otherwise every line is plain text with no colour codes, so
CI logs stay greppable. rich is imported only when a terminal is there to draw on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from openeval.models import MetricResult
from openeval.results import CaseResult, SuiteResult

if TYPE_CHECKING:
    from rich.console import Console


def is_terminal() -> bool:
    """Return True when stdout is an interactive terminal (draw colours and bars)."""
    return sys.stdout.isatty()


def verdict_word(result: MetricResult) -> str:
    """Return ``pass``, ``fail`` or ``n.a.`` for one metric result."""
    if result.passed is None:
        return "n.a."
    return "pass" if result.passed else "fail"


def summary_line(suite: SuiteResult) -> str:
    """Return the one-line verdict of a run: counts, pass rate, gate and why."""
    cases = suite.cases
    passed = sum(c.passed for c in cases)
    errored = sum(c.errored for c in cases)
    failed = len(cases) - passed - errored
    good, judged = suite.counted
    rate = suite.pass_rate
    figure = "no pass rate" if rate is None else f"pass rate {rate:.1%} ({good}/{judged})"
    gate = "gate passed" if suite.gate_passed else "gate FAILED"
    return (
        f"openeval: {len(cases)} case(s): {passed} passed, {failed} failed, {errored} errored; "
        f"{figure}; {gate}: {suite.gate_reason}"
    )


def _plain_case_lines(case: CaseResult) -> list[str]:
    if case.errored:
        return [f"ERROR {case.case_id}: {case.error}"]
    lines = [f"{'PASS ' if case.passed else 'FAIL '} {case.case_id}"]
    for m in case.metrics:
        if m.passed is False:
            lines.append(f"    {verdict_word(m):4}  {m.metric_name} {m.score:.2f}: {m.details}")
    return lines


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


_STYLE = {"pass": "green", "fail": "bold red", "n.a.": "dim"}

TABLE_ALL_UP_TO = 50
"""Suites with more cases than this list only the cases that did not pass."""


def print_suite(suite: SuiteResult, *, quiet: bool) -> None:
    """Print the cases x metrics table (unless ``quiet``) and the summary line."""
    if not quiet:
        if is_terminal():
            _rich_suite_table(suite)
        else:
            big = len(suite.cases) > TABLE_ALL_UP_TO
            for case in suite.cases:
                if big and case.passed:
                    continue
                for line in _plain_case_lines(case):
                    click.echo(line)
            hidden = sum(c.passed for c in suite.cases) if big else 0
            if hidden:
                click.echo(f"({hidden} passing cases not listed)")
    click.echo(summary_line(suite))


def _rich_suite_table(suite: SuiteResult) -> None:
    from rich.table import Table

    names = list(suite.per_metric())
    shown = [c for c in suite.cases if not c.passed] if len(suite.cases) > TABLE_ALL_UP_TO else None
    rows = suite.cases if shown is None else tuple(shown)
    hidden = len(suite.cases) - len(rows)
    caption = f"{hidden} passing cases not shown" if hidden else None
    table = Table(title="OpenEval results", caption=caption, show_lines=False)
    # Case ids are what a reader searches for: keep them whole, up to a sensible width.
    widest = max((len(c.case_id) for c in rows), default=4)
    table.add_column("case", overflow="fold", min_width=min(widest, 60))
    for name in names:
        table.add_column(name.replace("_", " "), justify="center")
    for case in rows:
        if case.errored:
            reason = _escape(case.error or "")
            table.add_row(f"[bold red]{_escape(case.case_id)}[/]", f"[red]error: {reason}[/]")
            continue
        by_name = {m.metric_name: verdict_word(m) for m in case.metrics}
        cells = [f"[{_STYLE[w]}]{w}[/]" if (w := by_name.get(n)) else "-" for n in names]
        table.add_row(_escape(case.case_id), *cells)
    _console().print(table)


def print_case(case: CaseResult, *, quiet: bool) -> None:
    """Print one case's metric results (single-case mode), one per line or as a table."""
    if quiet:
        return
    if is_terminal():
        from rich.table import Table

        table = Table(title=f"{case.task_id}  ({case.trace_format} trace)")
        for column in ("metric", "verdict", "score", "details"):
            table.add_column(column, overflow="fold")
        for m in case.metrics:
            word = verdict_word(m)
            table.add_row(
                m.metric_name, f"[{_STYLE[word]}]{word}[/]", f"{m.score:.2f}", _escape(m.details)
            )
        _console().print(table)
        return
    click.echo(f"{case.task_id} ({case.trace_format} trace)")
    for m in case.metrics:
        click.echo(f"  {verdict_word(m):4}  {m.metric_name} {m.score:.2f}: {m.details}")


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


@contextmanager
def progress_bar(enabled: bool) -> Iterator[Callable[[int, int, CaseResult], None] | None]:
    """Yield a progress callback drawing a bar on a terminal, or None when not ``enabled``."""
    if not enabled or not is_terminal():
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    # No refresh thread: worker processes are forked while the bar is shown, and forking a
    # process that runs threads is unsafe. The callback redraws about a hundred times a run.
    with Progress(
        TextColumn("scoring"), BarColumn(), MofNCompleteColumn(), transient=True,
        auto_refresh=False,
    ) as progress:
        task = progress.add_task("cases", total=None)

        def advance(done: int, total: int, case: CaseResult) -> None:
            progress.update(task, completed=done, total=total)
            if done == total or done % max(1, total // 100) == 0:
                progress.refresh()

        yield advance

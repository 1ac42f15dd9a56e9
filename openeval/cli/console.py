"""Terminal output of ``openeval run``: a rich table on a terminal, plain lines in CI logs.

Only the CLI prints. On a terminal (stdout is a TTY) cases are drawn as a rich table with a
progress bar while a suite runs; otherwise every line is plain text with no colour codes, so
CI logs stay greppable. rich is imported only when a terminal is there to draw on.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

import click

from openeval.printable import printable
from openeval.results.records import CaseResult, CheckResult, SuiteResult
from openeval.results.summary import percent

if TYPE_CHECKING:
    from rich.console import Console

    from openeval.results.diff import BaselinePolicy, ResultDiff


def is_terminal() -> bool:
    """Return True when stdout is an interactive terminal (draw colours and bars)."""
    return sys.stdout.isatty()


def verdict_word(result: CheckResult) -> str:
    """Return ``pass``, ``fail``, ``n.a.`` or ``error`` for one result."""
    return result.verdict


def summary_line(suite: SuiteResult) -> str:
    """Return the one-line verdict of a run: counts, pass rate, gate and why."""
    s = suite.summary
    rate = s.pass_rate
    figure = (
        "no pass rate" if rate is None
        else f"pass rate {rate:.1%} ({s.results.passed}/{s.results.judged})"
    )
    gate = "gate passed" if s.gate_passed else "gate FAILED"
    return printable(
        f"openeval: {s.cases} case(s): {s.passed_cases} passed, {s.failed_cases} failed, "
        f"{s.errored_cases} errored, {s.not_evaluated_cases} n.a. (cases passed: "
        f"{percent(s.case_pass_rate)}); {figure}; {gate}: {s.gate_reason}"
    )


_CASE_WORD = {"passed": "PASS ", "failed": "FAIL ", "error": "ERROR", "n.a.": "N.A. "}


def _plain_case_lines(case: CaseResult) -> list[str]:
    if case.trials:
        return _plain_trial_lines(case)
    if case.error is not None:
        return [f"ERROR {printable(case.case_id)}: {printable(case.error)}"]
    lines = [f"{_CASE_WORD[case.status]} {printable(case.case_id)}"]
    lines += [_result_line(c) for c in case.checks if c.verdict in ("fail", "error")]
    lines += [_report_only_line(c) for c in case.checks if c.report_only]
    lines += [f"    warning: {printable(w)}" for w in case.warnings]
    lines += [f"    note  {printable(name)}: {printable(note)}" for name, note in notes_of(case)]
    return lines


def notes_of(record: CaseResult) -> list[tuple[str, str]]:
    """Return ``(check name, note)`` for the notes of ``record``'s results that passed."""
    return [(c.name, note) for c in record.checks if c.verdict == "pass" for note in c.notes]


def trials_text(case: CaseResult) -> str:
    """Return ``2 of 3 trials passed, rule all, flaky`` for a case with trials (empty
    without); the stability label is left out when the case has none."""
    stats = case.trial_stats
    if stats is None:
        return ""
    label = f", {case.stability}" if case.stability is not None else ""
    return f"{stats.passed} of {stats.n} trials passed, rule {case.trials_rule}{label}"


def _plain_trial_lines(case: CaseResult) -> list[str]:
    lines = [f"{_CASE_WORD[case.status]} {printable(case.case_id)} ({trials_text(case)})"]
    if case.error is not None:
        lines.append(f"    error: {printable(case.error)}")
    for trial in case.trials:
        label = printable(trial.trial_label)
        if trial.error is not None:
            lines.append(f"    trial {label}: ERROR {printable(trial.error)}")
            continue
        lines.append(f"    trial {label}: {trial.status}")
        lines += ["  " + _result_line(c) for c in trial.checks if c.verdict in ("fail", "error")]
    report_only = sorted({c.name for trial in case.trials for c in trial.checks if c.report_only})
    lines += [f"    report only {printable(name)}: pass line 0, so its scores are reported, not "
              "judged" for name in report_only]
    return lines


def _report_only_line(check: CheckResult) -> str:
    return (f"    report only {printable(check.name)} {printable(check.score_text())}: pass "
            "line 0, so this score is reported, not judged")


def _result_line(check: CheckResult) -> str:
    return (
        f"    {check.verdict:5} {printable(check.name)} {printable(check.score_text())}: "
        f"{printable(check.details)}"
    )


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


_STYLE = {"pass": "green", "fail": "bold red", "n.a.": "dim", "error": "bold magenta",
          "report only": "cyan"}

TABLE_ALL_UP_TO = 50
"""Suites with more cases than this list only the cases that did not pass."""


def print_suite(suite: SuiteResult, *, quiet: bool) -> None:
    """Print the cases x metrics table (unless ``quiet``) and the summary line."""
    lines: list[str] = []
    if not quiet:
        if is_terminal():
            _rich_suite_table(suite)
        else:
            lines += plain_case_lines(suite)
        trials = trials_line(suite)
        if trials:
            lines.append(trials)
        lines += gate_lines(suite)
    lines.append(summary_line(suite))
    # One write: a line at a time, each flushed, was a system call per line of a long log.
    click.echo("\n".join(lines))


def plain_case_lines(suite: SuiteResult) -> list[str]:
    """Return the plain lines of the cases of ``suite`` (of those that did not pass, and how
    many passed, past :data:`TABLE_ALL_UP_TO` cases)."""
    big = len(suite.cases) > TABLE_ALL_UP_TO
    lines = [line for case in suite.cases if not (big and case.status == "passed")
             for line in _plain_case_lines(case)]
    hidden = suite.summary.passed_cases if big else 0
    if hidden:
        lines.append(f"({hidden} passing cases not listed)")
    return lines


def trials_line(suite: SuiteResult) -> str:
    """Return the run's trials in one line (cases, trials, pass^k and pass@k per k); empty
    when no case had trials."""
    t = suite.summary.trials
    if t is None:
        return ""
    figures = ", ".join(
        f"pass^{m.k} {percent(m.pass_hat_k)} pass@{m.k} {percent(m.pass_at_k)}" for m in t.by_k
    )
    labels = f" ({t.labels_text()})" if t.stability is not None else ""
    return (f"openeval: trials: {t.cases} case(s){labels} with {t.trials} trials, "
            f"{t.passed_trials} passed; {figures}")


def gate_lines(suite: SuiteResult) -> list[str]:
    """Return one line per per-metric gate: its name, figure, line and verdict."""
    return [
        f"gate {printable(g.name)}: pass rate {percent(g.figure)}, needs {percent(g.line)} "
        f"({printable(suite.gate_source(f'gates.{g.name}'))}): "
        f"{'passed' if g.passed else 'FAILED'}"
        for g in suite.summary.gates
    ]


def print_gates(suite: SuiteResult, *, quiet: bool) -> None:
    """Print the per-metric gates (unless ``quiet``: the summary line says which failed)."""
    if not quiet:
        for line in gate_lines(suite):
            click.echo(line)


def diff_lines(diff: ResultDiff, baseline: str, *, policy: BaselinePolicy) -> list[str]:
    """Return the comparison with a baseline as plain lines: figures, each case that got
    worse, disappeared or is newly flaky, and the verdict last."""
    from openeval.report.diff import flaky_text, headline, worse_text

    counts = ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in diff.counts().items())
    lines = [f"openeval: baseline {printable(baseline)}: matched {diff.matched} of "
             f"{diff.head_cases} cases; {counts}"]
    lines += [f"WORSE {printable(c.case_id)}: {printable(worse_text(c))}"
              for c in diff.regressions]
    lines += [f"GONE  {printable(c.case_id)}: in the baseline ({c.base_status}), not in this run"
              for c in diff.removed]
    lines += [f"FLAKY {printable(c.case_id)}: {printable(flaky_text(c))}"
              for c in diff.new_flaky]
    allowed = [flag for flag, on, found in (
        ("--allow-regressions", policy.allow_regressions, diff.regressions),
        ("--allow-removed", policy.allow_removed, diff.removed),
    ) if on and found]
    verdict = "FAILED" if policy.fails(diff) else "passed"
    note = f" ({', '.join(allowed)})" if allowed else ""
    lines.append(f"openeval: baseline gate {verdict}{note}: {headline(diff)}")
    return lines


def print_diff(diff: ResultDiff, baseline: str, *, policy: BaselinePolicy, quiet: bool
               ) -> None:
    """Print the comparison with a baseline after the summary (only the verdict if ``quiet``)."""
    lines = diff_lines(diff, baseline, policy=policy)
    for line in lines[-1:] if quiet else lines:
        click.echo(line)


def _rich_suite_table(suite: SuiteResult) -> None:
    render_suite_table(suite, _console())


CASE_COLUMN_MOST = 60
"""The case column is as wide as the longest case id shown, up to this (and a third of the
terminal); longer ids fold onto more lines."""


def check_column_width(name: str) -> int:
    """Return the narrowest a check's column may be: its header's longest word (the header
    wraps between words) or ``error``, the widest verdict."""
    return max(5, *(len(word) for word in name.split("_")))


def fit_columns(
    names: Sequence[str], failing: Collection[str], width: int, case_width: int
) -> tuple[list[str], list[str]]:
    """Return ``(shown, left out)``: the check columns that fit a table ``width`` characters
    wide beside a case column ``case_width`` wide, in their order, and the others.

    Checks in ``failing`` (those that failed or errored somewhere) get the room first, since
    they are what a reader looks for; then the rest, in order.
    """
    room = width - 1 - (case_width + 3)  # a border, then each column is " x " and a border
    ranked = sorted(range(len(names)), key=lambda i: (names[i] not in failing, i))
    kept: set[int] = set()
    for i in ranked:
        need = check_column_width(names[i]) + 3
        if need <= room:
            kept.add(i)
            room -= need
    return ([n for i, n in enumerate(names) if i in kept],
            [n for i, n in enumerate(names) if i not in kept])


def render_suite_table(suite: SuiteResult, console: Console) -> None:
    """Draw the cases x checks table on ``console``, fitted to its width, then why each failure
    failed, then the warnings.

    Checks that do not fit are left out of the table (the failing ones keep their columns
    first) and a line names them; their failures are still listed under the table.
    """
    from rich.table import Table

    big = len(suite.cases) > TABLE_ALL_UP_TO
    shown = [c for c in suite.cases if c.status != "passed"] if big else None
    rows = suite.cases if shown is None else tuple(shown)
    hidden = len(suite.cases) - len(rows)
    caption = f"{hidden} passing cases not shown" if hidden else None
    failing = {
        check.name for case in rows for record in case.judged() for check in record.checks
        if check.verdict in ("fail", "error")
    }
    # Case ids are what a reader searches for: keep them whole, up to a sensible width.
    widest = max((len(printable(c.case_id)) for c in rows), default=4)
    case_width = max(4, min(widest, CASE_COLUMN_MOST, console.width // 3))
    names, dropped = fit_columns(list(suite.summary.per_check), failing, console.width,
                                 case_width)
    table = Table(title="OpenEval results", caption=caption, show_lines=False)
    # Widths are set, not left to rich: it measures a case id as one long word and would
    # rather crop the table at the terminal's edge than fold it.
    table.add_column("case", overflow="fold", min_width=min(widest, case_width),
                     max_width=case_width)
    for name in names:
        table.add_column(name.replace("_", " "), justify="center", overflow="fold",
                         width=check_column_width(name))
    for case in rows:
        label = _escape(case.case_id)
        if case.error is not None:  # the reason is long: it goes under the table
            table.add_row(f"[bold red]{label}[/]", *(f"[{_STYLE['error']}]error[/]"
                                                     for _ in names))
            continue
        cells = [f"[{_STYLE.get(w, 'yellow')}]{w}[/]" if (w := case.verdict_cell(n)) else "-"
                 for n in names]
        if case.trials:
            label += f" [dim]({_escape(trials_text(case))})[/]"
        table.add_row(label, *cells)
    console.print(table)
    if dropped:
        console.print(
            f"[dim]{len(dropped)} check(s) left out of the table to fit {console.width} "
            f"columns: {_escape(', '.join(dropped))}; their failures are listed below, and "
            "`openeval report --format markdown` shows every check.[/]"
        )
    # The grid says which; these lines say why (what was missing, extra or different).
    for case in rows:
        if case.error is not None:
            console.print(f"[bold magenta]error[/] {_escape(case.case_id)}: "
                          f"{_escape(case.error)}")
        for record in case.judged():
            if record.error is not None and record is not case:
                console.print(f"[bold magenta]error[/] {_escape(record.case_id)}: "
                              f"{_escape(record.error)}")
            for check in record.checks:
                if check.verdict in ("fail", "error"):
                    console.print(
                        f"[{_STYLE[check.verdict]}]{check.verdict}[/] "
                        f"{_escape(record.case_id)} {_escape(check.name)}: "
                        f"{_escape(check.details)}"
                    )
    for case in suite.cases:
        for record in (case, *case.trials):
            for warning in record.warnings:
                console.print(f"[yellow]warning[/] {_escape(record.case_id)}: "
                              f"{_escape(warning)}")
    for case in rows:
        for record in case.judged():
            for name, note in notes_of(record):
                console.print(f"[dim]note {_escape(record.case_id)} {_escape(name)}: "
                              f"{_escape(note)}[/]")


def print_case(case: CaseResult, *, quiet: bool) -> None:
    """Print one case's metric results (single-case mode), one per line or as a table."""
    if quiet:
        return
    if is_terminal():
        from rich.table import Table

        table = Table(title=_escape(f"{case.task_id}  ({case.trace_format} trace)"))
        for column in ("metric", "verdict", "score", "details"):
            table.add_column(column, overflow="fold")
        for c in case.checks:
            word = c.verdict_label
            table.add_row(
                _escape(c.name), f"[{_STYLE[word]}]{word}[/]", _escape(c.score_text()),
                _escape(c.details),
            )
        _console().print(table)
        return
    click.echo(printable(f"{case.task_id} ({case.trace_format} trace)"))
    for c in case.checks:
        click.echo((_report_only_line(c) if c.report_only else _result_line(c))[2:])
    for warning in case.warnings:
        click.echo(f"  warning: {printable(warning)}")


def _escape(text: str) -> str:
    """Return input text safe in rich markup: control characters escaped, markup inert."""
    from rich.markup import escape

    return escape(printable(text))


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

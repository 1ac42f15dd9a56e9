"""The command-line forms of gates and baselines, shared by ``run`` and ``diff``: parsing the
values, reading a baseline folder, comparing and writing the comparison."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import click

from openeval.errors import OpenEvalError, SuiteError

if TYPE_CHECKING:
    from openeval.report.diff import DiffFormat
    from openeval.results.diff import ResultDiff
    from openeval.results.records import SuiteResult
    from openeval.runner import Gate


def parse_gates(values: tuple[str, ...], flag: str = "--fail-under-metric") -> list[Gate]:
    """Return ``(name, line, option text)`` for each ``--fail-under-metric NAME=X`` (or
    ``flag``: ``openeval score`` takes ``--fail-under-check``).

    Raises SuiteError for a value that is not NAME=X with X from 0 to 1, or a name given twice.
    """
    gates: list[Gate] = []
    seen: set[str] = set()
    for value in values:
        name, sep, line_text = value.rpartition("=")
        given = f"{flag} {value}"
        try:
            line = float(line_text)
        except ValueError:
            line = math.nan
        if not sep or not name.strip() or not 0.0 <= line <= 1.0:
            raise SuiteError(f"{given}: expected NAME=X, a metric or check name and a pass "
                             "rate X from 0 to 1")
        name = name.strip()
        if name in seen:
            raise SuiteError(f"{given}: a gate on {name!r} is given twice")
        seen.add(name)
        gates.append((name, line, given))
    return gates


def parse_diff_reports(values: tuple[str, ...]) -> list[tuple[DiffFormat, Path | None]]:
    """Return ``(format, path)`` for each ``--baseline-report FORMAT[=PATH]``; None is stdout.

    Raises SuiteError naming an unknown format and listing the valid ones.
    """
    from openeval.registry import unknown_name
    from openeval.report.registry import diff_names

    known = diff_names()
    reports: list[tuple[DiffFormat, Path | None]] = []
    for value in values:
        name, sep, path = value.partition("=")
        found = next((f for f in known if f == name), None)
        if found is None:
            raise SuiteError(f"--baseline-report {value}: "
                             + unknown_name("comparison format", name, known))
        if sep and not path:
            raise SuiteError(f"--baseline-report {value}: give a file after '=' (or leave out "
                             "'=')")
        reports.append((found, Path(path) if path and path != "-" else None))
    return reports


def read_baseline(path: Path) -> SuiteResult:
    """Return the run stored in a baseline results folder (any version OpenEval reads).

    Raises ResultFileError naming the file when it cannot be read, prefixed to say it is the
    baseline.
    """
    from openeval.results.files import read_results

    try:
        return read_results(path)
    except OpenEvalError as exc:
        raise type(exc)(f"baseline: {exc.message}", source=exc.source,
                        location=exc.location) from None


def compare(base: SuiteResult, head: SuiteResult, tolerance: float) -> ResultDiff:
    """Return the comparison of ``head`` with ``base``; SuiteError when no case matches."""
    from openeval.results.diff import diff_results

    return diff_results(base, head, tolerance=tolerance)


def write_diff_reports(
    diff: ResultDiff,
    reports: list[tuple[DiffFormat, Path | None]],
    *,
    base: str,
    head: str | None,
    failing: bool,
) -> None:
    """Render ``diff`` in each format, into its file or onto stdout."""
    from openeval.cli._common import write_text
    from openeval.report.diff import render_diff

    for name, path in reports:
        text = render_diff(diff, name, base=base, head=head, failing=failing)
        if path is None:
            click.echo(text, nl=False)
        else:
            write_text(path, text)

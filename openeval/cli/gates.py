"""The command-line forms of baselines, shared by ``run`` and ``diff``: parsing the report
values, reading a baseline folder, comparing and writing the comparison. (Gate values are
parsed by :func:`openeval.results.gates.parse_gate_values`, for ``run`` and ``score``.)"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from openeval.errors import OpenEvalError, SuiteError

if TYPE_CHECKING:
    from openeval.report.diff import DiffFormat
    from openeval.results.diff import ResultDiff
    from openeval.results.records import SuiteResult


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


def read_history(paths: tuple[Path, ...]) -> list[SuiteResult]:
    """Return the runs of the ``--history`` folders, in the order given (newest first).

    Raises ResultFileError naming the file when one cannot be read, prefixed with the option.
    """
    from openeval.results.files import read_results

    runs = []
    for path in paths:
        try:
            runs.append(read_results(path))
        except OpenEvalError as exc:
            raise type(exc)(f"--history {path.as_posix()}: {exc.message}", source=exc.source,
                            location=exc.location) from None
    return runs


def compare(base: SuiteResult, head: SuiteResult, tolerance: float,
            history: list[SuiteResult] | None = None) -> ResultDiff:
    """Return the comparison of ``head`` with ``base`` (``history``: earlier runs, newest
    first); SuiteError when no case matches."""
    from openeval.results.diff import diff_results

    return diff_results(base, head, tolerance=tolerance, history=history or ())


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

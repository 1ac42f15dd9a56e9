"""``openeval convert``, ``inspect`` and ``snapshot``: look at one trace, in any format.

``convert`` writes the normalised trace (OpenEval's own JSON), ``inspect`` prints its steps as a
table, ``snapshot`` drafts a test case from a known-good run. Every command reads its trace with
the adapter registry (``--format`` forces one) and exits 2, with one line naming the file and
the place, when the trace cannot be read.
"""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from openeval.cli import options
from openeval.cli._common import fail, write_bytes
from openeval.cli.exit_codes import EXIT_USAGE
from openeval.errors import OpenEvalError
from openeval.printable import printable

if TYPE_CHECKING:
    from openeval.models import AgentTrace, TraceStep

_format_option = options.trace_format
_trace_argument = options.trace_argument

COLUMNS = ("step", "type", "tool/model", "args/content", "result", "flags")
"""Columns of ``openeval inspect``."""
_WIDTHS = {"args/content": 48, "result": 32, "tool/model": 28}


def _fail(error: OpenEvalError) -> NoReturn:
    fail(error, EXIT_USAGE)


def _load(trace_path: Path, trace_format: str | None) -> AgentTrace:
    from openeval.adapters import load_trace

    try:
        return load_trace(trace_path, trace_format)
    except OpenEvalError as error:
        _fail(error)


def _write(path: Path, data: bytes) -> None:
    try:
        write_bytes(path, data)
    except OpenEvalError as exc:
        _fail(exc)


@click.command()
@_trace_argument
@_format_option
@click.option("-o", "--output", "output_path", type=click.Path(path_type=Path),
              help="Write the JSON to this file instead of stdout.")
def convert(trace_path: Path, trace_format: str | None, output_path: Path | None) -> None:
    """Write TRACE as OpenEval trace JSON (sorted keys, same bytes every time).

    Exit 0 when written, 2 when TRACE cannot be read or OUTPUT cannot be written.
    """
    from openeval.jsonio import dump_json

    data = dump_json(_load(trace_path, trace_format).to_dict())
    if output_path is None:
        click.echo(data, nl=False)
    else:
        _write(output_path, data)


def _one_line(text: str, width: int) -> str:
    flat = printable(" ".join(text.split()))
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _flags(step: TraceStep) -> str:
    names = [("denied", step.denied), ("error", step.error is not None),
             ("divergent", step.divergent)]
    return ",".join(name for name, on in names if on)


def step_row(step: TraceStep) -> tuple[str, ...]:
    """Return the cells of one step in :data:`COLUMNS` order, truncated to one line each."""
    from openeval.jsonio import dump_json_compact

    if step.type == "tool_call":
        who = step.tool_name or ""
        what = dump_json_compact(step.tool_args) if step.tool_args is not None else step.content
    else:
        who = step.model or step.tool_name or ""
        what = step.content
    result = step.tool_result or ""
    if step.error is not None:
        result = f"{result} [{step.error}]" if result else step.error
    return (
        str(step.step_id),
        step.type,
        _one_line(who, _WIDTHS["tool/model"]),
        _one_line(what, _WIDTHS["args/content"]),
        _one_line(result, _WIDTHS["result"]),
        _flags(step),
    )


def _title(trace: AgentTrace) -> str:
    calls = trace.tool_calls()
    return (
        f"{trace.task_id}: {len(trace.steps)} step(s), {len(calls)} tool call(s), "
        f"{sum(s.denied for s in calls)} denied, {sum(s.error is not None for s in calls)} "
        "with errors"
    )


@click.command()
@_trace_argument
@_format_option
def inspect(trace_path: Path, trace_format: str | None) -> None:
    """Print the normalised steps of TRACE as a table (plain text when not on a terminal).

    Exit 0 when printed, 2 when TRACE cannot be read.
    """
    trace = _load(trace_path, trace_format)
    rows = [step_row(step) for step in trace.steps]
    final = f"final output: {_one_line(trace.final_output, 100) or '(none)'}"
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=escape(printable(_title(trace))), caption=escape(final))
        for column in COLUMNS:
            if column == "step":
                table.add_column(column, justify="right")
            else:
                table.add_column(column, overflow="fold")
        for row in rows:
            style = "red" if row[-1] else None
            table.add_row(*(escape(cell) for cell in row), style=style)
        Console(highlight=False).print(table)
        return
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(COLUMNS)]
    click.echo(printable(_title(trace)))
    for row in (COLUMNS, *rows):
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())
    click.echo(final)


_MODES_HELP = "strict, in_order, unordered, superset or subset"


@click.command()
@_trace_argument
@_format_option
@click.option("-o", "--output", "output_path", type=click.Path(path_type=Path), required=True,
              help="Test case file to write (e.g. testcase.json).")
@click.option("--task-id", help="Task id of the test case (default: the trace's).")
@click.option("--mode", metavar="MODE",
              help=f"Also write a trajectory block with this mode: {_MODES_HELP}.")
@click.option("--ignore-args", "ignore_args", metavar="GLOB", multiple=True,
              help="Argument paths to leave out of the expected calls and ignore in the "
                   "trajectory (dotted, '*' crosses dots: '*_id', 'request.*'). Repeatable; "
                   "alone it implies --mode in_order.")
@click.option("--exact", is_flag=True,
              help="Keep every value as recorded; by default uuids, timestamps (a date with a "
                   "time of day) and long hex ids become {\"$type\": \"string\"}.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
def snapshot(
    trace_path: Path,
    trace_format: str | None,
    output_path: Path,
    task_id: str | None,
    mode: str | None,
    ignore_args: tuple[str, ...],
    exact: bool,
    force: bool,
) -> None:
    """Draft a test case from a known-good TRACE: its tool calls, final state and step count.

    The draft expects the trace's executed (non-denied) tool calls with their arguments, its
    final state, and at most as many tool calls as it made; it does not check the answer's
    wording. With --mode it also asks trajectory_match for that mode. Values that change on
    every run (uuids, timestamps, long hex ids) are written as {"$type": "string"} unless
    --exact; the paths replaced are listed. Exit 0 when written, 2 when TRACE cannot be read,
    a flag is invalid, or OUTPUT exists (use --force).
    """
    from openeval.jsonio import dump_json
    from openeval.matching.trajectory import TRAJECTORY_MODES
    from openeval.snapshot import Generalised, case_document, draft_test_case, trace_reference
    from openeval.values import short_json

    if mode is not None and mode not in TRAJECTORY_MODES:
        close = difflib.get_close_matches(mode, TRAJECTORY_MODES, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        _fail(OpenEvalError(
            f"--mode: {short_json(mode)} is not one of {', '.join(TRAJECTORY_MODES)}{hint}"))
    if any(not glob for glob in ignore_args):
        _fail(OpenEvalError("--ignore-args: an empty glob; expected an argument path such as "
                            "'*_id' or 'request.*'"))
    if output_path.exists() and not force:
        _fail(OpenEvalError("already exists; use --force to overwrite", source=output_path))
    trace = _load(trace_path, trace_format)
    found = Generalised()
    case = draft_test_case(
        trace, task_id=task_id, trace_ref=trace_reference(trace_path, output_path),
        mode=mode, ignore_args=ignore_args, exact=exact, found=found,
    )
    _write(output_path, dump_json(case_document(case)))
    calls = len(case.expected_tool_calls)
    trajectory = f", trajectory {case.trajectory['mode']}" if case.trajectory else ""
    click.echo(
        f"openeval: wrote {output_path}: {calls} expected tool call(s), "
        f"{len(case.expected_final_state)} state key(s), max_steps {case.max_steps}{trajectory}",
        err=True,
    )
    if found.replaced:
        shown = ", ".join(f"{path} ({kind})" for path, kind in found.replaced[:_LISTED])
        more = len(found.replaced) - _LISTED
        click.echo(
            printable(f"openeval: {len(found.replaced)} volatile value(s) written as "
                      f'{{"$type": "string"}} (--exact keeps them): {shown}'
                      + (f" and {more} more" if more > 0 else "")),
            err=True,
        )


_LISTED = 10
"""Replaced paths ``snapshot`` names; the rest are counted."""

"""``openeval convert``, ``inspect`` and ``snapshot``: look at one trace, in any format.

``convert`` writes the normalised trace (OpenEval's own JSON), ``inspect`` prints its steps as a
table with each user message where it was said (``--wide`` uncut, ``--json`` as one document,
``--testcase C`` with C's expected calls against the executed ones side by side, and its state
diff and per-turn results when C asks for them), ``snapshot`` drafts a test case from a
known-good run.
Every command reads its trace with the adapter registry (``--format`` forces one) and exits 2,
with one line naming the file and the place, when the trace cannot be read.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from openeval.cli import options
from openeval.cli._common import command, write_bytes
from openeval.errors import OpenEvalError
from openeval.printable import printable

if TYPE_CHECKING:
    from openeval.cli.alignment import CaseAlignment, CaseFrame
    from openeval.models import AgentTrace, TraceStep

_format_option = options.trace_format
_trace_argument = options.trace_argument

COLUMNS = ("step", "type", "tool/model", "args/content", "result", "flags")
"""Columns of ``openeval inspect``."""
_WIDTHS = {"args/content": 48, "result": 32, "tool/model": 28}


def _load(trace_path: Path, trace_format: str | None) -> AgentTrace:
    from openeval.adapters import load_trace

    return load_trace(trace_path, trace_format)


@command()
@_trace_argument
@_format_option
@options.output_file("Write the JSON to this file instead of stdout.", short=True)
def convert(trace_path: Path, trace_format: str | None, output_path: Path | None) -> None:
    """Write TRACE as OpenEval trace JSON (sorted keys, same bytes every time).

    Exit 0 when written, 2 when TRACE cannot be read or OUTPUT cannot be written.
    """
    from openeval.jsonio import dump_json

    data = dump_json(_load(trace_path, trace_format).to_dict())
    if output_path is None:
        click.echo(data, nl=False)
    else:
        write_bytes(output_path, data)


def _one_line(text: str, width: int | None) -> str:
    flat = printable(" ".join(text.split()))
    if width is None:
        return flat
    return flat if len(flat) <= width else flat[: width - 3] + "..."


def _flags(step: TraceStep) -> str:
    names = [("denied", step.denied), ("error", step.error is not None),
             ("divergent", step.divergent)]
    return ",".join(name for name, on in names if on)


def step_row(step: TraceStep, *, wide: bool = False) -> tuple[str, ...]:
    """Return the cells of one step in :data:`COLUMNS` order, on one line each; cut to fit
    unless ``wide``."""
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

    def width(column: str) -> int | None:
        return None if wide else _WIDTHS[column]

    return (
        str(step.step_id),
        step.type,
        _one_line(who, width("tool/model")),
        _one_line(what, width("args/content")),
        _one_line(result, width("result")),
        _flags(step),
    )


def conversation_rows(trace: AgentTrace, *, wide: bool = False) -> list[tuple[str, ...]]:
    """Return the rows of ``inspect``: every step, and every user message of the conversation
    as a ``user`` row before the first step of the model turn that answers it (a user message
    nothing answered comes last), so a multi-turn run reads as it went."""
    asked: dict[int, list[str]] = {}  # model turn -> the user messages said just before it
    waiting: list[str] = []
    for message in trace.messages:
        if message.role == "user":
            waiting.append(message.content)
        elif message.role == "assistant" and message.turn is not None and waiting:
            asked.setdefault(message.turn, []).extend(waiting)
            waiting = []
    pending = sorted(asked)
    rows: list[tuple[str, ...]] = []

    def said(text: str) -> tuple[str, ...]:
        return ("", "user", "", _one_line(text, None if wide else _WIDTHS["args/content"]),
                "", "")

    for step in trace.steps:
        while pending and step.turn is not None and pending[0] <= step.turn:
            rows += [said(text) for text in asked[pending.pop(0)]]
        rows.append(step_row(step, wide=wide))
    for turn in pending:
        rows += [said(text) for text in asked[turn]]
    return rows + [said(text) for text in waiting]


def _title(trace: AgentTrace) -> str:
    calls = trace.tool_calls()
    return (
        f"{trace.task_id}: {len(trace.steps)} step(s), {len(calls)} tool call(s), "
        f"{sum(s.denied for s in calls)} denied, {sum(s.error is not None for s in calls)} "
        "with errors"
    )


ALIGNMENT_COLUMNS = ("#", "expected", "executed", "status", "differences")
"""Columns of ``openeval inspect --testcase``."""


def alignment_rows(data: Mapping[str, Any], *, wide: bool = False) -> list[tuple[str, ...]]:
    """Return the cells of each alignment row in :data:`ALIGNMENT_COLUMNS` order, one line
    each (trace text escaped); the first divergence's status says so."""
    from openeval.report.alignment import difference_parts, position, text_of

    rows = data.get("alignment")
    found = data.get("first_divergence")
    first = found.get("row") if isinstance(found, Mapping) else None
    limit = None if wide else 60
    out: list[tuple[str, ...]] = []
    for n, row in enumerate(rows if isinstance(rows, list) else []):
        if not isinstance(row, Mapping):
            continue
        number = position(row)
        step = row.get("step_id")
        executed = (f"step {text_of(step)} {text_of(row.get('got_tool') or row.get('tool'))}"
                    if step is not None else "-")
        status = text_of(row.get("status", ""))
        if n == first:
            status += " <- first divergence"
        parts = [
            f"{where}: {reason}" if reason is not None
            else f"{where}: expected {'nothing' if expected is None else expected}, got {got}"
            for where, expected, got, reason in difference_parts(row)
        ]
        note = row.get("note")
        if isinstance(note, str) and note:
            parts.append(note)
        out.append((
            number,
            _one_line(text_of(row.get("tool", "")), limit) if number else "",
            _one_line(executed, limit),
            status,
            _one_line("; ".join(parts), None if wide else 80),
        ))
    return out


def _print_table(
    title: str, caption: str, columns: tuple[str, ...], rows: list[tuple[str, ...]],
    bad: Callable[[tuple[str, ...]], bool],
) -> None:
    """Print ``rows`` as a rich table on a terminal, else as aligned plain text."""
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        table = Table(title=escape(printable(title)), caption=escape(printable(caption)))
        for column in columns:
            justify: Literal["right", "left"] = "right" if column in ("step", "#") else "left"
            table.add_column(column, justify=justify, overflow="fold")
        for row in rows:
            table.add_row(*(escape(cell) for cell in row), style="red" if bad(row) else None)
        Console(highlight=False).print(table)
        return
    widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(columns)]
    click.echo(printable(title))
    for row in (columns, *rows):
        cells = (cell.ljust(width) for cell, width in zip(row, widths, strict=True))
        click.echo("  ".join(cells).rstrip())
    click.echo(printable(caption))


def _steps_document(
    trace: AgentTrace, alignment: CaseAlignment | None, frames: list[CaseFrame]
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "task_id": trace.task_id,
        "steps": [step.to_dict() for step in trace.steps],
        "final_output": trace.final_output,
    }
    if alignment is not None:
        document["testcase"] = {"metric": alignment.metric, "details": alignment.details,
                                **alignment.data}
    if frames:  # only for a case with state or turns: other documents keep their bytes
        document["frames"] = [{"metric": f.metric, "details": f.details, **f.data}
                              for f in frames]
    return document


@command()
@_trace_argument
@_format_option
@click.option("--wide", is_flag=True,
              help="Do not cut arguments, results or texts to fit the terminal.")
@click.option("--json", "as_json", is_flag=True,
              help="Print one JSON document (the steps, and with --testcase the alignment) "
                   "instead of a table; sorted keys, same bytes every time.")
@click.option("--testcase", "testcase_path", type=click.Path(path_type=Path),
              help="Also show this test case's expected calls against the trace's executed "
                   "calls, side by side, with the first divergence marked.")
def inspect(
    trace_path: Path, trace_format: str | None, wide: bool, as_json: bool,
    testcase_path: Path | None,
) -> None:
    """Print the normalised steps of TRACE as a table (plain text when not on a terminal),
    each user message as a row before the turn that answers it.

    Exit 0 when printed, 2 when TRACE or the test case cannot be read.
    """
    trace = _load(trace_path, trace_format)
    alignment = None
    frames: list[CaseFrame] = []
    if testcase_path is not None:
        from openeval.cli.alignment import case_alignment, case_frames

        alignment = case_alignment(trace, testcase_path)
        frames = case_frames(trace, testcase_path)
    if as_json:
        from openeval.jsonio import dump_json

        click.echo(dump_json(_steps_document(trace, alignment, frames)), nl=False)
        return
    rows = conversation_rows(trace, wide=wide)
    final = f"final output: {_one_line(trace.final_output, None if wide else 100) or '(none)'}"
    _print_table(_title(trace), final, COLUMNS, rows, lambda row: bool(row[-1]))
    if alignment is not None:
        lines = alignment_rows(alignment.data, wide=wide)
        _print_table(
            f"expected vs executed calls ({alignment.metric})", alignment.details,
            ALIGNMENT_COLUMNS, lines, lambda row: "first divergence" in row[3],
        )
    for frame in frames:
        _print_frame(frame, wide=wide)


def _print_frame(frame: CaseFrame, *, wide: bool) -> None:
    """Print a state diff or the per-turn results as a table, every row (a terminal pages)."""
    from openeval.report.frames import row_ok, table_of_data

    # The metric bounds its data already; a terminal shows all of it.
    columns, rows, _ = table_of_data(frame.metric, frame.data, limit=sys.maxsize)
    limit = None if wide else 60
    cut = [tuple(_one_line(text, limit) for text in row) for row in rows]
    title = "state changes" if frame.metric == "state_diff" else "per-turn expectations"
    _print_table(f"{title} ({frame.metric})", frame.details, columns, cut,
                 lambda row: not row_ok(frame.metric, row))


_MODES_HELP = "strict, in_order, unordered, superset or subset"


@command()
@_trace_argument
@_format_option
@options.output_file("Test case file to write (e.g. testcase.json).", required=True,
                     short=True)
@click.option("--task-id", help="Task id of the test case (default: the trace's, else the "
                                 "output folder's name).")
@click.option("--mode", metavar="MODE",
              help=f"Also write a trajectory block with this mode: {_MODES_HELP}.")
@click.option("--ignore-args", "ignore_args", metavar="GLOB", multiple=True,
              help="Argument paths to leave out of the expected calls and ignore in the "
                   "trajectory (dotted, '*' crosses dots: 'request_id', 'trace.*'; name the "
                   "noise, since '*_id' also drops order_id). Repeatable; alone it implies "
                   "--mode in_order.")
@click.option("--exact", is_flag=True,
              help="Keep every value as recorded; by default uuids, timestamps (a date with a "
                   "time of day) and long hex ids that the outcome does not repeat become "
                   "{\"$type\": \"string\"}.")
@click.option("--counts/--no-counts", default=True, show_default=True,
              help="Write times on every expected call (times 1, or n for n identical calls "
                   "in a row): a run that repeats a call, such as a second refund, then fails.")
@click.option("--per-turn", is_flag=True,
              help="Write the expected calls per user turn (a turns list) instead of one list, "
                   "for a conversation with several user messages.")
@click.option("--force", is_flag=True, help="Overwrite OUTPUT if it exists.")
def snapshot(
    trace_path: Path,
    trace_format: str | None,
    output_path: Path,
    task_id: str | None,
    mode: str | None,
    ignore_args: tuple[str, ...],
    exact: bool,
    counts: bool,
    per_turn: bool,
    force: bool,
) -> None:
    """Draft a test case from a known-good TRACE: its tool calls, final state and step count.

    The draft expects the trace's executed (non-denied) tool calls with their arguments and
    counts, its final state, and at most as many tool calls as it made; it does not check the
    answer's wording. With --mode it also asks trajectory_match for that mode. Values that look
    like noise (uuids, timestamps, long hex ids) are written as {"$type": "string"} unless the
    run's outcome repeats them (the final state, the final output or the user's input) or
    --exact; the paths replaced are listed. Without a task id in the trace or --task-id, the
    output folder's name is the task id. Exit 0 when written, 2 when TRACE cannot be read, a
    flag is invalid, OUTPUT exists (use --force), or the draft would not load as a test case.
    """
    from openeval.jsonio import dump_json
    from openeval.matching.trajectory import TRAJECTORY_MODES
    from openeval.snapshot import Generalised, case_document, draft_test_case, trace_reference
    from openeval.testcase_file import build_test_case
    from openeval.values import short_json

    if mode is not None and mode not in TRAJECTORY_MODES:
        close = difflib.get_close_matches(mode, TRAJECTORY_MODES, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        raise OpenEvalError(
            f"--mode: {short_json(mode)} is not one of {', '.join(TRAJECTORY_MODES)}{hint}")
    if any(not glob for glob in ignore_args):
        raise OpenEvalError("--ignore-args: an empty glob; expected an argument path such as "
                            "'request_id' or 'trace.*'")
    if task_id is not None and not task_id.strip():
        raise OpenEvalError("--task-id: empty; expected the task's name, such as 'refund-7'")
    if output_path.exists() and not force:
        raise OpenEvalError("already exists; use --force to overwrite", source=output_path)
    trace = _load(trace_path, trace_format)
    derived = None
    if task_id is None and not trace.task_id.strip():
        derived = output_path.resolve().parent.name
        if not derived.strip():
            raise OpenEvalError("the trace has no task id and the output folder has no name "
                                "to take one from; give one with --task-id", source=trace_path)
    found = Generalised()
    try:
        case = draft_test_case(
            trace, task_id=task_id or derived, trace_ref=trace_reference(trace_path, output_path),
            mode=mode, ignore_args=ignore_args, exact=exact, found=found, counts=counts,
            per_turn=per_turn,
        )
    except OpenEvalError as error:
        if per_turn:
            raise OpenEvalError(f"--per-turn: {error.message}", source=trace_path) from None
        raise
    document = case_document(case)
    # A draft `run` would refuse is no draft: check it as the suite will read it.
    build_test_case(document, source=output_path)
    write_bytes(output_path, dump_json(document))
    calls = len(case.expected_tool_calls)
    shape = (f"{len(case.turns)} turn(s), "
             f"{sum(len(t.get('expected_tool_calls', [])) for t in case.turns)} expected tool "
             "call(s)" if case.turns is not None else f"{calls} expected tool call(s)")
    trajectory = f", trajectory {case.trajectory['mode']}" if case.trajectory else ""
    click.echo(
        f"openeval: wrote {output_path}: {shape}, "
        f"{len(case.expected_final_state)} state key(s), max_steps {case.max_steps}{trajectory}",
        err=True,
    )
    if derived is not None:
        click.echo(printable(f"openeval: the trace has no task id; task_id {short_json(derived)}"
                             " is the output folder's name (--task-id sets another)"), err=True)
    if found.replaced:
        click.echo(printable(
            f"openeval: {len(found.replaced)} volatile value(s) written as "
            f'{{"$type": "string"}} (--exact keeps them): '
            + _listed(f"{path} ({kind})" for path, kind in found.replaced)), err=True)
    if found.kept:
        click.echo(printable(
            f"openeval: {len(found.kept)} volatile-looking value(s) kept as recorded, since "
            "the outcome repeats them: "
            + _listed(f"{path} ({why})" for path, why in found.kept)), err=True)


def _listed(items: Iterable[str]) -> str:
    names = list(items)
    more = len(names) - _LISTED
    return ", ".join(names[:_LISTED]) + (f" and {more} more" if more > 0 else "")


_LISTED = 10
"""Replaced paths ``snapshot`` names; the rest are counted."""

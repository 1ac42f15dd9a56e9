"""Expected and executed calls side by side: the structured ``data`` of the metrics that pair them.

``trajectory_match``, ``tool_selection_accuracy`` and ``argument_correctness`` each already
pair expected calls with executed ones to reach their verdict. When that verdict is not a clean
pass they also return the pairing as rows (:class:`AlignedCall`): an expected call, an executed
call (by its trace ``step_id``) or both, a status, and for arguments each differing path with
both values. :func:`alignment_data` bounds the rows and turns them into the JSON that goes into
``CheckResult.data`` (``alignment`` and ``first_divergence``), which the Markdown and HTML
reports and ``openeval inspect --testcase`` draw. The rows are built from the pairing the
metric computed; nothing here re-runs a matching. See proposals/0050-html-report.md.

Statuses:

- ``matched``: the executed call satisfies the expected one;
- ``args differ``: same tool, different arguments (``differences`` says where);
- ``wrong tool``: in ``strict`` mode, another tool at that position (``got_tool``);
- ``missing``: an expected call with no executed partner;
- ``extra``: an executed call no expected call took (``ok`` when the mode allows it);
- ``out of order``: an executed call that would match, made before the call it must follow;
- ``not counted``: a denied or failed call, which was not made (``note`` says why).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from openeval.values import MISSING, short_json

if TYPE_CHECKING:
    from openeval.matching.matchers import Mismatch
    from openeval.matching.trajectory import TrajectoryMatch, TrajectorySpec
    from openeval.models import TraceStep

Status = Literal[
    "matched", "args differ", "wrong tool", "missing", "extra", "out of order", "not counted"
]

MAX_ROWS = 40
"""Rows kept in ``data["alignment"]``: a window from shortly before the first divergence."""
MAX_DIFFERENCES = 3
"""Differing argument paths kept per row."""
MAX_TEXT = 60
"""Longest text kept in a row (a path, a value, a note). With the two limits above, an
alignment stays under the 64 KiB a result's data may hold (``scoring.scorer.MAX_DATA_BYTES``)."""
_BEFORE = 5  # rows kept before the first divergence when the alignment is cut


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


@dataclass(frozen=True)
class Difference:
    """One argument path where an executed call differs from its expected call."""

    where: str
    """The argument path (``amount``, ``filter.status``, ``items[2]``)."""
    expected: str | None
    """What was expected there, as short text; None for a key that was not expected at all."""
    got: str
    """What the call had there, as short JSON text; ``missing`` when absent."""
    reason: str | None = None
    """Why, when it is not a plain "expected X, got Y" (a default, a value too deep)."""

    @classmethod
    def of(cls, mismatch: Mismatch) -> Difference:
        """Return the difference a matcher's :class:`Mismatch` describes."""
        expected, got = mismatch.texts()
        if mismatch.actual is MISSING:
            got = "missing"
        reason = None if mismatch.reason is None else _cut(mismatch.reason)
        return cls(mismatch.path or "value", None if expected is None else _cut(expected),
                   _cut(got), reason)

    def to_dict(self) -> dict[str, Any]:
        """Return the difference as JSON: ``where``, ``expected``, ``got`` (and ``reason``)."""
        out: dict[str, Any] = {
            "where": _cut(self.where),
            "expected": None if self.expected is None else _cut(self.expected),
            "got": _cut(self.got),
        }
        if self.reason is not None:
            out["reason"] = _cut(self.reason)
        return out

    def text(self) -> str:
        """Return the difference as one phrase: ``amount: expected 59.9, got "59.90"``."""
        if self.reason is not None:
            return f"{self.where}: {self.reason}"
        if self.got == "missing":
            return f"{self.where}: missing"
        if self.expected is None:
            return f"{self.where}: unexpected {self.got}"
        return f"{self.where}: expected {self.expected}, got {self.got}"


@dataclass(frozen=True)
class AlignedCall:
    """One row of the side-by-side view: an expected call, an executed call, or both."""

    expected: int | None
    """Index in ``expected_tool_calls``; None for an executed call no expected one took."""
    step_id: int | None
    """The executed call's ``step_id`` in the trace; None for a missing call."""
    tool: str
    """The expected call's tool, else the executed call's."""
    status: Status
    ok: bool
    """False where this row is part of why the check did not pass."""
    differences: tuple[Difference, ...] = ()
    got_tool: str | None = None
    """The executed call's tool when it is not ``tool`` (``wrong tool``)."""
    note: str | None = None
    """Why a call was not counted (``denied: ...``, ``called but failed: ...``)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the row as the JSON object of ``data["alignment"]``."""
        out: dict[str, Any] = {
            "expected": self.expected, "step_id": self.step_id, "tool": _cut(self.tool),
            "status": self.status, "ok": self.ok,
            "differences": [d.to_dict() for d in self.differences[:MAX_DIFFERENCES]],
        }
        if len(self.differences) > MAX_DIFFERENCES:
            out["differences_left_out"] = len(self.differences) - MAX_DIFFERENCES
        if self.got_tool is not None:
            out["got_tool"] = _cut(self.got_tool)
        if self.note is not None:
            out["note"] = _cut(self.note)
        return out


def alignment_data(rows: Sequence[AlignedCall], *, max_rows: int = MAX_ROWS) -> dict[str, Any]:
    """Return ``{"alignment": [...], "first_divergence": {...}}`` for ``rows``, bounded.

    ``first_divergence`` is the first row, in display order, that is part of why the check did
    not pass: its position in ``alignment`` (``row``), expected index, step id, tool and
    status; absent when every row is ``ok``. Past ``max_rows`` rows, a window starting a
    few rows before the first divergence is kept, and ``alignment_cut`` says where it starts
    (``from``) and how many rows there were (``rows``).
    """
    first = next((n for n, row in enumerate(rows) if not row.ok), None)
    start = 0
    if len(rows) > max_rows:
        start = 0 if first is None else max(0, min(first - _BEFORE, len(rows) - max_rows))
    kept = rows[start:start + max_rows]
    data: dict[str, Any] = {"alignment": [row.to_dict() for row in kept]}
    if len(rows) > max_rows:
        data["alignment_cut"] = {"from": start, "rows": len(rows)}
    if first is not None:
        row = rows[first]
        data["first_divergence"] = {
            "row": first - start, "expected": row.expected, "step_id": row.step_id,
            "tool": row.tool, "status": row.status,
        }
    return data


def left_out_note(step: TraceStep) -> str:
    """Return why a denied or failed call does not count: ``denied: <error>`` ..."""
    why = "denied" if step.denied else "called but failed"
    return f"{why}: {step.error}" if step.error else why


def args_problem(step: TraceStep) -> str | None:
    """Return why a call's arguments could not be compared (not valid JSON, not an object),
    or None when they are a JSON object."""
    if step.tool_args is not None or step.error is None or not step.error.startswith("argument"):
        return None
    raw = f": {short_json(step.content, 60)}" if step.content else ""
    if "invalid JSON" in step.error:
        return f"arguments are not valid JSON{raw}"
    return f"{step.error}{raw}"


def _merge_missing(
    rows: list[AlignedCall],
    steps_by_id: Mapping[int, TraceStep],
    explain: Callable[[int, TraceStep], tuple[bool, tuple[Difference, ...]]],
) -> list[AlignedCall]:
    """Return ``rows`` with each failing ``missing`` row joined to a spare call of its tool.

    A missing call beside an unpaired executed call of the same tool is one divergence, not
    two: the pair becomes ``args differ`` (or ``out of order`` when the call would match),
    shown where the executed call is. With no such call, a ``not counted`` call of the tool
    (denied, failed) takes the missing call instead.
    """
    out = list(rows)
    joined: set[int] = set()  # positions of the missing rows now shown with a call
    for kind in ("extra", "not counted"):
        for position, row in enumerate(out):
            if row.status != "missing" or row.ok or row.expected is None or position in joined:
                continue
            spare = next(
                (n for n, other in enumerate(out)
                 if other.status == kind and other.expected is None and other.tool == row.tool
                 and other.step_id is not None),
                None,
            )
            if spare is None:
                continue
            other = out[spare]
            assert other.step_id is not None  # narrowed for mypy: the search above checks it
            if kind == "extra":
                matches, differences = explain(row.expected, steps_by_id[other.step_id])
                status: Status = "out of order" if matches else "args differ"
                out[spare] = AlignedCall(row.expected, other.step_id, row.tool, status, False,
                                         differences)
            else:
                out[spare] = AlignedCall(row.expected, other.step_id, row.tool, "not counted",
                                         False, note=other.note)
            joined.add(position)
    return [row for position, row in enumerate(out) if position not in joined]


def trajectory_rows(
    steps: Sequence[TraceStep],
    expected: Sequence[Mapping[str, Any]],
    spec: TrajectorySpec,
    found: TrajectoryMatch,
) -> list[AlignedCall]:
    """Return the rows of a trajectory match, from the alignment it computed (``found.pairs``).

    Rows that differ are explained with the expected call's own argument rules (its tool's
    args mode, ignored paths, defaults).
    """
    from openeval.matching.trajectory import compile_calls

    calls = compile_calls(expected, spec)

    def explain(index: int, step: TraceStep) -> tuple[bool, tuple[Difference, ...]]:
        call = calls[index]
        problem = args_problem(step)
        if problem is not None:
            return False, (Difference("arguments", "a JSON object", _cut(problem)),)
        args = call.rules.normalize(step.tool_args)
        if call.test(args) is True:
            return True, ()
        mismatch = call.explain(args)
        return False, () if mismatch is None else (Difference.of(mismatch),)

    rows: list[AlignedCall] = []
    by_id: dict[int, TraceStep] = {}
    for pair in found.pairs:
        step = None if pair.executed is None else steps[pair.executed]
        if step is not None:
            by_id[step.step_id] = step
        if pair.expected is not None and step is not None:
            tool = calls[pair.expected].tool
            if pair.reason.startswith(("order: ", "count: ")):
                # An edge or count the call breaks (openeval.matching.constraints).
                status: Status = "out of order" if pair.reason.startswith("order") else "extra"
                rows.append(AlignedCall(pair.expected, step.step_id, tool, status, False,
                                        note=pair.reason.split(": ", 1)[1]))
            elif pair.ok:
                rows.append(AlignedCall(pair.expected, step.step_id, tool, "matched", True))
            elif step.tool_name != tool:
                rows.append(AlignedCall(pair.expected, step.step_id, tool, "wrong tool", False,
                                        got_tool=step.tool_name or ""))
            else:
                _, differences = explain(pair.expected, step)
                rows.append(AlignedCall(pair.expected, step.step_id, tool, "args differ", False,
                                        differences))
        elif step is not None:
            tool = step.tool_name or ""
            if pair.reason.endswith("not counted"):
                rows.append(AlignedCall(None, step.step_id, tool, "not counted", True,
                                        note=left_out_note(step)))
            else:
                rows.append(AlignedCall(None, step.step_id, tool, "extra", pair.ok))
        elif pair.expected is not None:
            note = pair.reason.split(": ", 1)[1] if pair.reason.startswith("count: ") else None
            rows.append(AlignedCall(pair.expected, None, calls[pair.expected].tool, "missing",
                                    pair.ok, note=note))
    if spec.mode == "strict":
        return rows  # strict pairs position by position already
    return _merge_missing(rows, by_id, explain)


def selection_rows(
    steps: Sequence[TraceStep], expected_tools: Sequence[str]
) -> list[AlignedCall]:
    """Return the rows of ``tool_selection_accuracy``: executed calls in trace order, each taking
    the next expected call of its tool (names only, as the metric counts), then the expected
    calls left over as missing. Denied and failed calls are shown, not counted."""
    pending: dict[str, list[int]] = {}
    for index, tool in enumerate(expected_tools):
        pending.setdefault(tool, []).append(index)
    rows: list[AlignedCall] = []
    by_id: dict[int, TraceStep] = {}
    for step in steps:
        if step.type != "tool_call" or step.tool_name is None:
            continue
        tool = step.tool_name
        by_id[step.step_id] = step
        if step.denied or step.error is not None:
            rows.append(AlignedCall(None, step.step_id, tool, "not counted", True,
                                    note=left_out_note(step)))
        elif pending.get(tool):
            rows.append(AlignedCall(pending[tool].pop(0), step.step_id, tool, "matched", True))
        else:
            rows.append(AlignedCall(None, step.step_id, tool, "extra", True))
    rows += [AlignedCall(index, None, expected_tools[index], "missing", False)
             for index in sorted(i for left in pending.values() for i in left)]
    return _merge_missing(rows, by_id, lambda index, step: (True, ()))

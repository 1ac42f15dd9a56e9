"""Fixtura ``.trace`` files: zstd frames (or plain lines) of JSON events, read as Fixtura writes.

Fixtura's ``ExecutionRecorder`` appends one zstd frame per event, each frame one JSON line:
an optional ``trace_header`` first (``schema_version``, ``fingerprint``, and for a branch
``parent_trace_id`` + ``divergence_step_id``), then ``llm_call`` and ``tool_call`` events.
Each event becomes its step as it streams in; the raw events are not kept. The mapping to
steps, and every judgement call, is in proposals/0010-fixtura-adapter.md.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal, get_args

from openeval.adapters._toolkit import (
    Errors,
    Turns,
    require_activity,
    task_id_from_path,
    token_count,
)
from openeval.adapters.base import HEAD_BYTES, LoadOptions, TraceSource
from openeval.adapters.fixtura.drift import VERDICT_KEY, compute_verdict, recorded_verdict
from openeval.adapters.tool_args import parse_tool_args
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.io import TraceBudget
from openeval.jsonio import dump_json_compact
from openeval.models import AgentTrace, TraceStep

EventType = Literal["trace_header", "llm_call", "tool_call"]
EVENT_TYPES: tuple[str, ...] = get_args(EventType)
PermissionDecision = Literal["allowed", "denied", "validation_error"]
PERMISSION_DECISIONS: tuple[str, ...] = get_args(PermissionDecision)

_MAX_LINEAGE = 64
"""Deepest chain of branch-of-branch traces followed before giving up (a guard, not a need)."""
_MILLISECONDS_FROM = 1e11
"""Timestamps above this are epoch milliseconds (Fixtura's live branching writes those); as
seconds they would lie past the year 5000."""


@dataclass(frozen=True, slots=True)
class _Event:
    """One event while it is being read, with where it came from for error messages."""

    data: dict[str, Any]
    path: Path
    line: int

    def fail(self, message: str, key: str | None = None) -> TraceFormatError:
        where = f"line {self.line}" + (f" ({self.data.get('event_type')}.{key})" if key else "")
        return TraceFormatError(message, source=self.path, location=where)


@dataclass(slots=True)
class _Recorded:
    """What is kept of one event once read: its step, and what messages need."""

    step: TraceStep
    step_id: str
    path: Path
    line: int
    prompt: str | None = None
    """The prompt of an llm_call (a user message of the conversation)."""


@dataclass
class _Recording:
    """A trace file's steps, its parents' prefix included, in execution order."""

    header: dict[str, Any] | None
    events: list[_Recorded] = field(default_factory=list)
    lineage: list[str] = field(default_factory=list)
    """Trace ids of the ancestors, oldest first; empty for a trace that is not a branch."""


# --- reading ------------------------------------------------------------------------------


def _read(
    source: TraceSource, budget: TraceBudget, chain: tuple[Path, ...] = ()
) -> _Recording:
    """Return the steps of ``source``, with its parent's prefix when it is a branch."""
    header: dict[str, Any] | None = None
    header_line = 0
    lineage: tuple[str | None, str | None] = (None, None)
    own: list[_Recorded] = []
    first_line: dict[str, int] = {}
    for line_no, value in source.json_lines():
        if not isinstance(value, dict):
            raise TraceFormatError(
                f"expected a JSON object (a fixtura event), got {_kind(value)}",
                source=source.path,
                location=f"line {line_no}",
            )
        event_type = value.get("event_type")
        if event_type not in EVENT_TYPES:
            raise TraceFormatError(
                f"unknown event_type {event_type!r}; expected one of: {', '.join(EVENT_TYPES)}",
                source=source.path,
                location=f"line {line_no}",
            )
        if event_type == "trace_header":
            if own or header is not None:
                # Fixtura reads a header only as the first event; a later one describes nothing.
                raise TraceFormatError(
                    "trace_header after the first event; expected it only as the first line",
                    source=source.path,
                    location=f"line {line_no}",
                )
            header, header_line = value, line_no
            lineage = _lineage(header, source.path, header_line)
            continue
        raw_id = value.get("step_id")
        if isinstance(raw_id, bool) or not isinstance(raw_id, (str, int)):
            raise TraceFormatError(
                f"step_id is {_kind(raw_id)}; expected a string such as 'step-000001'",
                source=source.path,
                location=f"line {line_no}",
            )
        step_id = str(raw_id)
        if step_id in first_line:
            raise TraceFormatError(
                f"duplicate step_id {step_id!r} (first on line {first_line[step_id]}); "
                "expected each event to have its own",
                source=source.path,
                location=f"line {line_no}",
            )
        first_line[step_id] = line_no
        # Every step a branch recorded itself left the parent's trajectory.
        recorded = _record(_Event(value, source.path, line_no), step_id, lineage[0] is not None)
        budget.add(_chars(recorded), where=f"line {line_no}")
        own.append(recorded)

    parent_id, divergence_id = lineage
    if header is None or parent_id is None or divergence_id is None:
        return _Recording(header, own)
    parent = _read_parent(source, budget, parent_id, divergence_id, chain, header_line)
    prefix: list[_Recorded] = []
    for event in parent.events:
        prefix.append(event)
        if event.step_id == divergence_id:
            break
    else:
        raise TraceFormatError(
            f"the parent trace {source.path.parent / (parent_id + '.trace')} has no event with "
            f"step_id {divergence_id!r} (this branch's divergence_step_id)",
            source=source.path,
            location=f"line {header_line}",
        )
    inherited = {event.step_id: event for event in prefix}
    for event in own:
        if (clash := inherited.get(event.step_id)) is not None:
            raise TraceFormatError(
                f"step_id {event.step_id!r} repeats one of the parent's steps "
                f"({clash.path} line {clash.line}); expected the branch to continue its numbering",
                source=event.path,
                location=f"line {event.line}",
            )
    return _Recording(header, prefix + own, [*parent.lineage, parent_id])


def _chars(recorded: _Recorded) -> int:
    step = recorded.step
    return (
        len(step.content) + len(step.tool_result or "") + len(step.error or "")
        + len(recorded.prompt or "")
    )


def _lineage(header: dict[str, Any], path: Path, line: int) -> tuple[str | None, str | None]:
    parent_id = header.get("parent_trace_id")
    divergence_id = header.get("divergence_step_id")
    if (parent_id is None) != (divergence_id is None):
        raise TraceFormatError(
            "trace_header has only one of parent_trace_id and divergence_step_id; "
            "expected both (a branch) or neither",
            source=path,
            location=f"line {line}",
        )
    if parent_id is None:
        return None, None
    if (
        not isinstance(parent_id, str)
        or not parent_id
        or parent_id in {".", ".."}
        or any(sep in parent_id for sep in "/\\\0")
    ):
        raise TraceFormatError(
            f"parent_trace_id is {parent_id!r}; expected the name of a .trace file beside "
            "this one, without its extension",
            source=path,
            location=f"line {line} (trace_header.parent_trace_id)",
        )
    if isinstance(divergence_id, bool) or not isinstance(divergence_id, (str, int)):
        raise TraceFormatError(
            f"divergence_step_id is {_kind(divergence_id)}; expected a step_id string",
            source=path,
            location=f"line {line} (trace_header.divergence_step_id)",
        )
    return parent_id, str(divergence_id)


def _read_parent(
    source: TraceSource,
    budget: TraceBudget,
    parent_id: str,
    divergence_id: str,
    chain: tuple[Path, ...],
    line: int,
) -> _Recording:
    if source.file is None:
        raise TraceFormatError(
            f"this is a branch of {parent_id!r}, read from memory: there is no folder to find "
            "its parent trace in (read it from its file)",
            source=source.path,
            location=f"line {line} (trace_header.parent_trace_id)",
        )
    parent_path = source.path.parent / f"{parent_id}.trace"
    here = source.path.resolve()
    if parent_path.resolve() in (*chain, here):
        raise TraceFormatError(
            f"branch lineage loops back to {parent_path}; expected a chain ending in a trace "
            "without a parent",
            source=source.path,
            location=f"line {line} (trace_header.parent_trace_id)",
        )
    if len(chain) >= _MAX_LINEAGE:
        raise TraceFormatError(
            f"more than {_MAX_LINEAGE} generations of branches; expected a shorter lineage",
            source=source.path,
            location=f"line {line}",
        )
    if not parent_path.exists():
        raise TraceFormatError(
            f"this is a branch of {parent_id!r} at {divergence_id!r}, but its parent trace "
            f"{parent_path} does not exist (expected it beside the branch)",
            source=source.path,
            location=f"line {line} (trace_header.parent_trace_id)",
        )
    return _read(TraceSource(parent_path, source.options), budget, (*chain, here))


# --- mapping ------------------------------------------------------------------------------


def _record(event: _Event, step_id: str, divergent: bool) -> _Recorded:
    if event.data["event_type"] == "llm_call":
        prompt = event.data.get("prompt")
        return _Recorded(
            _thought(event, divergent), step_id, event.path, event.line,
            prompt if isinstance(prompt, str) else None,
        )
    return _Recorded(_tool_call(event, divergent), step_id, event.path, event.line)


def _thought(event: _Event, divergent: bool) -> TraceStep:
    data = event.data
    tokens = {
        name: count
        for name, key in (("input", "input_tokens"), ("output", "output_tokens"))
        if (count := _count(event, key)) is not None
    }
    return TraceStep(
        step_id=0,
        type="thought",
        content=_text(data.get("completion")) or "",
        timestamp=_timestamp(event),
        finish_reason=_string(event, "finish_reason"),
        provider=_string(event, "provider"),
        model=_string(event, "model"),
        tokens=tokens or None,
        latency_ms=_number(event, "latency_ms"),
        divergent=divergent,
    )


def _tool_call(event: _Event, divergent: bool) -> TraceStep:
    data = event.data
    name = data.get("tool_name")
    if not isinstance(name, str) or not name:
        raise event.fail(f"tool_name is {_kind(name)}; expected the tool's name", "tool_name")
    parsed = parse_tool_args(data.get("arguments"))
    args, content, error = parsed.args, parsed.raw, parsed.error
    reason = _not_executed(event)
    if reason is not None:
        error = reason if error is None else f"{reason}; {error}"
    elif error is None:
        # Fixtura does not record a tool's own failure; a producer that adds it is believed.
        error = _string(event, "error")
    return TraceStep(
        step_id=0,
        type="tool_call",
        content=content,
        tool_name=name,
        tool_args=args,
        tool_result=_text(data.get("response")),
        timestamp=_timestamp(event),
        error=error,
        denied=reason is not None,
        latency_ms=_number(event, "latency_ms"),
        divergent=divergent,
    )


def _not_executed(event: _Event) -> str | None:
    """Return why the call never ran (denied, invalid, rate limited ...), or None if it ran."""
    decision = event.data.get("permission_decision", "allowed")
    if decision not in PERMISSION_DECISIONS:
        raise event.fail(
            f"permission_decision is {decision!r}; expected one of: "
            + ", ".join(PERMISSION_DECISIONS),
            "permission_decision",
        )
    if decision != "allowed":
        # Fixtura's executor files validation errors under "denied" too; the reason tells them
        # apart ("Validation error: ..."), so the decision is kept as recorded, not relabelled.
        reason = _string(event, "permission_reason")
        return f"{decision}: {reason}" if reason else str(decision)
    limit = event.data.get("rate_limit_decision")
    if limit is None or limit == "allowed":
        return None
    if not isinstance(limit, str):
        raise event.fail(
            f"rate_limit_decision is {_kind(limit)}; expected 'allowed', 'rate_limited' or "
            "'circuit_broken'",
            "rate_limit_decision",
        )
    # Any decision other than "allowed" (rate_limited, circuit_broken, or a newer one) means the
    # limiter stopped the call before the tool ran.
    reason = _string(event, "rate_limit_reason")
    return f"{limit}: {reason}" if reason else limit


def _text(value: Any) -> str | None:
    """Return ``value`` as text: strings as they are, other JSON values compact; None for null."""
    if value is None or isinstance(value, str):
        return value
    return dump_json_compact(value)


def _string(event: _Event, key: str) -> str | None:
    value = event.data.get(key)
    if value is None or isinstance(value, str):
        return value
    raise event.fail(f"{key} is {_kind(value)}; expected a string or null", key)


def _number(event: _Event, key: str) -> float | None:
    value = event.data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise event.fail(f"{key} is {_kind(value)}; expected a finite number or null", key)
    return float(value)


def _count(event: _Event, key: str) -> int | None:
    value = event.data.get(key)
    if value is None:
        return None
    count = token_count(value)
    if count is None:
        raise event.fail(
            f"{key} is {_kind(value)}; expected a whole number of tokens (0 to 2**63 - 1)", key
        )
    return count


def _timestamp(event: _Event) -> float:
    seconds = _number(event, "timestamp")
    if seconds is None:
        return 0.0
    return seconds / 1000.0 if seconds > _MILLISECONDS_FROM else seconds


def _kind(value: Any) -> str:
    """Describe a JSON value for an error message: "a list", "the number 3" ..."""
    if value is None:
        return "missing or null"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value[:40]!r}"
    return "a list" if isinstance(value, list) else "an object"


def _metadata(recording: _Recording) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    header = recording.header or {}
    if "fingerprint" in header:
        metadata["fingerprint"] = header["fingerprint"]
    if "verdict" in header:  # openeval-core 0.2.1 read a verdict stored in the header
        metadata["verdict"] = header["verdict"]
    fixtura: dict[str, Any] = {"step_ids": [event.step_id for event in recording.events]}
    if "schema_version" in header:
        fixtura["schema_version"] = header["schema_version"]
    if recording.lineage:
        fixtura["lineage"] = recording.lineage
        fixtura["divergence_step_id"] = str(header["divergence_step_id"])
    metadata["fixtura"] = fixtura
    return metadata


def _conversation(recording: _Recording) -> tuple[list[TraceStep], Turns]:
    """Return the steps numbered 1..n with their turns, and the conversation they make.

    An llm_call starts a model turn: its prompt is a user message, its completion the
    assistant's. The tool calls after it belong to that turn; a call that ran and returned
    something adds a tool message.
    """
    turns = Turns()
    steps: list[TraceStep] = []
    turn: int | None = None
    for number, event in enumerate(recording.events, start=1):
        step = event.step
        step.step_id = number
        if step.type == "thought":
            turn = turns.start()
            if event.prompt is not None:
                turns.say("user", event.prompt)
            turns.say("assistant", step.content, turn=turn)
            turns.answer(step.content, asked_for_tools=False)
        else:
            if step.tool_result is not None:
                turns.say("tool", step.tool_result, name=step.tool_name)
            turns.acted()
        step.turn = turn
        steps.append(step)
    return steps, turns


def read_fixtura(
    source: TraceSource,
    *,
    task_id: str | None = None,
    input_text: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
    initial_database: Path | None = None,
) -> AgentTrace:
    """Return the trace in ``source``; the keyword values, when not None, replace what the
    file gives (task id = file name, input = first prompt, final output = last completion).

    ``initial_database`` is the SQLite database the run's SqliteTool started from: the trace's
    ``initial_state`` is that database and its ``actual_state`` the database after the
    recording's SqliteTool calls, replayed in memory (:mod:`openeval.adapters.fixtura.state`);
    an ``initial_state`` or ``actual_state`` given wins over the replay's.

    Raises TraceFormatError naming the file and line of anything malformed, a missing parent
    trace of a branch, a seed database that cannot be read or replayed on, or (with
    ``source.options.agent_spec``) a fingerprint Fixtura cannot read.
    """
    recording = _read(source, TraceBudget(source.limits, source.path))
    steps, turns = _conversation(recording)
    merged = {**_metadata(recording), **(metadata or {})}
    if source.options.agent_spec:
        report = compute_verdict(
            merged.get("fingerprint"),
            source.options.agent_spec,
            trace_path=source.path,
            fingerprint_location="line 1 (trace_header.fingerprint)",
        )
        merged[VERDICT_KEY] = report.verdict
        merged["fingerprint_changes"] = report.changes
        merged["fingerprint_notes"] = report.notes
        merged["fingerprint_agent_spec"] = source.options.agent_spec
    elif (verdict := recorded_verdict(merged)) is not None:
        merged[VERDICT_KEY] = verdict
    prompt = next((e.prompt for e in recording.events if e.prompt is not None), "")
    if initial_database is not None:
        from openeval.adapters.fixtura.state import replay_state

        before, after = replay_state(initial_database, steps, recording=source.path)
        initial_state = initial_state if initial_state is not None else before
        actual_state = actual_state if actual_state is not None else after
    trace = AgentTrace(
        task_id=task_id if task_id is not None else task_id_from_path(source.path),
        input=input_text if input_text is not None else prompt,
        steps=steps,
        final_output=final_output if final_output is not None else turns.final_output,
        actual_state=dict(actual_state) if actual_state is not None else {},
        metadata=merged,
        messages=turns.messages,
        signals=["denials", "divergence"],  # permission decisions and branch replays
        initial_state=dict(initial_state) if initial_state is not None else None,
    )
    return require_activity(
        trace, Errors(source.path), "no llm_call or tool_call event (only a trace_header?)"
    )


def from_fixtura_trace(
    trace_path: str | Path,
    task_id: str | None = None,
    input_text: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    *,
    input: str | None = None,
    agent_spec: str | None = None,
    options: LoadOptions | None = None,
    initial_state: dict[str, Any] | None = None,
    initial_database: str | Path | None = None,
) -> AgentTrace:
    """Return the :class:`AgentTrace` recorded in a Fixtura ``.trace`` (or plain JSONL) file.

    Arguments left None come from the file: ``task_id`` its name without the trace suffix,
    ``input`` (or ``input_text``, the name Fixtura's own adapter passes) the first llm_call's
    prompt, ``final_output`` the last llm_call's completion (empty when tool calls follow it),
    ``actual_state`` empty (Fixtura records none) and ``initial_state`` None, unless
    ``initial_database`` names the SQLite database the run's SqliteTool started from (default:
    ``initial.db`` beside the recording, when there is one): then both are that database
    before and after the recording's SqliteTool calls. ``metadata`` is merged over what the file
    gives. ``agent_spec`` (``module:attr``) computes the drift verdict with Fixtura's own
    fingerprint comparison. Raises TraceFormatError naming the file and line when it is broken.
    """
    from openeval.adapters.fixtura.state import seed_beside

    opts = options or LoadOptions()
    if agent_spec is not None:
        opts = replace(opts, agent_spec=agent_spec)
    path = Path(trace_path)
    return read_fixtura(
        TraceSource(path, opts),
        task_id=task_id,
        input_text=input if input is not None else input_text,
        final_output=final_output,
        actual_state=actual_state,
        metadata=metadata,
        initial_state=initial_state,
        initial_database=(Path(initial_database) if initial_database is not None
                          else seed_beside(path)),
    )


def _have_zstandard() -> bool:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        return False
    return True


class FixturaAdapter:
    """Reads Fixtura ``.trace`` files: zstd frames of JSON events, or the same events as JSONL."""

    name = "fixtura"
    description = "Fixtura .trace recordings (zstd JSON Lines, or plain JSONL of the same events)"
    lines_are_one_trace = True
    """A JSON Lines recording is one trace: its lines are events, read whole."""

    def refusal(self, source: TraceSource) -> str | None:
        """Return None when the first line is a Fixtura event, else why the file is not one."""
        try:
            if source.is_zstd:
                if not _have_zstandard():
                    return None  # ours to read; load() says which package is missing
            else:
                head = source.head.lstrip()
                if not head.startswith(b"{"):
                    return "first line is not a JSON object"
                long_first_line = b"\n" not in head and len(source.head) == HEAD_BYTES
                if long_first_line and b'"event_type"' not in head:
                    return "first line is not a fixtura event (no 'event_type')"
            first = source.first_json_line()
        except (OpenEvalError, OSError):
            return "cannot be read as JSON lines"
        if not isinstance(first, dict):
            return "first line is not a JSON object"
        event_type = first.get("event_type")
        if event_type == "trace_header" or (event_type in EVENT_TYPES and "step_id" in first):
            return None
        return "first line is not a fixtura event (trace_header, or llm_call/tool_call + step_id)"

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace; the verdict is computed when ``source.options.agent_spec`` is set,
        and the database state when a seed database (``initial.db``) is beside the file."""
        from openeval.adapters.fixtura.state import seed_beside

        seed = seed_beside(source.file) if source.file is not None else None  # bytes: no folder
        return read_fixtura(source, initial_database=seed)


ADAPTER = FixturaAdapter()

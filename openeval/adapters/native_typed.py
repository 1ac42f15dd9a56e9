"""Native trace JSON decoded in one typed pass (msgspec), with today's reader as the fallback.

The structs below mirror ``openeval/schemas/trace.schema.json``: msgspec parses the text,
checks every type and refuses unknown keys in one pass in C, in about the time of a bare
parse, where the general reader parses, walks the value for its depth, validates it against
the schema and then builds the model. The answer is only "here is the trace" or "not mine":
on anything the structs do not accept (an unknown key, a wrong type, invalid JSON or UTF-8,
an integer too long to read, a file in another format), or that the general reader refuses
beyond the schema (nesting past ``MAX_JSON_DEPTH``), :func:`decode` returns None and the
general reader reads the file again and raises its own error, word for word.

What both readers agree on without a check: a key written twice keeps its last value (orjson
and msgspec both), and integers beyond 64 bits are exact (msgspec reads them so; the general
reader reads such a document again with the standard library). See
proposals/0183-typed-decoding-of-native-json.md.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Annotated, Any, Literal

import msgspec

from openeval.jsonio import MAX_JSON_DEPTH, text_nests_deeper, too_large_to_parse
from openeval.models import AgentTrace, Message, TraceStep

Turn = Annotated[int, msgspec.Meta(ge=0)]


class _Step(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """``$defs/step``; the fields in :class:`TraceStep`'s order (a test holds them equal)."""

    step_id: int
    type: Literal["thought", "tool_call", "tool_result", "output"]
    content: str = ""
    tool_name: str | None = None
    tool_args: dict[str, Any] | None = None
    tool_result: str | None = None
    timestamp: int | float = 0.0  # an integer stays one, as the general reader keeps it
    error: str | None = None
    denied: bool = False
    finish_reason: str | None = None
    provider: str | None = None
    model: str | None = None
    tokens: dict[str, int] | None = None
    latency_ms: int | float | None = None
    divergent: bool = False
    turn: Turn | None = None


class _Message(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """``$defs/message``."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str = ""
    name: str | None = None
    turn: Turn | None = None


class _Trace(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The trace document."""

    task_id: str
    steps: list[_Step]
    schema: str | None = msgspec.field(default=None, name="$schema")
    input: str = ""
    final_output: str = ""
    actual_state: dict[str, Any] = msgspec.field(default_factory=dict)
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    messages: list[_Message] = msgspec.field(default_factory=list)
    signals: list[Literal["denials", "divergence"]] | None = None
    # Items are objects with a string name (other keys allowed): checked after the decode.
    tool_definitions: list[dict[str, Any]] = msgspec.field(default_factory=list)
    initial_state: dict[str, Any] | None = None


_DECODER = msgspec.json.Decoder(_Trace)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_MOST_BRACKETS = 2 * MAX_JSON_DEPTH
STEP_FIELDS = tuple(f.name for f in fields(TraceStep))
"""TraceStep's fields in order: a decoded step's own ``asdict`` is the step's ``__dict__``."""


def decode(data: bytes) -> AgentTrace | None:
    """Return the native trace ``data`` holds, or None when the general reader must decide
    (anything not a valid native trace, and anything it refuses beyond the schema)."""
    if too_large_to_parse(len(data)) is not None:
        return None
    # Before the decode, so that what the check holds is gone when the values are made.
    # Valid JSON nested n deep holds at least 2n brackets (each level opens and closes outside
    # any string), so text with at most twice the limit cannot nest deeper: one pass in C
    # that keeps the brackets settles most lines before text_nests_deeper's two counts.
    if (len(data.translate(None, _NOT_BRACKETS)) > _MOST_BRACKETS
            and text_nests_deeper(data, MAX_JSON_DEPTH)):
        return None  # maybe deeper than the read rule allows: the general reader says where
    try:
        document = _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, MemoryError):
        return None
    definitions = document.tool_definitions
    if definitions and not all(_is_tool_definition(item) for item in definitions):
        return None
    return _trace(document)


def _is_tool_definition(item: dict[str, Any]) -> bool:
    description = item.get("description")
    parameters = item.get("parameters")
    return (isinstance(item.get("name"), str)
            and (description is None or isinstance(description, str))
            and (parameters is None or isinstance(parameters, dict)))


def _trace(document: _Trace) -> AgentTrace:
    to_dict = msgspec.structs.asdict
    new = object.__new__
    steps: list[TraceStep] = []
    decoded = document.steps
    document.steps = []
    decoded.reverse()
    while decoded:  # each struct goes as its step comes: one copy of a step at a time
        step = new(TraceStep)
        step.__dict__ = to_dict(decoded.pop())  # the fields in TraceStep's order
        steps.append(step)
    # The fields in AgentTrace's order, as its __init__ would set them (it has no
    # __post_init__; a test holds the order): one dict, not ten keyword arguments.
    trace: AgentTrace = new(AgentTrace)
    trace.__dict__ = {
        "task_id": document.task_id,
        "input": document.input,
        "steps": steps,
        "final_output": document.final_output,
        "actual_state": document.actual_state,
        "metadata": document.metadata,
        "messages": [Message(**to_dict(message)) for message in document.messages],
        "signals": list(document.signals) if document.signals is not None else None,
        "tool_definitions": document.tool_definitions,
        "initial_state": document.initial_state,
    }
    return trace

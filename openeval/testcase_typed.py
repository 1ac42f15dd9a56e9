"""The usual test case file decoded in one typed pass (msgspec); any other read the general way.

A test case is read by the general way in four passes after orjson's parse: the depth rule,
the exact-integer rule, the duplicate-key rule and the JSON Schema. The structs below accept
a subset of what all four accept: the keys most cases use (a task, its input, expected calls
of a tool with arguments, an expected final state, output phrases, step and time limits,
metrics and pass lines, a trace, an expected output, an agent spec), each with the schema's
type and bounds, checked in one C pass with unknown keys refused. :func:`decode` answers
with the document or with None ("not mine"), never with an error: on None (a key outside the
subset, such as ``checks``, ``turns``, ``trajectory``, ``state``, ``denied_when`` or an order
or count key on a call; a wrong type or bound; any backslash in the text; a key said twice;
an integer of 19 digits or more; text that may nest deeper than ``MAX_JSON_DEPTH``; anything
that is not JSON) the general reader reads the same bytes and words its error, so every
refusal reads as before. See proposals/0330-survivors-frozen-and-bounds-by-length.md.

What the two readers agree on without a check: numbers (orjson and msgspec both refuse one
out of a double's range and read the rest alike), UTF-8 (both refuse invalid text and lone
surrogates), a byte order mark or text after the document (both refuse).
"""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from openeval.jsonio import MAX_JSON_DEPTH, may_hold_big_integer

_Name = Annotated[str, msgspec.Meta(min_length=1)]
_Count = Annotated[int, msgspec.Meta(ge=0)]
_Seconds = Annotated[int, msgspec.Meta(ge=0)] | Annotated[float, msgspec.Meta(ge=0)]
_Line = Annotated[int, msgspec.Meta(ge=0, le=1)] | Annotated[float, msgspec.Meta(ge=0, le=1)]
_UNSET: Any = msgspec.UNSET


class _Call(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """An entry of ``expected_tool_calls`` naming a tool and its arguments, nothing else."""

    tool: _Name
    args: dict[str, Any] = _UNSET


class _TestCase(msgspec.Struct, forbid_unknown_fields=True, gc=False):
    """The subset of the test case schema read here: every field optional but ``task_id``,
    and a field the file does not hold stays UNSET (the document gets no key for it)."""

    task_id: _Name
    schema: str = msgspec.field(default=_UNSET, name="$schema")
    input: str = _UNSET
    expected_tool_calls: list[_Call] = _UNSET
    expected_final_state: dict[str, Any] = _UNSET
    expected_output_contains: list[_Name] = _UNSET
    max_steps: _Count | None = _UNSET
    timeout_seconds: _Seconds | None = _UNSET
    optimal_steps: _Count | None = _UNSET
    thresholds: dict[str, _Line] = _UNSET
    metrics: list[str] | None = _UNSET
    trace: str | None = _UNSET
    expected_output: Any = _UNSET
    agent_spec: _Name | None = _UNSET


_DECODER = msgspec.json.Decoder(_TestCase)
_ENCODER = msgspec.json.Encoder()
_FIELDS = tuple((f.name, f.encode_name) for f in msgspec.structs.fields(_TestCase))
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
_MOST_BRACKETS = 2 * MAX_JSON_DEPTH


def decode(data: bytes) -> dict[str, Any] | None:
    """Return the test case document ``data`` holds, as the general reader would parse it
    (the same keys and values), when it is a usual one the schema accepts; else None."""
    # Without a backslash no string holds an escape: each is written back byte for byte,
    # which the duplicate-key rule below needs, and no escaped surrogate can differ.
    if b"\\" in data or may_hold_big_integer(data):
        return None
    # Valid JSON nested n deep holds at least 2n brackets: at most twice the limit cannot
    # nest deeper than the depth rule allows.
    if len(data.translate(None, _NOT_BRACKETS)) > _MOST_BRACKETS:
        return None
    try:
        case = _DECODER.decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError, MemoryError):
        return None
    # One colon per member outside strings, and the strings written back alike: equal counts
    # mean no member was dropped, so no key was said twice (msgspec keeps the last one).
    if _ENCODER.encode(case).count(b":") != data.count(b":"):
        return None
    return _document(case)


def _document(case: _TestCase) -> dict[str, Any]:
    document: dict[str, Any] = {}
    for name, key in _FIELDS:
        value = getattr(case, name)
        if value is _UNSET:
            continue
        if name == "expected_tool_calls":
            value = [{"tool": call.tool} if call.args is _UNSET
                     else {"tool": call.tool, "args": call.args} for call in value]
        document[key] = value
    return document

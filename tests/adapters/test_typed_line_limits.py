"""A native line read the typed way is held to the read limits as the general way holds it:
the same records, the same messages, at and past each limit (the typed way counts the text
only when the line is longer than the text limit; proposals/0315-score-read-once-per-line.md).
Also: the records and traces it builds without a dataclass ``__init__`` are the built ones."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.adapters import LoadOptions
from openeval.adapters.native import NativeAdapter
from openeval.adapters.native_typed import decode
from openeval.adapters.registry import REGISTRY, load_trace, register
from openeval.adapters.stream import TraceRecord, Unreadable, read_records, trace_record
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace


class _GeneralNative(NativeAdapter):
    """The native format without its typed decoder: every line read the general way."""

    name = "native-general"
    typed_decode = None  # type: ignore[assignment]


@pytest.fixture()
def general() -> Iterator[str]:
    register(_GeneralNative())
    try:
        yield _GeneralNative.name
    finally:
        REGISTRY.unregister(_GeneralNative.name)


STEP = {"step_id": 1, "type": "tool_call", "tool_name": "t", "content": "abcd",
        "tool_result": "ef", "tool_args": {"x": 1}}
TRACE = {"task_id": "t1", "input": "in", "final_output": "out!", "steps": [STEP, STEP],
         "messages": [{"role": "user", "content": "hello"}]}
LINE = orjson.dumps(TRACE)
CHARS = 2 + 4 + 2 * (4 + 2) + 5  # input, output, each step's content and result, the message
SMALL = orjson.dumps({"task_id": "s", "steps": [{"step_id": 1, "type": "output"}]})
ESCAPED = orjson.dumps({**TRACE, "input": "\u00e9\\\n" * 8})  # more bytes than characters

# (name, line, limits): at the limits, one past each, and a line longer than the text limit
# whose text is within it (the case where the typed way must count).
LIMITS: list[tuple[str, bytes, dict[str, int]]] = [
    ("within", LINE, {}),
    ("steps at the limit", LINE, {"max_steps": 2}),
    ("one step over", LINE, {"max_steps": 1}),
    ("text at the limit", LINE, {"max_text_chars": CHARS}),
    ("one character over", LINE, {"max_text_chars": CHARS - 1}),
    ("both over", LINE, {"max_steps": 1, "max_text_chars": CHARS - 1}),
    ("line longer than the text limit, text within", LINE, {"max_text_chars": len(LINE) - 1}),
    ("escapes: line longer, text within", ESCAPED, {"max_text_chars": CHARS - 2 + 24}),
    ("escapes: one character over", ESCAPED, {"max_text_chars": CHARS - 2 + 23}),
    ("more JSON values than the cap", LINE, {"max_json_values": 20}),
    ("a line over the line limit", LINE, {"max_line_bytes": len(SMALL) + 5}),
]


def _outcomes(path: Path, options: LoadOptions, fmt: str | None) -> list[Any]:
    found: list[Any] = []
    for item in read_records(path, trace_format=fmt, options=options):
        if isinstance(item, TraceRecord):
            found.append(("trace", item.line, item.trace_id, orjson.dumps(item.trace.to_dict())))
        else:
            assert isinstance(item, Unreadable)
            found.append(("unreadable", item.line, item.message))
    return found


@pytest.mark.parametrize(("line", "limits"), [(line, limits) for _, line, limits in LIMITS],
                         ids=[name for name, _, _ in LIMITS])
def test_the_typed_way_keeps_the_general_limits(tmp_path: Path, general: str, line: bytes,
                                                limits: dict[str, int]) -> None:
    assert decode(line) is not None  # the typed way does read it
    path = tmp_path / "traces.jsonl"
    path.write_bytes(b"\n".join([SMALL, line, SMALL]) + b"\n")
    options = LoadOptions(**limits)
    typed = _outcomes(path, options, "native")
    assert typed == _outcomes(path, options, general)
    assert typed[0][0] == "trace"


def test_the_table_has_refusals_and_reads() -> None:
    kinds = set()
    for _, line, limits in LIMITS[:-2]:
        options = LoadOptions(**limits)
        trace = decode(line)
        assert trace is not None
        chars_over = (len(trace.input) + len(trace.final_output)
                      + sum(len(s.content) + len(s.tool_result or "") for s in trace.steps)
                      + sum(len(m.content) for m in trace.messages)) > options.max_text_chars
        kinds.add((chars_over, len(trace.steps) > options.max_steps,
                   len(line) > options.max_text_chars))
    assert {(True, False, True), (False, True, False), (False, False, True),
            (False, False, False)} <= kinds


def test_a_fast_record_is_the_dataclass_one() -> None:
    trace = decode(LINE)
    assert trace is not None
    fast = trace_record(trace, "f.jsonl", 3, "native", "t1")
    built = TraceRecord(trace, "f.jsonl", 3, "native", "t1")
    assert fast == built and vars(fast) == vars(built)
    assert list(vars(fast)) == [f.name for f in fields(TraceRecord)]


def test_a_typed_trace_is_the_built_one_field_for_field() -> None:
    trace = decode(LINE)
    assert trace is not None
    assert list(vars(trace)) == [f.name for f in fields(AgentTrace)]
    assert trace == AgentTrace(**{f.name: getattr(trace, f.name) for f in fields(AgentTrace)})


@pytest.mark.parametrize(("line", "limits"), [(line, limits) for _, line, limits in LIMITS[:-1]],
                         ids=[name for name, _, _ in LIMITS[:-1]])
def test_a_typed_file_keeps_the_general_limits(tmp_path: Path, general: str, line: bytes,
                                               limits: dict[str, int]) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(line)
    options = LoadOptions(**limits)

    def outcome(fmt: str) -> Any:
        try:
            return orjson.dumps(load_trace(path, fmt, options=options).to_dict())
        except TraceFormatError as exc:
            return str(exc)

    assert outcome("native") == outcome(general)

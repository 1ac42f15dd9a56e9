"""The adapter toolkit: one rule each for task ids, token counts, pairing and final output."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openeval.adapters import from_anthropic_messages, from_openai_messages, load_trace
from openeval.adapters._toolkit import (
    CallPairing,
    Errors,
    Turns,
    only_trace,
    task_id_from_path,
    to_plain,
    token_count,
)
from openeval.errors import TraceFormatError
from openeval.jsonio import MAX_JSON_DEPTH, read_json_file
from openeval.models import AgentTrace, TraceStep

DATA = Path(__file__).parent.parent / "data" / "adapters"
TASK_IDS: dict[str, str] = read_json_file(DATA / "task_ids.json")["cases"]


@pytest.mark.parametrize(("name", "task_id"), TASK_IDS.items(), ids=list(TASK_IDS))
def test_task_id_from_file_name(name: str, task_id: str) -> None:
    assert task_id_from_path(Path("suite") / name) == task_id


@pytest.mark.parametrize(
    ("content", "name"),
    [
        (b'[{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]', "openai"),
        (b'{"event_type": "llm_call", "step_id": "s1", "completion": "yo"}\n', "fixtura"),
        (b'{"resourceSpans": [{"scopeSpans": [{"spans": [{"name": "execute_tool lookup", '
         b'"traceId": "0af7651916cd43dd8448eb211c80319c", "spanId": "b7ad6b7169203331"}]}]}]}',
         "otel"),
        (b'{"run_type": "chain", "name": "agent", "outputs": {"output": "yo"}}', "langchain"),
    ],
    ids=["openai", "fixtura", "otel", "langchain"],
)
def test_every_format_takes_the_same_task_id(tmp_path: Path, content: bytes, name: str) -> None:
    path = tmp_path / "v1.2.trace"
    path.write_bytes(content)
    assert load_trace(path, name).task_id == "v1.2"


COUNTS: dict[str, tuple[Any, int | None]] = {
    "an int": (12, 12),
    "zero": (0, 0),
    "an integral float": (12.0, 12),
    "the largest": (2**63 - 1, 2**63 - 1),
    "too large": (2**63, None),
    "1e300": (1e300, None),
    "negative": (-3, None),
    "a fraction": (2.5, None),
    "a boolean": (True, None),
    "text": ("12", None),
    "null": (None, None),
}


@pytest.mark.parametrize(("value", "count"), COUNTS.values(), ids=list(COUNTS))
def test_token_count(value: Any, count: int | None) -> None:
    assert token_count(value) == count


def _call(name: str) -> TraceStep:
    return TraceStep(step_id=0, type="tool_call", tool_name=name)


Pairing = tuple[list[tuple[str, str | None]], tuple[str | None, str | None], int | None]
PAIRINGS: dict[str, Pairing] = {
    "by id, not by order": ([("f", "a"), ("g", "b")], ("b", None), 1),
    "no id: the oldest": ([("f", "a"), ("g", "b")], (None, None), 0),
    "unknown id: the oldest without an id": ([("f", "a"), ("g", None)], ("zz", None), 1),
    "unknown id, every call has one: none": ([("f", "a"), ("g", "b")], ("zz", None), None),
    "named: only that tool": ([("f", None), ("g", None)], (None, "g"), 1),
    "named, no such tool: none": ([("f", None)], (None, "h"), None),
}


@pytest.mark.parametrize(("calls", "result", "taken"), PAIRINGS.values(), ids=list(PAIRINGS))
def test_call_pairing(
    calls: list[tuple[str, str | None]], result: tuple[str | None, str | None], taken: int | None
) -> None:
    pairing = CallPairing()
    steps = [_call(name) for name, _ in calls]
    for step, (_, call_id) in zip(steps, calls, strict=True):
        pairing.expect(step, call_id)
    found = pairing.take(*result)
    assert found is (steps[taken] if taken is not None else None)
    if found is not None:
        assert pairing.take(*result) is not found  # a call is answered once


def test_final_output_is_the_last_turn_even_when_empty() -> None:
    turns = Turns()
    turns.answer("I'll refund order 1042 now.", asked_for_tools=False)
    turns.answer("", asked_for_tools=False)
    assert turns.final_output == ""
    turns.answer("Done.", asked_for_tools=True)
    assert turns.final_output == ""
    turns.answer("Done.", asked_for_tools=False)
    turns.acted()
    assert turns.final_output == ""


def test_sdk_dump_refuses_values_nested_past_the_limit() -> None:
    value: Any = "leaf"
    for _ in range(MAX_JSON_DEPTH + 5):
        value = [value]
    with pytest.raises(TraceFormatError, match="nested more than 200 levels") as caught:
        to_plain(value, Errors(None), "messages")
    assert caught.value.location is not None
    assert caught.value.location.startswith("messages[0][0]")


def test_sdk_objects_that_cannot_be_dumped_are_named() -> None:
    with pytest.raises(TraceFormatError, match=r"messages\[1\]: expected a dict, list or SDK"):
        to_plain([{}, object()], Errors(None), "messages")


@pytest.mark.parametrize("read", [from_openai_messages, from_anthropic_messages])
def test_chat_readers_keep_every_turn(read: Any) -> None:
    trace = read([
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Make it 10."},
        {"role": "assistant", "content": "10 it is."},
        {"role": "user", "content": "Actually, make it 11 instead."},
        {"role": "assistant", "content": "11 it is."},
    ])
    assert [(m.role, m.content, m.turn) for m in trace.messages] == [
        ("system", "Be brief.", None),
        ("user", "Make it 10.", None),
        ("assistant", "10 it is.", 0),
        ("user", "Actually, make it 11 instead.", None),
        ("assistant", "11 it is.", 1),
    ]
    assert trace.input == "Make it 10."
    assert trace.final_output == "11 it is."


def test_only_trace_returns_the_one_trace_or_says_how_many() -> None:
    one = AgentTrace(task_id="a")
    words = {"several": "holds {count} traces", "empty": "no trace", "empty_location": "items"}
    assert only_trace([one], "f.json", **words) is one
    with pytest.raises(TraceFormatError, match="holds 2 traces") as caught:
        only_trace([one, one], "f.json", **words)
    assert caught.value.source == "f.json"
    with pytest.raises(TraceFormatError, match="no trace") as caught:
        only_trace([], "f.json", **words)
    assert caught.value.location == "items"
    broken = TraceFormatError("bad span", source="f.json")
    with pytest.raises(TraceFormatError) as caught:
        only_trace([broken], "f.json", **words)
    assert caught.value is broken

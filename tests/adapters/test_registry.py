"""Reading a trace file by content: what the registry says when no adapter can read it."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from openeval import adapters
from openeval.adapters import load_trace
from openeval.errors import TraceFormatError
from openeval.jsonio import MAX_JSON_DEPTH, dump_json
from openeval.snapshot import case_document, draft_test_case

NATIVE = {"task_id": "t", "steps": [], "metadata": {"score": float("nan")}}


@pytest.mark.parametrize(
    ("dump", "literal", "location"),
    [
        (lambda v: json.dumps(v), "NaN", "line 1 column 53"),
        (lambda v: json.dumps(v, indent=2), "NaN", "line 5 column 14"),
        (lambda v: json.dumps([{"role": "user", "content": "hi", "x": float("inf")}]),
         "Infinity", "line 1 column 41"),
        (lambda v: json.dumps({"a": float("-inf")}), "-Infinity", "line 1 column 8"),
    ],
    ids=["one line", "indented", "Infinity", "-Infinity"],
)
def test_python_non_finite_floats_are_named(
    tmp_path: Path, dump: Any, literal: str, location: str
) -> None:
    # Python's json.dump writes these for float("nan") / float("inf"); they are not JSON.
    path = tmp_path / "trace.json"
    path.write_text(dump(NATIVE))
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.message.startswith(f"{literal} is not valid JSON")
    assert caught.value.location == location


ENTRY_POINTS = [
    "from_adk_session", "from_anthropic_messages", "from_fixtura_trace", "from_inspect_log",
    "from_langchain_messages", "from_langchain_run", "from_langfuse_trace", "from_mlflow_trace",
    "from_openai_agents_trace", "from_openai_messages", "from_otel_spans",
]
SHARED = ("task_id", "input", "final_output", "actual_state", "metadata")


def test_the_entry_points_are_every_from_function() -> None:
    assert sorted(name for name in dir(adapters) if name.startswith("from_")) == ENTRY_POINTS


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_takes_the_same_keywords(name: str) -> None:
    parameters = inspect.signature(getattr(adapters, name)).parameters
    keywords = {
        p.name for p in parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    assert set(SHARED) <= keywords


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = {"k": value}
    return value


def _written_and_drafted(trace: Any) -> None:
    """What `openeval convert` and `openeval snapshot` do with a trace: neither may crash."""
    assert dump_json(trace.to_dict())
    assert dump_json(case_document(draft_test_case(trace)))


def test_a_trace_at_the_depth_limit_converts_and_snapshots(tmp_path: Path) -> None:
    # trace -> steps -> step -> tool_args: three levels above the arguments' own.
    args = _deep(MAX_JSON_DEPTH - 3)
    path = tmp_path / "deep.json"
    path.write_text(json.dumps({"task_id": "t", "steps": [
        {"step_id": 1, "type": "tool_call", "tool_name": "f", "tool_args": args}]}))
    _written_and_drafted(load_trace(path))
    path.write_text(json.dumps({"task_id": "t", "steps": [
        {"step_id": 1, "type": "tool_call", "tool_name": "f", "tool_args": _deep(300)}]}))
    with pytest.raises(TraceFormatError, match="nested more than 200 levels") as caught:
        load_trace(path)
    assert caught.value.location == "steps[0].tool_args" + ".k" * (MAX_JSON_DEPTH - 3)


def test_arguments_text_nested_too_deep_stays_text(tmp_path: Path) -> None:
    arguments = json.dumps(_deep(500))
    path = tmp_path / "chat.json"
    path.write_text(json.dumps([{"role": "assistant", "tool_calls": [
        {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}]}]))
    trace = load_trace(path)
    (call,) = trace.tool_calls()
    assert (call.tool_args, call.content) == (None, arguments)
    assert call.error is not None and "nested more than 200 levels" in call.error
    _written_and_drafted(trace)


def test_a_token_count_json_cannot_write_is_refused_at_read(tmp_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    path.write_text(json.dumps(
        {"event_type": "llm_call", "step_id": "s1", "completion": "hi", "input_tokens": 1e300}
    ) + "\n")
    with pytest.raises(TraceFormatError, match="input_tokens is the number 1e\\+300") as caught:
        load_trace(path)
    assert caught.value.location == "line 1 (llm_call.input_tokens)"


def test_an_unknown_format_is_a_trace_format_error_listing_the_formats() -> None:
    with pytest.raises(TraceFormatError) as caught:
        adapters.registry.get("nonesuch")
    assert caught.value.message.startswith("unknown trace format 'nonesuch'; expected one of: ")
    assert {"native", "otel", "anthropic"} <= set(caught.value.message.split(": ")[1].split(", "))

"""The Anthropic adapter, against conversations produced by the real ``anthropic`` SDK.

The golden inputs under ``tests/data/adapters/anthropic/`` are made here: a small agent loop
drives ``anthropic.Anthropic`` over an in-process HTTP transport that plays back scripted server
replies, keeps the SDK's own content blocks (or whole ``Message`` objects) in its history as the
Anthropic tool-use guide does, and saves that history as JSON. Rewrite the goldens with
``OPENEVAL_REGEN_GOLDEN=1 .venv/bin/pytest tests/adapters/test_adapter_anthropic.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import httpx2 as httpx  # this anthropic release speaks httpx2, a fork with the same API
import orjson
import pytest
from anthropic.types import Message, TextBlock, ThinkingBlock, ToolUseBlock
from fuzzing import assert_reads_or_refuses, json_values, replace_at
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.adapters import detect_format, from_anthropic_messages, get_adapter, load_trace
from openeval.adapters.base import TraceSource
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.jsonio import dump_json
from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).parent.parent / "data" / "adapters" / "anthropic"
EXAMPLE = Path(__file__).parents[2] / "examples" / "quickstart" / "05-anthropic-messages"
MODEL = "claude-sonnet-4-6"

# --- the producer: the real SDK over a scripted transport -------------------------------------


def _client(replies: list[dict[str, Any]]) -> anthropic.Anthropic:
    """Return an Anthropic client whose server answers each request with the next reply."""
    queue = list(replies)

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=queue.pop(0))

    return anthropic.Anthropic(
        api_key="sk-ant-test", base_url="http://anthropic.test",
        http_client=httpx.Client(transport=httpx.MockTransport(serve)), max_retries=0,
    )


def _message(n: int, content: list[dict[str, Any]], stop: str, usage: dict[str, int]) -> Any:
    return {"id": f"msg_{n:02d}", "type": "message", "role": "assistant", "model": MODEL,
            "content": content, "stop_reason": stop, "stop_sequence": None, "usage": usage}


def _create(client: anthropic.Anthropic, history: list[Any]) -> Message:
    return client.messages.create(model=MODEL, max_tokens=1024, messages=history)


def _dump(history: list[Any]) -> list[Any]:
    """Save a history the way users log one: SDK objects dumped, dicts kept."""
    def plain(value: Any) -> Any:
        if hasattr(value, "model_dump"):
            return value.model_dump(mode="json", exclude_none=True)
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        if isinstance(value, list):
            return [plain(v) for v in value]
        return value
    return [plain(item) for item in history]


def produce_tool_loop() -> Any:
    """Thinking, two tool uses, one refused by the tool (is_error), results out of order."""
    client = _client([
        _message(1, [
            {"type": "thinking", "thinking": "Search flights and check the visa rules.",
             "signature": "sig-1"},
            {"type": "text", "text": "I'll look up flights and visa rules."},
            {"type": "tool_use", "id": "toolu_01", "name": "search_flights",
             "input": {"from": "BER", "to": "NRT", "date": "2026-12-20"}},
            {"type": "tool_use", "id": "toolu_02", "name": "check_visa",
             "input": {"country": "JP"}},
        ], "tool_use", {"input_tokens": 412, "output_tokens": 133,
                        "cache_creation_input_tokens": 0, "cache_read_input_tokens": 256}),
        _message(2, [
            {"type": "text", "text": "Flight LH714 leaves at 13:05. The visa service refused "
                                     "my request, so please check visa rules yourself."},
        ], "end_turn", {"input_tokens": 640, "output_tokens": 41}),
    ])
    history: list[Any] = [{"role": "user", "content": "Find me a flight Berlin-Tokyo on Dec 20."}]
    reply = _create(client, history)
    history.append({"role": "assistant", "content": reply.content})
    results = {
        "toolu_01": {"content": [{"type": "text", "text": "LH714 13:05, 812 EUR"}]},
        "toolu_02": {"content": "permission denied: visa service", "is_error": True},
    }
    history.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": block.id, **results[block.id]}
        for block in reversed(reply.content) if isinstance(block, ToolUseBlock)
    ]})
    history.append({"role": "assistant", "content": _create(client, history).content})
    return {"task_id": "flight-ber-nrt", "messages": _dump(history),
            "actual_state": {"flight_found": True}}


def produce_message_log() -> Any:
    """A history logging whole Message responses (so model and usage survive): a server-side
    web search answered inside the same message, then a client tool."""
    client = _client([
        _message(1, [
            {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
             "input": {"query": "berlin weather"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": [
                {"type": "web_search_result", "url": "https://weather.test/berlin",
                 "title": "Berlin weather", "encrypted_content": "enc", "page_age": None}]},
            {"type": "text", "text": "It is 3 C in Berlin."},
            {"type": "tool_use", "id": "toolu_09", "name": "save_note",
             "input": {"text": "Berlin: 3 C"}},
        ], "tool_use", {"input_tokens": 90, "output_tokens": 30}),
        _message(2, [{"type": "text", "text": "Saved."}], "end_turn",
                 {"input_tokens": 150, "output_tokens": 3}),
    ])
    history: list[Any] = [{"role": "user", "content": [
        {"type": "text", "text": "Weather in Berlin? Save it."}]}]
    log = list(history)
    first = _create(client, history)
    log.append(first)
    log.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_09", "content": "saved"}]})
    log.append(_create(client, history))
    return _dump(log)


def produce_message_object() -> Any:
    """One whole Message, as ``message.model_dump_json()``."""
    client = _client([_message(3, [
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "The answer is 42."},
    ], "end_turn", {"input_tokens": 12, "output_tokens": 7})])
    return orjson.loads(_create(client, [{"role": "user", "content": "?"}]).model_dump_json())


def produce_second_request() -> Any:
    """An answer, then a second user request in the same conversation, answered after a call."""
    client = _client([
        _message(1, [{"type": "text", "text": "Booked a table for 10 at 19:00."}], "end_turn",
                 {"input_tokens": 30, "output_tokens": 12}),
        _message(2, [
            {"type": "text", "text": "I'll change it to 11 now."},
            {"type": "tool_use", "id": "toolu_11", "name": "change_booking",
             "input": {"people": 11}},
        ], "tool_use", {"input_tokens": 60, "output_tokens": 25}),
        _message(3, [{"type": "text", "text": "Done: the table is for 11."}], "end_turn",
                 {"input_tokens": 90, "output_tokens": 10}),
    ])
    history: list[Any] = [{"role": "user", "content": "Book a table for 10 at 19:00."}]
    history.append({"role": "assistant", "content": _create(client, history).content})
    history.append({"role": "user", "content": "Actually, make it 11 instead."})
    reply = _create(client, history)
    history.append({"role": "assistant", "content": reply.content})
    history.append({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_11", "content": "changed"}]})
    history.append({"role": "assistant", "content": _create(client, history).content})
    return {"task_id": "booking-11", "messages": _dump(history)}


PRODUCERS: dict[str, Callable[[], Any]] = {
    "second_request": produce_second_request,
    "tool_loop": produce_tool_loop,
    "message_log": produce_message_log,
    "message_object": produce_message_object,
}
REGEN = os.environ.get("OPENEVAL_REGEN_GOLDEN") == "1"


def _write(path: Path, value: Any) -> None:
    path.write_bytes(dump_json(value))


@pytest.fixture(scope="module", autouse=True)
def _regenerate() -> None:
    if not REGEN:
        return
    DATA.mkdir(parents=True, exist_ok=True)
    for name, produce in PRODUCERS.items():
        _write(DATA / f"{name}.json", produce())
        _write(DATA / f"{name}.expected.json", load_trace(DATA / f"{name}.json").to_dict())
    _write(EXAMPLE / "trace.json", produce_tool_loop())


# --- goldens ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_golden_file_normalises_to_expected(name: str) -> None:
    assert detect_format(TraceSource(DATA / f"{name}.json")).name == "anthropic"
    expected = orjson.loads((DATA / f"{name}.expected.json").read_bytes())
    assert load_trace(DATA / f"{name}.json").to_dict() == expected


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_sdk_still_produces_the_golden(name: str, tmp_path: Path) -> None:
    fresh = tmp_path / f"{name}.json"
    _write(fresh, PRODUCERS[name]())
    expected = orjson.loads((DATA / f"{name}.expected.json").read_bytes())
    assert load_trace(fresh).to_dict() == expected


def test_tool_loop_pairs_by_id_and_keeps_errors() -> None:
    trace = load_trace(DATA / "tool_loop.json")
    assert [s.type for s in trace.steps] == ["thought", "thought", "tool_call", "tool_call",
                                            "thought"]
    thinking, turn = trace.steps[:2]
    assert thinking.content == "Search flights and check the visa rules."
    # The loop keeps only the reply's content blocks, so model and usage are not in the file.
    assert (turn.provider, turn.model, turn.tokens) == ("anthropic", None, None)
    assert turn.content == "I'll look up flights and visa rules."
    search, visa = trace.tool_calls()
    assert search.tool_args == {"from": "BER", "to": "NRT", "date": "2026-12-20"}
    assert (search.tool_result, search.error) == ("LH714 13:05, 812 EUR", None)
    assert visa.tool_result == "permission denied: visa service"
    assert visa.error == "permission denied: visa service" and visa.denied is False
    assert trace.final_output.startswith("Flight LH714 leaves at 13:05.")
    assert (trace.task_id, trace.actual_state) == ("flight-ber-nrt", {"flight_found": True})
    assert trace.input == "Find me a flight Berlin-Tokyo on Dec 20."


def test_a_later_user_request_is_kept_and_answered_last() -> None:
    trace = load_trace(DATA / "second_request.json")
    assert [(m.role, m.content, m.turn) for m in trace.messages] == [
        ("user", "Book a table for 10 at 19:00.", None),
        ("assistant", "Booked a table for 10 at 19:00.", 0),
        ("user", "Actually, make it 11 instead.", None),
        ("assistant", "I'll change it to 11 now.", 1),
        ("tool", "changed", None),
        ("assistant", "Done: the table is for 11.", 2),
    ]
    assert trace.messages[4].name == "change_booking"
    assert trace.final_output == "Done: the table is for 11."
    assert trace.input == "Book a table for 10 at 19:00."


def test_message_log_reads_server_tools_and_telemetry() -> None:
    trace = load_trace(DATA / "message_log.json")
    search, note = trace.tool_calls()
    assert search.tool_name == "web_search" and search.tool_args == {"query": "berlin weather"}
    assert search.tool_result is not None and "https://weather.test/berlin" in search.tool_result
    assert (note.tool_args, note.tool_result) == ({"text": "Berlin: 3 C"}, "saved")
    assert {(s.model, s.finish_reason) for s in trace.steps if s.type == "thought"} == {
        (MODEL, "tool_use"), (MODEL, "end_turn")}
    assert [s.tokens for s in trace.steps if s.type == "thought"] == [
        {"input": 90, "output": 30}, {"input": 150, "output": 3}]
    assert trace.final_output == "Saved."


def test_whole_message_document() -> None:
    trace = load_trace(DATA / "message_object.json")
    (step,) = trace.steps
    assert (step.content, step.finish_reason, step.tokens) == (
        "The answer is 42.", "end_turn", {"input": 12, "output": 7})
    assert trace.task_id == "message_object"


# --- SDK objects straight from Python -----------------------------------------------------------


def test_sdk_objects_convert_without_json() -> None:
    message = Message.model_validate(_message(1, [
        {"type": "text", "text": "Checking."},
        {"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": 7}}],
        "tool_use", {"input_tokens": 3, "output_tokens": 4}))
    trace = from_anthropic_messages([
        {"role": "user", "content": "look up 7"}, message,
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "seven"}]},
        {"role": "assistant", "content": [
            ThinkingBlock(type="thinking", thinking="done", signature="s"),
            TextBlock(type="text", text="It is seven."),
            ToolUseBlock(type="tool_use", id="t2", name="log", input={})]},
    ], task_id="lookup", actual_state={"looked_up": True})
    assert [(c.tool_name, c.tool_result) for c in trace.tool_calls()] == [
        ("lookup", "seven"), ("log", None)]
    # The last turn asked for a tool: the run did not end on its words
    # (docs/semantics.md#no-vacuous-passes).
    assert trace.final_output == ""
    assert trace.messages[-1].content == "It is seven."
    assert (trace.task_id, trace.actual_state) == ("lookup", {"looked_up": True})
    assert from_anthropic_messages(message).tool_calls()[0].tool_args == {"id": 7}


# --- pairing rules, detection and errors as tables ----------------------------------------------

USE = {"role": "assistant", "content": [
    {"type": "tool_use", "id": "a", "name": "f", "input": {}},
    {"type": "tool_use", "id": "b", "name": "g", "input": {}}]}


def _results(*blocks: dict[str, Any]) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "tool_result", **b} for b in blocks]}


PAIRING_CASES: dict[str, tuple[list[Any], list[tuple[str, str | None, str | None, str | None]]]] = {
    "by id, reversed": (
        [USE, _results({"tool_use_id": "b", "content": "B"}, {"tool_use_id": "a", "content": "A"})],
        [("tool_call", "f", "A", None), ("tool_call", "g", "B", None)]),
    "is_error fills error": (
        [USE, _results({"tool_use_id": "a", "content": "boom", "is_error": True})],
        [("tool_call", "f", "boom", "boom"), ("tool_call", "g", None, None)]),
    "empty error result": (
        [USE, _results({"tool_use_id": "a", "is_error": True})],
        [("tool_call", "f", "", "the tool reported an error"), ("tool_call", "g", None, None)]),
    "no id: by order": (
        [USE, _results({"content": "1"}, {"content": "2"})],
        [("tool_call", "f", "1", None), ("tool_call", "g", "2", None)]),
    "unknown id: own step": (
        [USE, _results({"tool_use_id": "zz", "content": "stray"})],
        [("tool_call", "f", None, None), ("tool_call", "g", None, None),
         ("tool_result", None, "stray", None)]),
    "image in a result": (
        [USE, _results({"tool_use_id": "a", "content": [
            {"type": "text", "text": "chart:"}, {"type": "image", "source": {}}]})],
        [("tool_call", "f", "chart:\n[image]", None), ("tool_call", "g", None, None)]),
}


@pytest.mark.parametrize("messages,expected", PAIRING_CASES.values(), ids=list(PAIRING_CASES))
def test_pairing(messages: list[Any], expected: list[Any]) -> None:
    steps = [s for s in from_anthropic_messages(messages).steps if s.type != "thought"]
    assert [(s.type, s.tool_name, s.tool_result, s.error) for s in steps] == expected


ARGUMENT_CASES: dict[str, tuple[Any, Any, str, str | None]] = {
    "object": ({"a": 1}, {"a": 1}, "", None),
    "missing": (None, {}, "", None),
    "JSON text of an object": ('{"a": 1}', {"a": 1}, "", None),
    "a plain string": ("3 C", None, "3 C", "invalid JSON"),
    "a list": ([1], None, "[1]", "got a list"),
}


@pytest.mark.parametrize("value,args,content,error", ARGUMENT_CASES.values(),
                         ids=list(ARGUMENT_CASES))
def test_arguments_rule(value: Any, args: Any, content: str, error: str | None) -> None:
    block: dict[str, Any] = {"type": "tool_use", "id": "t", "name": "f"}
    if value is not None:
        block["input"] = value
    (step,) = from_anthropic_messages([{"role": "assistant", "content": [block]}]).tool_calls()
    assert (step.tool_args, step.content) == (args, content)
    assert (step.error is None) == (error is None)
    if error is not None:
        assert step.error is not None and error in step.error
        assert step.error.startswith("arguments are not a JSON object: ")


REFUSALS: dict[str, tuple[Any, str]] = {
    "text-only list is left to openai": (
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}],
        "no Anthropic content block"),
    "openai tool calls": (
        [{"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "f"}}]}],
        "OpenAI shapes"),
    "a chat.completion": ({"object": "chat.completion", "choices": []}, "OpenAI shapes"),
    "mixed vendors": (
        [{"role": "tool", "content": "x"},
         {"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f"}]}],
        "mixes"),
    "not JSON": (b"{nope", "not a JSON document"),
}


@pytest.mark.parametrize("document,reason", REFUSALS.values(), ids=list(REFUSALS))
def test_refusal_says_why(document: Any, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(document if isinstance(document, bytes) else dump_json(document))
    refusal = get_adapter("anthropic").refusal(TraceSource(path))
    assert refusal is not None and reason in refusal


def test_forced_format_reads_a_text_only_list(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    _write(path, [{"role": "user", "content": "2+2?"}, {"role": "assistant", "content": "4"}])
    assert detect_format(TraceSource(path)).name == "openai"
    trace = load_trace(path, "anthropic")
    assert (trace.input, trace.final_output, trace.steps[0].provider) == ("2+2?", "4", "anthropic")


ERRORS: dict[str, tuple[Any, str, str]] = {
    "not a list": (42, "", "expected a list of messages"),
    "unknown role": ([{"role": "tool", "content": "x"}], "messages[0].role", "unknown role"),
    "content a number": ([{"role": "user", "content": 1}], "messages[0].content",
                         "a string or a list of content blocks"),
    "block not an object": ([{"role": "assistant", "content": ["hi"]}],
                            "messages[0].content[0]", "a block"),
    "tool_use without name": ([{"role": "assistant", "content": [{"type": "tool_use"}]}],
                              "messages[0].content[0].name", "non-empty string"),
    "result content a number": ([_results({"tool_use_id": "a", "content": 3})],
                                "messages[0].content[0].content", "a string or a list"),
    "message without role": ({"type": "message", "content": []}, "role", "unknown role"),
}


@pytest.mark.parametrize("document,location,message", ERRORS.values(), ids=list(ERRORS))
def test_bad_input_names_file_and_path(
    document: Any, location: str, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "broken.json"
    _write(path, document)
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path, "anthropic")
    assert caught.value.source == str(path)
    assert (caught.value.location or "") == location
    assert message in caught.value.message


JSON = json_values(
    [
        "role", "content", "type", "text", "thinking", "id", "name", "input", "tool_use_id",
        "is_error", "usage", "stop_reason", "model", "messages",
    ],
)
BLOCK = st.fixed_dictionaries(
    {"type": st.sampled_from(["text", "thinking", "tool_use", "tool_result",
                              "web_search_tool_result", "image", "other"])},
    optional={"text": JSON, "id": JSON, "name": JSON, "input": JSON, "tool_use_id": JSON,
              "content": JSON, "is_error": JSON, "thinking": JSON},
)
MESSAGE = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "system", "tool", None])},
    optional={"content": st.lists(BLOCK, max_size=3) | JSON, "usage": JSON, "type": JSON},
)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=JSON | st.lists(MESSAGE, max_size=4))
def test_any_input_gives_a_trace_or_our_error(document: Any) -> None:
    try:
        trace = from_anthropic_messages(document)
    except OpenEvalError:
        return
    assert AgentTrace.from_dict(trace.to_dict()) == trace


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(PRODUCERS)),
       path=st.lists(st.integers(min_value=0, max_value=50), max_size=6),
       replacement=JSON)
def test_mutated_golden_files_give_a_trace_or_our_error(
    name: str, path: list[int], replacement: Any, tmp_path: Path
) -> None:
    document = orjson.loads((DATA / f"{name}.json").read_bytes())
    mutated = tmp_path / "mutated.json"
    _write(mutated, replace_at(document, path, replacement))
    assert_reads_or_refuses("anthropic", mutated)


# --- the example case ---------------------------------------------------------------------------


def test_example_trace_is_what_the_sdk_produces() -> None:
    assert orjson.loads((EXAMPLE / "trace.json").read_bytes()) == produce_tool_loop()


def test_example_case_passes_every_metric() -> None:
    trace = load_trace(EXAMPLE / "trace.json")
    case = EvalTestCase.from_dict(orjson.loads((EXAMPLE / "testcase.json").read_bytes()))
    results = [metric.score(trace, case) for metric in all_metrics()]
    assert [r for r in results if r.passed is False] == []
    assert any(r.passed for r in results)

"""The OpenAI adapter, against conversations produced by the real ``openai`` SDK.

The golden inputs under ``tests/data/adapters/openai/`` are made here: a small agent loop drives
``openai.OpenAI`` (Chat Completions and Responses) over an in-process HTTP transport that plays
back scripted server replies, keeps the SDK's own response objects in its history exactly as
the OpenAI cookbook loops do, and saves that history as JSON. Rewrite the goldens with
``OPENEVAL_REGEN_GOLDEN=1 .venv/bin/pytest tests/adapters/test_adapter_openai.py``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import orjson
import pytest
from fuzzing import assert_reads_or_refuses, json_values, replace_at
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai.types.chat import ChatCompletion, ChatCompletionMessage
from openai.types.responses import Response, ResponseFunctionToolCall
from run_profile import examples

from openeval.adapters import detect_format, from_openai_messages, get_adapter, load_trace
from openeval.adapters.base import TraceSource
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.jsonio import dump_json
from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).parent.parent / "data" / "adapters" / "openai"
EXAMPLE = Path(__file__).parents[2] / "examples" / "quickstart" / "04-openai-chat"
CREATED = 1_795_000_000  # a fixed clock, so regenerated goldens never change

# --- the producer: the real SDK over a scripted transport -------------------------------------


def _client(replies: list[dict[str, Any]]) -> openai.OpenAI:
    """Return an OpenAI client whose server answers each request with the next reply."""
    queue = list(replies)

    def serve(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json=queue.pop(0))

    transport = httpx.MockTransport(serve)
    return openai.OpenAI(
        api_key="sk-test", base_url="http://openai.test/v1",
        http_client=httpx.Client(transport=transport), max_retries=0,
    )


def _completion(
    n: int, message: dict[str, Any], finish: str, usage: dict[str, Any]
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": CREATED + n,
        "model": "gpt-4o-2024-08-06", "system_fingerprint": "fp_test",
        "choices": [{"index": 0, "message": {"role": "assistant", **message},
                     "finish_reason": finish, "logprobs": None}],
        "usage": usage,
    }


def _tool_call(call_id: str, name: str, arguments: str) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


WEATHER = {"Paris": "18 C, light rain", "Tokyo": "24 C, clear"}


def _dump(history: list[Any]) -> list[Any]:
    """Save a history the way users log one: SDK objects dumped, dicts kept."""
    return [
        item.model_dump(mode="json", exclude_none=True) if hasattr(item, "model_dump") else item
        for item in history
    ]


def produce_chat_parallel_tools() -> Any:
    """Two parallel calls whose results come back in reverse order, then an answer."""
    client = _client([
        _completion(1, {"content": None, "tool_calls": [
            _tool_call("call_paris", "get_weather", '{"city": "Paris"}'),
            _tool_call("call_tokyo", "get_weather", '{"city": "Tokyo", "unit": "C"}'),
        ]}, "tool_calls", {"prompt_tokens": 82, "completion_tokens": 41, "total_tokens": 123,
                           "prompt_tokens_details": {"cached_tokens": 64}}),
        _completion(2, {"content": "Paris: 18 C, light rain. Tokyo: 24 C, clear."}, "stop",
                    {"prompt_tokens": 160, "completion_tokens": 19, "total_tokens": 179,
                     "completion_tokens_details": {"reasoning_tokens": 0}}),
    ])
    history: list[Any] = [
        {"role": "system", "content": "You are a weather assistant."},
        {"role": "user", "content": "What is the weather in Paris and in Tokyo?"},
    ]
    reply = client.chat.completions.create(model="gpt-4o", messages=history)
    message = reply.choices[0].message
    history.append(message)
    for call in reversed(message.tool_calls or []):
        city = orjson.loads(call.function.arguments)["city"]  # type: ignore[union-attr]
        history.append({"role": "tool", "tool_call_id": call.id, "content": WEATHER[city]})
    answer = client.chat.completions.create(model="gpt-4o", messages=history)
    history.append(answer.choices[0].message)
    return {"task_id": "weather-two-cities", "messages": _dump(history),
            "actual_state": {"cities_checked": 2}}


def produce_chat_completion_log() -> Any:
    """A history that logs whole ChatCompletion responses (so model and usage survive),
    with a legacy function_call whose arguments are broken JSON, then a corrected retry."""
    client = _client([
        _completion(1, {"content": "Booking now.", "function_call": {
            "name": "book_table", "arguments": '{"restaurant": "Chez Nous", "seats": 2'}},
            "function_call", {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62}),
        _completion(2, {"content": None, "tool_calls": [
            _tool_call("call_2", "book_table", '{"restaurant": "Chez Nous", "seats": 2}')]},
            "tool_calls", {"prompt_tokens": 75, "completion_tokens": 15, "total_tokens": 90}),
        _completion(3, {"content": "Your table for 2 at Chez Nous is booked."}, "stop",
                    {"prompt_tokens": 99, "completion_tokens": 11, "total_tokens": 110}),
    ])
    history: list[Any] = [{"role": "user", "content": [
        {"type": "text", "text": "Book a table for two at Chez Nous."}]}]
    log: list[Any] = list(history)
    first = client.chat.completions.create(model="gpt-4o", messages=history)
    log.append(first)
    log.append({"role": "function", "name": "book_table",
                "content": "error: arguments could not be parsed"})
    second = client.chat.completions.create(model="gpt-4o", messages=history)
    log.append(second)
    call = (second.choices[0].message.tool_calls or [])[0]
    log.append({"role": "tool", "tool_call_id": call.id,
                "content": [{"type": "text", "text": "confirmed: booking B-77"}]})
    log.append(client.chat.completions.create(model="gpt-4o", messages=history))
    return _dump(log)


def _response(n: int, output: list[dict[str, Any]], usage: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": f"resp_{n}", "object": "response", "created_at": CREATED + n,
        "completed_at": CREATED + n + 1.25, "status": "completed", "model": "o4-mini-2025-04-16",
        "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": usage, "error": None, "incomplete_details": None,
    }


def _usage(i: int, o: int, cached: int, reasoning: int) -> dict[str, Any]:
    return {"input_tokens": i, "output_tokens": o, "total_tokens": i + o,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": reasoning}}


def produce_responses_items() -> Any:
    """The Responses agent loop: reasoning + a call, its output by call_id, then an answer."""
    client = _client([
        _response(1, [
            {"type": "reasoning", "id": "rs_1", "summary": [
                {"type": "summary_text", "text": "Look up the order before refunding."}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_A", "name": "get_order",
             "arguments": '{"order_id": "A-1009"}', "status": "completed"},
            {"type": "function_call", "id": "fc_2", "call_id": "call_B", "name": "refund",
             "arguments": '["A-1009"]', "status": "completed"},
        ], _usage(120, 70, 0, 48)),
        _response(2, [
            {"type": "message", "id": "msg_2", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "Order A-1009 was refunded.",
                          "annotations": []}]},
        ], _usage(210, 16, 128, 0)),
    ])
    items: list[Any] = [{"role": "user", "content": "Refund order A-1009."}]
    first = client.responses.create(model="o4-mini", input=items)
    items += first.output
    outputs = {"call_A": '{"status": "delivered"}', "call_B": "refunded"}
    for item in reversed(first.output):
        if isinstance(item, ResponseFunctionToolCall):
            items.append({"type": "function_call_output", "call_id": item.call_id,
                          "output": outputs[item.call_id]})
    items += client.responses.create(model="o4-mini", input=items).output
    return _dump(items)


def produce_response_object() -> Any:
    """One whole Response: a web search, then the answer, as ``response.model_dump_json()``."""
    client = _client([_response(7, [
        {"type": "web_search_call", "id": "ws_1", "status": "completed",
         "action": {"type": "search", "query": "openeval release date"}},
        {"type": "message", "id": "msg_7", "role": "assistant", "status": "completed",
         "content": [{"type": "output_text", "text": "It was released today.",
                      "annotations": []}]},
    ], _usage(30, 9, 0, 0))])
    response = client.responses.create(model="o4-mini", input="When was openeval released?")
    return orjson.loads(response.model_dump_json())


def produce_chat_second_request() -> Any:
    """A narration with a call, an answer, a second user request, and an empty last turn."""
    client = _client([
        _completion(1, {"content": "I'll refund order 1042 now.", "tool_calls": [
            _tool_call("call_r1", "refund", '{"order_id": 1042, "amount": 10}')]},
            "tool_calls", {"prompt_tokens": 40, "completion_tokens": 20, "total_tokens": 60}),
        _completion(2, {"content": "Refunded 10 EUR on order 1042."}, "stop",
                    {"prompt_tokens": 70, "completion_tokens": 9, "total_tokens": 79}),
        _completion(3, {"content": None, "tool_calls": [
            _tool_call("call_r2", "refund", '{"order_id": 1042, "amount": 1}')]},
            "tool_calls", {"prompt_tokens": 95, "completion_tokens": 18, "total_tokens": 113}),
        _completion(4, {"content": ""}, "stop",
                    {"prompt_tokens": 120, "completion_tokens": 0, "total_tokens": 120}),
    ])
    history: list[Any] = [
        {"role": "system", "content": "You are a refunds agent."},
        {"role": "user", "content": "Refund 10 EUR on order 1042."},
    ]

    def turn() -> Any:
        message = client.chat.completions.create(model="gpt-4o", messages=history).choices[0]
        history.append(message.message)
        for call in message.message.tool_calls or []:
            history.append({"role": "tool", "tool_call_id": call.id, "content": "refunded"})
        return message

    turn()
    turn()
    history.append({"role": "user", "content": "Actually, make it 11 instead."})
    turn()
    turn()
    return {"task_id": "refund-1042", "messages": _dump(history)}


PRODUCERS: dict[str, Callable[[], Any]] = {
    "chat_second_request": produce_chat_second_request,
    "chat_parallel_tools": produce_chat_parallel_tools,
    "chat_completion_log": produce_chat_completion_log,
    "responses_items": produce_responses_items,
    "response_object": produce_response_object,
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
    _write(EXAMPLE / "trace.json", produce_chat_parallel_tools())


# --- goldens ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_golden_file_normalises_to_expected(name: str) -> None:
    trace = load_trace(DATA / f"{name}.json")
    assert detect_format(TraceSource(DATA / f"{name}.json")).name == "openai"
    expected = orjson.loads((DATA / f"{name}.expected.json").read_bytes())
    assert trace.to_dict() == expected


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_sdk_still_produces_the_golden(name: str, tmp_path: Path) -> None:
    fresh = tmp_path / f"{name}.json"
    _write(fresh, PRODUCERS[name]())
    expected = orjson.loads((DATA / f"{name}.expected.json").read_bytes())
    assert load_trace(fresh).to_dict() == expected


def _golden(name: str) -> AgentTrace:
    return load_trace(DATA / f"{name}.json")


def test_parallel_results_pair_by_id_not_position() -> None:
    trace = _golden("chat_parallel_tools")
    calls = trace.tool_calls()
    assert [(c.tool_args, c.tool_result) for c in calls] == [
        ({"city": "Paris"}, "18 C, light rain"),
        ({"city": "Tokyo", "unit": "C"}, "24 C, clear"),
    ]
    assert [s.type for s in trace.steps] == ["thought", "tool_call", "tool_call", "thought"]
    assert [s.step_id for s in trace.steps] == [1, 2, 3, 4]
    assert trace.task_id == "weather-two-cities"
    assert trace.actual_state == {"cities_checked": 2}
    assert trace.input == "What is the weather in Paris and in Tokyo?"
    assert trace.final_output == "Paris: 18 C, light rain. Tokyo: 24 C, clear."


def test_every_turn_is_kept_and_the_last_one_is_the_answer() -> None:
    trace = _golden("chat_second_request")
    assert [(m.role, m.content) for m in trace.messages if m.role in ("system", "user")] == [
        ("system", "You are a refunds agent."),
        ("user", "Refund 10 EUR on order 1042."),
        ("user", "Actually, make it 11 instead."),
    ]
    assert trace.input == "Refund 10 EUR on order 1042."
    # The last turn said nothing: no earlier text is promoted to the answer.
    assert trace.final_output == ""
    assert [(s.type, s.turn) for s in trace.steps] == [
        ("thought", 0), ("tool_call", 0), ("thought", 1), ("thought", 2), ("tool_call", 2),
        ("thought", 3),
    ]
    assert [m.turn for m in trace.messages if m.role == "assistant"] == [0, 1, 2, 3]
    assert [m.name for m in trace.messages if m.role == "tool"] == ["refund", "refund"]


def test_whole_completions_keep_model_usage_and_finish_reason() -> None:
    trace = _golden("chat_completion_log")
    thoughts = [s for s in trace.steps if s.type == "thought"]
    assert [t.finish_reason for t in thoughts] == ["function_call", "tool_calls", "stop"]
    assert {t.model for t in thoughts} == {"gpt-4o-2024-08-06"}
    assert {t.provider for t in thoughts} == {"openai"}
    assert thoughts[0].tokens == {"input": 50, "output": 12}
    assert thoughts[0].timestamp == CREATED + 1
    broken, fixed = trace.tool_calls()
    assert broken.tool_args is None
    assert broken.content == '{"restaurant": "Chez Nous", "seats": 2'
    assert broken.error is not None and broken.error.startswith("arguments are not a JSON object")
    assert broken.tool_result == "error: arguments could not be parsed"
    assert fixed.tool_result == "confirmed: booking B-77" and fixed.error is None
    assert trace.input == "Book a table for two at Chez Nous."
    assert trace.task_id == "chat_completion_log"  # the file's stem


def test_responses_items_pair_by_call_id() -> None:
    trace = _golden("responses_items")
    assert [s.type for s in trace.steps] == ["thought", "thought", "tool_call", "tool_call",
                                            "thought"]
    assert trace.steps[0].content == "Look up the order before refunding."
    get_order, refund = trace.tool_calls()
    assert get_order.tool_result == '{"status": "delivered"}'
    assert refund.tool_args is None and refund.content == '["A-1009"]'
    assert refund.error == "arguments are not a JSON object: got a list"
    assert refund.tool_result == "refunded"
    assert trace.final_output == "Order A-1009 was refunded."


def test_whole_response_keeps_usage_latency_and_builtin_calls() -> None:
    trace = _golden("response_object")
    search, thought = trace.steps  # recorded order: the search ran before the message
    assert thought.tokens == {"input": 30, "output": 9, "cache_read": 0, "cache_write": 0,
                              "reasoning": 0}
    assert thought.latency_ms == 1250.0
    assert thought.finish_reason == "stop"  # the search ran server-side
    assert thought.model == "o4-mini-2025-04-16"
    assert search.tool_name == "web_search"
    assert search.tool_args == {"type": "search", "query": "openeval release date"}
    assert trace.final_output == "It was released today."


# --- SDK objects straight from Python -----------------------------------------------------------


def test_sdk_objects_convert_without_json() -> None:
    completion = ChatCompletion.model_validate(_completion(
        1, {"content": "Hi there."}, "stop",
        {"prompt_tokens": 5, "completion_tokens": 3, "total_tokens": 8}))
    trace = from_openai_messages(completion, task_id="greet")
    assert trace.task_id == "greet"
    assert trace.final_output == "Hi there."
    assert trace.steps[0].tokens == {"input": 5, "output": 3}
    response = Response.model_validate(_response(1, [
        {"type": "function_call", "call_id": "c1", "name": "ping", "arguments": "{}"}],
        _usage(1, 1, 0, 0)))
    assert from_openai_messages(response).tool_calls()[0].tool_args == {}


def test_mixed_dicts_and_sdk_objects_in_one_list() -> None:
    message = ChatCompletionMessage.model_validate({"role": "assistant", "tool_calls": [
        _tool_call("c1", "search", '{"q": "x"}')]})
    call = ResponseFunctionToolCall(type="function_call", call_id="c2", name="fetch",
                                    arguments='{"url": "u"}')
    trace = from_openai_messages([
        {"role": "user", "content": "go"}, message,
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        call, {"type": "function_call_output", "call_id": "c2", "output": "page"},
    ], final_output="done", actual_state={"ok": True})
    assert [(c.tool_name, c.tool_result) for c in trace.tool_calls()] == [
        ("search", "found"), ("fetch", "page")]
    assert trace.final_output == "done" and trace.actual_state == {"ok": True}


# --- pairing and argument rules, as a table -----------------------------------------------------

CALL = {"role": "assistant", "tool_calls": [_tool_call("a", "f", "{}"), _tool_call("b", "g", "{}")]}

PAIRING_CASES: dict[str, tuple[list[Any], list[tuple[str, str | None, str | None]]]] = {
    "by id, reversed": (
        [CALL, {"role": "tool", "tool_call_id": "b", "content": "B"},
         {"role": "tool", "tool_call_id": "a", "content": "A"}],
        [("tool_call", "f", "A"), ("tool_call", "g", "B")]),
    "no id: by order": (
        [CALL, {"role": "tool", "content": "first"}, {"role": "tool", "content": "second"}],
        [("tool_call", "f", "first"), ("tool_call", "g", "second")]),
    "unknown id: own step": (
        [CALL, {"role": "tool", "tool_call_id": "zzz", "content": "stray"}],
        [("tool_call", "f", None), ("tool_call", "g", None), ("tool_result", None, "stray")]),
    "result before any call": (
        [{"role": "tool", "tool_call_id": "a", "content": "early"}],
        [("tool_result", None, "early")]),
    "second result for one id": (
        [CALL, {"role": "tool", "tool_call_id": "a", "content": "1"},
         {"role": "tool", "tool_call_id": "a", "content": "2"}],
        [("tool_call", "f", "1"), ("tool_call", "g", None), ("tool_result", None, "2")]),
    "legacy function result by name": (
        [{"role": "assistant", "function_call": {"name": "f", "arguments": "{}"}},
         {"role": "function", "name": "f", "content": "ok"}],
        [("tool_call", "f", "ok")]),
}


@pytest.mark.parametrize("messages,expected", PAIRING_CASES.values(), ids=list(PAIRING_CASES))
def test_pairing(messages: list[Any], expected: list[tuple[str, str | None, str | None]]) -> None:
    steps = [s for s in from_openai_messages(messages).steps if s.type != "thought"]
    assert [(s.type, s.tool_name, s.tool_result) for s in steps] == expected


ARGUMENT_CASES: dict[str, tuple[Any, dict[str, Any] | None, str, str | None]] = {
    "object": ('{"a": 1}', {"a": 1}, "", None),
    "empty text": ("", {}, "", None),
    "invalid JSON": ('{"a": ', None, '{"a": ', "invalid JSON"),
    "a list": ("[1, 2]", None, "[1, 2]", "got a list"),
    "a number": ("42", None, "42", "got a number"),
    "a JSON string": ('"hi"', None, '"hi"', "got a string"),
    "not text at all": (7, None, "7", "got a number"),
}


@pytest.mark.parametrize(
    "arguments,args,content,error", ARGUMENT_CASES.values(), ids=list(ARGUMENT_CASES)
)
def test_arguments_rule(arguments: Any, args: Any, content: str, error: str | None) -> None:
    messages = [{"role": "assistant", "tool_calls": [_tool_call("x", "t", arguments)]}]
    (step,) = from_openai_messages(messages).tool_calls()
    assert (step.tool_args, step.content) == (args, content)
    if error is None:
        assert step.error is None
    else:
        assert step.error is not None
        assert step.error.startswith("arguments are not a JSON object: ") and error in step.error


# --- detection and errors -----------------------------------------------------------------------

DETECTION_CASES: dict[str, tuple[Any, str]] = {
    "plain text list goes to openai": (
        [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}], "openai"),
    "wrapped list": ({"task_id": "t", "messages": [{"role": "user", "content": "hi"}]}, "openai"),
    "anthropic blocks": (
        [{"role": "assistant", "content": [{"type": "tool_use", "id": "t", "name": "f",
                                            "input": {}}]}], "anthropic"),
    "native trace": ({"task_id": "t", "steps": []}, "native"),
}


@pytest.mark.parametrize("document,fmt", DETECTION_CASES.values(), ids=list(DETECTION_CASES))
def test_detection(document: Any, fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    _write(path, document)
    assert detect_format(TraceSource(path)).name == fmt


REFUSALS: dict[str, tuple[Any, str]] = {
    "object without a kind": ({"foo": 1}, "no chat.completion"),
    "empty list": ([], "empty list"),
    "list of numbers": ([1, 2], "item 0 is not a JSON object"),
    "unknown item type": ([{"type": "human", "content": "x"}], "unknown type"),
    "anthropic blocks": ([{"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t", "content": "x"}]}], "Anthropic"),
}


@pytest.mark.parametrize("document,reason", REFUSALS.values(), ids=list(REFUSALS))
def test_refusal_says_why(document: Any, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "trace.json"
    _write(path, document)
    refusal = get_adapter("openai").refusal(TraceSource(path))
    assert refusal is not None and reason in refusal


ERRORS: dict[str, tuple[Any, str, str]] = {
    "not a list": ("hello", "", "expected a list of messages"),
    "item not an object": ([{"role": "user", "content": "x"}, 3], "messages[1]", "a message"),
    "unknown role": ([{"role": "robot", "content": "x"}], "messages[0].role", "unknown role"),
    "content a number": ([{"role": "user", "content": 5}], "messages[0].content",
                         "a string or a list of content parts"),
    "tool_calls not a list": ([{"role": "assistant", "tool_calls": {}}],
                              "messages[0].tool_calls", "a JSON list"),
    "call without name": ([{"role": "assistant", "tool_calls": [{"id": "a", "function": {}}]}],
                          "messages[0].tool_calls[0].function.name", "non-empty string"),
    "completion without choices": ({"object": "chat.completion", "choices": []}, "choices",
                                   "at least one choice"),
    "response output not a list": ({"object": "response", "output": 1}, "output", "output items"),
    "function_call without name": ([{"type": "function_call", "call_id": "c"}],
                                   "messages[0].name", "non-empty string"),
}


@pytest.mark.parametrize("document,location,message", ERRORS.values(), ids=list(ERRORS))
def test_bad_input_names_file_and_path(
    document: Any, location: str, message: str, tmp_path: Path
) -> None:
    path = tmp_path / "broken.json"
    _write(path, document)
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path, "openai")
    assert caught.value.source == str(path)
    assert (caught.value.location or "") == location
    assert message in caught.value.message


def test_unknown_python_object_is_a_format_error() -> None:
    with pytest.raises(TraceFormatError, match=r"messages\[0\]: expected a dict"):
        from_openai_messages([object()])


JSON = json_values(
    [
        "role", "content", "tool_calls", "function", "arguments", "name", "id", "type",
        "tool_call_id", "call_id", "output", "object", "choices", "message", "text", "summary",
        "usage", "function_call", "messages",
    ],
    floats=True,
)
ROLES = st.sampled_from(["user", "assistant", "tool", "system", "function", "robot", None])


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=JSON | st.lists(st.fixed_dictionaries({"role": ROLES}, optional={
    "content": JSON, "tool_calls": JSON, "tool_call_id": JSON, "function_call": JSON})))
def test_any_input_gives_a_trace_or_our_error(document: Any) -> None:
    try:
        trace = from_openai_messages(document)
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
    assert_reads_or_refuses("openai", mutated)


# --- the example case ---------------------------------------------------------------------------


def test_example_trace_is_what_the_sdk_produces() -> None:
    assert orjson.loads((EXAMPLE / "trace.json").read_bytes()) == produce_chat_parallel_tools()


def test_example_case_passes_every_metric() -> None:
    trace = load_trace(EXAMPLE / "trace.json")
    case = EvalTestCase.from_dict(orjson.loads((EXAMPLE / "testcase.json").read_bytes()))
    results = [metric.score(trace, case) for metric in all_metrics()]
    assert [r for r in results if r.passed is False] == []
    assert any(r.passed for r in results)

"""The OpenTelemetry GenAI adapter, against spans made by the real OpenTelemetry SDK.

The golden inputs under ``tests/data/adapters/otel/`` are produced here by ``opentelemetry-sdk``
and written with the OTLP protobuf encoder (proto-JSON, base64 ids, as the collector's file
exporter writes) or in the OTLP/JSON spec form (hex ids, numeric enums). Rewrite them with
``OPENEVAL_REGEN_GOLDEN=1 .venv/bin/pytest tests/adapters/test_adapter_otel.py``.
"""

from __future__ import annotations

import base64
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from google.protobuf.json_format import MessageToDict, MessageToJson
from opentelemetry import trace as otel_trace
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import Status, StatusCode

from openeval.adapters import detect_format, from_otel_spans, load_trace
from openeval.adapters.base import TraceSource
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json
from openeval.models import AgentTrace

DATA = Path(__file__).parent.parent / "data" / "adapters" / "otel"
T0 = 1_795_000_000_000_000_000  # a fixed start, in ns, so goldens never change
MS = 1_000_000


class _CountingIds(IdGenerator):
    """Deterministic ids, so regenerated spans are identical run after run."""

    def __init__(self) -> None:
        self._span = 0x1000
        self._trace = 0xABC000

    def generate_span_id(self) -> int:
        self._span += 1
        return self._span

    def generate_trace_id(self) -> int:
        self._trace += 1
        return self._trace


class _Recorder:
    """A tracer over an in-memory exporter, with spans placed at fixed times."""

    def __init__(self, service: str) -> None:
        self.exporter = InMemorySpanExporter()
        provider = TracerProvider(
            resource=Resource({"service.name": service}), id_generator=_CountingIds()
        )
        provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.tracer = provider.get_tracer("openeval.tests", "1.0")

    def span(
        self,
        name: str,
        start_ms: int,
        end_ms: int,
        attrs: dict[str, Any],
        *,
        parent: otel_trace.Span | None = None,
        error: str | None = None,
    ) -> otel_trace.Span:
        context = otel_trace.set_span_in_context(parent) if parent is not None else None
        span = self.tracer.start_span(
            name, context=context, start_time=T0 + start_ms * MS, attributes=attrs
        )
        if error is not None:
            exc = RuntimeError(error)
            span.record_exception(exc, timestamp=T0 + end_ms * MS)
            span.set_status(Status(StatusCode.ERROR, error))
            span.set_attribute("error.type", "RuntimeError")
        return span

    def finished(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())


def _end(span: otel_trace.Span, end_ms: int) -> None:
    span.end(end_time=T0 + end_ms * MS)


def _msgs(*messages: dict[str, Any]) -> str:
    return orjson.dumps(list(messages)).decode()


def _text(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def weather_agent_spans() -> list[ReadableSpan]:
    """An agent that looks up the weather: agent, two chat turns, one tool, one HTTP span."""
    rec = _Recorder("weather-bot")
    question = _text("user", "What is the weather in Paris?")
    call = {"type": "tool_call", "id": "call_1", "name": "get_weather",
            "arguments": {"city": "Paris"}}
    answer = _text("assistant", "It is 18 C and sunny in Paris.")
    answer["finish_reason"] = "stop"
    agent = rec.span("invoke_agent weather-bot", 0, 900, {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "weather-bot",
        "gen_ai.provider.name": "openai",
        "gen_ai.input.messages": _msgs(question),
        "gen_ai.output.messages": _msgs(answer),
    })
    chat1 = rec.span("chat gpt-4o", 10, 300, {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.response.finish_reasons": ("tool_call",),
        "gen_ai.usage.input_tokens": 52,
        "gen_ai.usage.output_tokens": 17,
        "gen_ai.request.temperature": 0.2,
        "gen_ai.input.messages": _msgs(question),
        "gen_ai.output.messages": _msgs(
            {"role": "assistant", "parts": [call], "finish_reason": "tool_call"}
        ),
    }, parent=agent)
    http = rec.span("POST", 20, 280, {"http.request.method": "POST"}, parent=chat1)
    _end(http, 280)
    _end(chat1, 300)
    tool = rec.span("execute_tool get_weather", 310, 420, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "get_weather",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
        "gen_ai.tool.call.arguments": '{"city": "Paris"}',
        "gen_ai.tool.call.result": '{"temp_c": 18, "sky": "sunny"}',
    }, parent=agent)
    _end(tool, 420)
    chat2 = rec.span("chat gpt-4o", 430, 880, {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o",
        "gen_ai.response.model": "gpt-4o-2024-08-06",
        "gen_ai.response.finish_reasons": ("stop",),
        "gen_ai.usage.input_tokens": 90,
        "gen_ai.usage.output_tokens": 12,
        "gen_ai.input.messages": _msgs(
            question,
            {"role": "assistant", "parts": [call]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "call_1",
                                        "response": {"temp_c": 18, "sky": "sunny"}}]},
        ),
        "gen_ai.output.messages": _msgs(answer),
    }, parent=agent)
    _end(chat2, 880)
    _end(agent, 900)
    return rec.finished()


def refund_errors_spans() -> list[ReadableSpan]:
    """Older attributes (gen_ai.system), a failing tool, bad arguments, opt-in content off."""
    rec = _Recorder("refund-agent")
    # An agent span with content capture off: input and output come from the chat spans.
    agent = rec.span("invoke_agent refund-agent", 0, 600, {
        "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "refund-agent"})
    chat1 = rec.span("chat claude-sonnet-4", 0, 200, {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4",
        "gen_ai.response.finish_reasons": ("tool_use",),
        "gen_ai.usage.input_tokens": 40,
        "gen_ai.usage.output_tokens": 30,
        "gen_ai.input.messages": _msgs(_text("user", "Refund order 42")),
        "gen_ai.output.messages": _msgs({"role": "assistant", "parts": [
            {"type": "tool_call", "id": "toolu_a", "name": "lookup_order",
             "arguments": {"order_id": 42}},
            {"type": "tool_call", "id": "toolu_b", "name": "issue_refund",
             "arguments": {"order_id": 42, "amount": 19.5}},
        ], "finish_reason": "tool_call"}),
    }, parent=agent)
    _end(chat1, 200)
    # Content capture off: no arguments or result on this span; they come from the messages.
    lookup = rec.span("execute_tool lookup_order", 210, 250, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "lookup_order",
        "gen_ai.tool.call.id": "toolu_a",
    }, parent=agent)
    _end(lookup, 250)
    refund = rec.span("execute_tool issue_refund", 260, 300, {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "issue_refund",
        "gen_ai.tool.call.id": "toolu_b",
        "gen_ai.tool.call.arguments": '{"order_id": 42, "amount": 19.5}',
    }, parent=agent, error="payment gateway timeout")
    _end(refund, 300)
    chat2 = rec.span("chat claude-sonnet-4", 310, 500, {
        "gen_ai.operation.name": "chat",
        "gen_ai.system": "anthropic",
        "gen_ai.request.model": "claude-sonnet-4",
        "gen_ai.response.finish_reasons": ("end_turn",),
        "gen_ai.input.messages": _msgs(
            _text("user", "Refund order 42"),
            {"role": "tool", "parts": [
                {"type": "tool_call_response", "id": "toolu_a",
                 "response": {"status": "delivered"}}]},
        ),
        "gen_ai.output.messages": _msgs(
            {"role": "assistant", "parts": [
                {"type": "text", "content": "Retrying the refund."}], "finish_reason": "stop"}
        ),
    }, parent=agent)
    _end(chat2, 500)
    retry = rec.span("execute_tool issue_refund", 510, 560, {
        "gen_ai.tool.name": "issue_refund",
        "gen_ai.tool.call.id": "toolu_c",
        "gen_ai.tool.call.arguments": "[42, 19.5]",
        "gen_ai.tool.call.result": "refund queued",
    }, parent=agent)
    _end(retry, 560)
    _end(agent, 600)
    return rec.finished()


def messages_only_spans() -> list[ReadableSpan]:
    """An instrumentation that traces model calls but not tool executions, inside the web
    framework's request span (which holds the two calls in one trace)."""
    rec = _Recorder("search-bot")
    request = rec.span("POST /search", 0, 260, {"http.request.method": "POST"})
    ask = _text("user", "Find the OpenEval docs")
    call = {"type": "tool_call", "id": "c9", "name": "web_search",
            "arguments": '{"q": "openeval docs"}'}
    chat1 = rec.span("chat gpt-4o-mini", 0, 100, {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": _msgs(ask),
        "gen_ai.output.messages": _msgs(
            {"role": "assistant", "parts": [call], "finish_reason": "tool_call"}),
    }, parent=request)
    _end(chat1, 100)
    chat2 = rec.span("chat gpt-4o-mini", 150, 250, {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.input.messages": _msgs(
            ask, {"role": "assistant", "parts": [call]},
            {"role": "tool", "parts": [{"type": "tool_call_response", "id": "c9",
                                        "response": "https://example.org/openeval"}]}),
        "gen_ai.output.messages": _msgs(
            {"role": "assistant", "parts": [
                {"type": "text", "content": "The docs are at https://example.org/openeval"}],
             "finish_reason": "stop"}),
    }, parent=request)
    _end(chat2, 250)
    _end(request, 260)
    return rec.finished()


# ----------------------------------------------------------------------------- writers


def proto_json(spans: list[ReadableSpan]) -> bytes:
    """What the collector's file exporter writes: protobuf JSON mapping (base64 ids)."""
    return MessageToJson(encode_spans(spans)).encode() + b"\n"


def _hex_ids(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: base64.b64decode(v).hex()
            if k in ("traceId", "spanId", "parentSpanId") and isinstance(v, str)
            else _hex_ids(v)
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_hex_ids(v) for v in node]
    return node


def otlp_json_lines(spans: list[ReadableSpan]) -> bytes:
    """The OTLP/JSON spec form (hex ids, numeric enums), one export batch per line."""
    lines = []
    for batch in (spans[: len(spans) // 2], spans[len(spans) // 2 :]):
        doc = MessageToDict(encode_spans(batch), use_integers_for_enums=True)
        lines.append(orjson.dumps(_hex_ids(doc)))
    return b"\n".join(lines) + b"\n"


Producer = Callable[[], list[ReadableSpan]]
Writer = Callable[[list[ReadableSpan]], bytes]
GOLDENS: dict[str, tuple[Producer, Writer]] = {
    "weather_agent.otlp.json": (weather_agent_spans, proto_json),
    "refund_errors.otlp.jsonl": (refund_errors_spans, otlp_json_lines),
    "messages_only.otlp.json": (messages_only_spans, proto_json),
}


def _expected_path(name: str) -> Path:
    return DATA / f"{name.split('.', 1)[0]}.expected.json"


if os.environ.get("OPENEVAL_REGEN_GOLDEN") == "1":
    DATA.mkdir(parents=True, exist_ok=True)
    for _name, (_produce, _write) in GOLDENS.items():
        (DATA / _name).write_bytes(_write(_produce()))
        _expected_path(_name).write_bytes(dump_json(load_trace(DATA / _name).to_dict()))


# ----------------------------------------------------------------------------- goldens


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_file_normalises_to_expected(name: str) -> None:
    trace = load_trace(DATA / name)
    assert dump_json(trace.to_dict()) == _expected_path(name).read_bytes()


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_regenerated_producer_output_still_matches_golden(name: str, tmp_path: Path) -> None:
    produce, write = GOLDENS[name]
    fresh = tmp_path / name
    fresh.write_bytes(write(produce()))
    assert dump_json(load_trace(fresh).to_dict()) == _expected_path(name).read_bytes()


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_sdk_spans_and_file_give_the_same_trace(name: str) -> None:
    produce, _ = GOLDENS[name]
    from_sdk = from_otel_spans(produce(), task_id=name.split(".", 1)[0])
    assert from_sdk == load_trace(DATA / name)


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_detected_as_otel(name: str) -> None:
    assert detect_format(TraceSource(DATA / name)).name == "otel"


# ----------------------------------------------------------------------------- mapping


@pytest.fixture(scope="module")
def weather() -> AgentTrace:
    return load_trace(DATA / "weather_agent.otlp.json")


@pytest.fixture(scope="module")
def refund() -> AgentTrace:
    return load_trace(DATA / "refund_errors.otlp.jsonl")


def test_weather_steps_in_time_order_and_http_dropped(weather: AgentTrace) -> None:
    assert [(s.step_id, s.type, s.tool_name) for s in weather.steps] == [
        (1, "thought", None), (2, "tool_call", "get_weather"), (3, "thought", None)
    ]
    assert weather.task_id == "weather_agent"
    assert weather.input == "What is the weather in Paris?"
    assert weather.final_output == "It is 18 C and sunny in Paris."
    assert weather.metadata["otel"] == {
        "agent_name": "weather-bot",
        "service_name": "weather-bot",
        "trace_ids": ["00000000000000000000000000abc001"],
    }


def test_weather_model_step_fields(weather: AgentTrace) -> None:
    first = weather.steps[0]
    assert (first.provider, first.model, first.finish_reason) == (
        "openai", "gpt-4o-2024-08-06", "tool_call"
    )
    assert first.tokens == {"input": 52, "output": 17}
    assert first.latency_ms == pytest.approx(290.0)
    assert first.timestamp == pytest.approx((T0 + 10 * MS) / 1e9)


def test_weather_tool_step_paired(weather: AgentTrace) -> None:
    tool = weather.steps[1]
    assert tool.tool_args == {"city": "Paris"}
    assert tool.tool_result == '{"temp_c": 18, "sky": "sunny"}'
    assert (tool.error, tool.denied) == (None, False)


def test_refund_content_from_messages_errors_and_bad_args(refund: AgentTrace) -> None:
    tools = refund.tool_calls()
    assert [t.tool_name for t in tools] == ["lookup_order", "issue_refund", "issue_refund"]
    lookup, failed, retry = tools
    assert lookup.tool_args == {"order_id": 42}
    assert lookup.tool_result == '{"status":"delivered"}'
    assert failed.error == "payment gateway timeout"
    assert failed.denied is False
    assert retry.tool_args is None
    assert retry.content == "[42, 19.5]"
    assert retry.error == "arguments are not a JSON object: got a list"
    assert refund.steps[0].provider == "anthropic"
    # A tool ran after the agent's last words: they were narration, not the answer.
    assert refund.final_output == ""
    assert refund.messages[-1].content == "Retrying the refund."
    assert refund.input == "Refund order 42"
    assert refund.metadata["otel"]["agent_name"] == "refund-agent"
    assert len(refund.metadata["otel"]["trace_ids"]) == 1


def test_messages_only_trace_takes_calls_from_messages() -> None:
    trace = load_trace(DATA / "messages_only.otlp.json")
    assert [s.type for s in trace.steps] == ["thought", "tool_call", "thought"]
    call = trace.steps[1]
    assert (call.tool_name, call.tool_args, call.tool_result) == (
        "web_search", {"q": "openeval docs"}, "https://example.org/openeval"
    )


def test_hex_and_base64_ids_give_the_same_trace(tmp_path: Path) -> None:
    spans = weather_agent_spans()
    b64 = tmp_path / "a.json"
    b64.write_bytes(proto_json(spans))
    hexed = tmp_path / "a.jsonl"
    hexed.write_bytes(orjson.dumps(_hex_ids(orjson.loads(proto_json(spans)))))
    assert load_trace(b64) == load_trace(hexed)


def test_wrapped_document_sets_task_and_state(tmp_path: Path) -> None:
    doc = orjson.loads(proto_json(weather_agent_spans()))
    wrapped = {"task_id": "paris", "actual_state": {"answered": True}, **doc}
    path = tmp_path / "wrapped.json"
    path.write_bytes(orjson.dumps(wrapped))
    trace = load_trace(path)
    assert (trace.task_id, trace.actual_state) == ("paris", {"answered": True})
    assert from_otel_spans(wrapped).task_id == "paris"


def test_entry_point_accepts_a_path(weather: AgentTrace) -> None:
    assert from_otel_spans(str(DATA / "weather_agent.otlp.json")) == weather
    assert from_otel_spans(DATA / "weather_agent.otlp.json", task_id="x").task_id == "x"


def test_ties_in_start_time_sort_by_span_id() -> None:
    def span(span_id: str, tool: str) -> dict[str, Any]:
        return {"traceId": "0" * 31 + "1", "spanId": span_id, "name": f"execute_tool {tool}",
                "startTimeUnixNano": "5", "endTimeUnixNano": "6"}
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": [
        span("00000000000000b0", "second"), span("00000000000000a0", "first")]}]}]}
    assert [s.tool_name for s in from_otel_spans(doc).steps] == ["first", "second"]


def _doc(span: dict[str, Any]) -> dict[str, Any]:
    base = {"traceId": "ab" * 16, "spanId": "cd" * 8, "name": "execute_tool t",
            "startTimeUnixNano": "1"}
    return {"resourceSpans": [{"scopeSpans": [{"spans": [{**base, **span}]}]}]}


SPAN = "resourceSpans[0].scopeSpans[0].spans[0]"


@pytest.mark.parametrize(
    ("document", "location", "words"),
    [
        (_doc({"spanId": "xyz"}), f"{SPAN}.spanId", "id of 8 bytes"),
        (_doc({"startTimeUnixNano": 1.5}), f"{SPAN}.startTimeUnixNano", "nanoseconds"),
        (_doc({"startTimeUnixNano": "9" * 25}), f"{SPAN}.startTimeUnixNano", "64-bit"),
        (_doc({"endTimeUnixNano": "\u00b2"}), f"{SPAN}.endTimeUnixNano", "nanoseconds"),
        (_doc({"attributes": [{"key": "a", "value": {"intValue": "9" * 19}}]}),
         f"{SPAN}.attributes[0].value.intValue", "64-bit integer"),
        (_doc({"attributes": [{"key": "a", "value": {"intValue": "x1"}}]}),
         f"{SPAN}.attributes[0].value.intValue", "integer"),
        (_doc({"attributes": [{"key": "a", "value": {"fooValue": 1}}]}),
         f"{SPAN}.attributes[0].value", "unknown value kind"),
        (_doc({"attributes": {"a": 1}}), f"{SPAN}.attributes", "key/value"),
        (_doc({"status": {"code": 7}}), f"{SPAN}.status.code", "status code"),
        ({"resourceSpans": [{"scopeSpans": {}}]}, "resourceSpans[0].scopeSpans", "a list"),
        ({"resourceSpans": 3}, "resourceSpans", "a list"),
        (_doc({"name": "chat m", "attributes": [
            {"key": "gen_ai.output.messages", "value": {"stringValue": "[{"}}]}),
         f"{SPAN}.attributes[gen_ai.output.messages]", "message list"),
    ],
)
def test_malformed_documents_name_the_place(
    tmp_path: Path, document: Any, location: str, words: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps(document))
    with pytest.raises(TraceFormatError) as info:
        load_trace(path, format="otel")
    assert info.value.source == str(path)
    assert info.value.location == location
    assert words in info.value.message


def test_jsonl_errors_name_the_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    good = orjson.dumps(_doc({}))
    path.write_bytes(good + b"\n" + orjson.dumps(_doc({"spanId": 5})) + b"\n")
    with pytest.raises(TraceFormatError) as info:
        load_trace(path, format="otel")
    assert info.value.location == f"line 2: {SPAN}.spanId"
    path.write_bytes(good + b"\n[1]\n")
    with pytest.raises(TraceFormatError, match="line 2"):
        load_trace(path, format="otel")


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b'{"steps": []}', "no 'resourceSpans' list"), (b"[1, 2]", "not a JSON object"),
     (b"\x00\x01garbage", "not a JSON object")],
)
def test_refusal_reasons(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(content)
    from openeval.adapters.otel import ADAPTER
    assert ADAPTER.refusal(TraceSource(path)) == reason


def test_adapter_module_imports_no_opentelemetry() -> None:
    import subprocess
    import sys

    code = (
        "import sys, openeval.adapters.otel as m; "
        "print(any(k.startswith('opentelemetry') for k in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def _iter_goldens() -> Iterator[Path]:
    yield from sorted(p for p in DATA.iterdir() if ".expected." not in p.name)


def test_every_golden_input_has_an_expected_file() -> None:
    assert {p.name for p in _iter_goldens()} == set(GOLDENS)


def test_zstd_compressed_jsonl_reads_the_same(tmp_path: Path, refund: AgentTrace) -> None:
    import zstandard

    compressor = zstandard.ZstdCompressor()
    lines = (DATA / "refund_errors.otlp.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "refund_errors.otlp.jsonl.zst"
    path.write_bytes(b"".join(compressor.compress(line) for line in lines))
    assert load_trace(path) == refund


def test_example_case_passes_every_metric() -> None:
    from openeval.metrics import all_metrics
    from openeval.testcase_file import load_test_case

    folder = Path(__file__).parent.parent.parent / "examples" / "quickstart" / "07-otel-spans"
    case = load_test_case(folder / "testcase.json")
    assert case.trace is not None
    trace = load_trace(folder / case.trace)
    results = [m.score(trace, case) for m in all_metrics()]
    assert [r.metric_name for r in results if r.passed is False] == []
    assert sum(r.passed is True for r in results) >= 6
    # OTel spans cannot mark a call denied or a step divergent: those two are n.a., not passes.
    na = {r.metric_name for r in results if r.passed is None}
    assert {"denial_recovery_rate", "divergence_score"} <= na


def test_root_agent_is_the_outermost_even_under_a_server_span() -> None:
    def agent(span_id: str, parent: str, start: str, answer: str) -> dict[str, Any]:
        out = orjson.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}])
        return {"traceId": "ab" * 16, "spanId": span_id, "parentSpanId": parent,
                "name": "invoke_agent", "startTimeUnixNano": start,
                "attributes": [{"key": "gen_ai.output.messages",
                                "value": {"stringValue": out.decode()}}]}
    spans = [agent("00000000000000b2", "00000000000000b1", "3", "inner"),
             agent("00000000000000b1", "00000000000000a1", "2", "outer"),
             {"traceId": "ab" * 16, "spanId": "00000000000000a1", "name": "POST /chat",
              "startTimeUnixNano": "1"}]
    doc = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    assert from_otel_spans(doc).final_output == "outer"


# ----------------------------------------------------------------------------- one trace per file


def two_trace_spans() -> list[ReadableSpan]:
    """Two agent runs exported together (two root spans, so two trace ids)."""
    rec = _Recorder("weather-bot")
    for start, city in ((0, "Paris"), (1000, "Oslo")):
        agent = rec.span("invoke_agent weather-bot", start, start + 50, {
            "gen_ai.operation.name": "invoke_agent",
            "gen_ai.input.messages": _msgs(_text("user", f"Weather in {city}?")),
        })
        tool = rec.span("execute_tool get_weather", start + 10, start + 20, {
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.arguments": orjson.dumps({"city": city}).decode(),
        }, parent=agent)
        _end(tool, start + 20)
        _end(agent, start + 50)
    return rec.finished()


def test_a_file_of_several_traces_is_refused_naming_how_many(tmp_path: Path) -> None:
    path = tmp_path / "two.otlp.json"
    path.write_bytes(proto_json(two_trace_spans()))
    with pytest.raises(TraceFormatError, match=r"holds 2 traces \(trace ids .*openeval score"):
        load_trace(path)
    with pytest.raises(TraceFormatError, match=r"holds 2 traces .*split_by_trace"):
        from_otel_spans(two_trace_spans())


def test_split_by_trace_gives_one_trace_per_trace_id() -> None:
    from openeval.adapters._toolkit import Errors
    from openeval.adapters.otel import split_by_trace
    from openeval.adapters.otel.otlp import spans_of_sdk

    groups = split_by_trace(spans_of_sdk(two_trace_spans(), Errors(None)))
    assert [len(group) for group in groups] == [2, 2]
    traces = [from_otel_spans(group) for group in groups]
    assert [t.input for t in traces] == ["Weather in Paris?", "Weather in Oslo?"]
    assert [t.tool_calls()[0].tool_args for t in traces] == [{"city": "Paris"}, {"city": "Oslo"}]
    assert groups[0][0].kind == "internal" and groups[0][0].status == "unset"


def test_entry_point_takes_the_shared_keywords() -> None:
    trace = from_otel_spans(
        weather_agent_spans(), task_id="paris", input="Paris?", final_output="Sunny.",
        actual_state={"answered": True}, metadata={"run": 3},
    )
    assert (trace.task_id, trace.input, trace.final_output) == ("paris", "Paris?", "Sunny.")
    assert trace.actual_state == {"answered": True}
    assert trace.metadata["run"] == 3 and "otel" in trace.metadata


def test_failed_tool_span_fails_its_step_and_keeps_the_event() -> None:
    from openeval.adapters._toolkit import Errors
    from openeval.adapters.otel.otlp import spans_of_sdk

    spans = spans_of_sdk(refund_errors_spans(), Errors(None))
    failed = next(s for s in spans if s.failed)
    assert failed.status_message == "payment gateway timeout"
    assert [e.name for e in failed.events] == ["exception"]
    step = from_otel_spans(refund_errors_spans()).tool_calls()[1]
    assert (step.tool_name, step.error) == ("issue_refund", "payment gateway timeout")

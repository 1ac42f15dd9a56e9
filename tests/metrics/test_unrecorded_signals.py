"""What a trace could not record is said, not passed off as the agent's doing (issue 7 item 6).

The OpenTelemetry spans are made by the real SDK, with the attributes
``opentelemetry-instrumentation-openai-v2`` writes by default: content capture off, so the chat
spans keep model, tokens and finish reasons and no message, and there is no ``execute_tool``
span. A test case expecting tools must not read "not called" alone, and one expecting a final
state from a format that records none must say so.
"""

from __future__ import annotations

from typing import Any

from opentelemetry import trace as otel_trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from openeval.adapters import from_otel_spans
from openeval.models import AgentTrace, EvalTestCase
from openeval.scoring import compile_plan, score

NO_CONTENT = (
    "this trace holds no message content, so it cannot show which tools were called; "
    "1 model turn(s) ended asking for tools: enable content capture with "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true (or record execute_tool spans) "
    "and record the run again"
)
NO_STATE = (
    "the trace holds no final state (message lists, span exports and Fixtura recordings "
    'record none): wrap the trace file as {"actual_state": {...}, <its payload key>: ...} or '
    "pass actual_state= to its from_* reader"
)


def _chat_spans(*, with_content: bool = False) -> list[ReadableSpan]:
    """Two chat turns of an OpenAI loop as the openai-v2 instrumentation records them."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": "weather-bot"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("opentelemetry.instrumentation.openai_v2", "2.1b0")
    start = 1_795_000_000_000_000_000
    # The application's own span holds the loop's two calls in one trace.
    loop = tracer.start_span("answer_weather_question", start_time=start)
    inside = otel_trace.set_span_in_context(loop)
    for turn, finish in enumerate(("tool_calls", "stop")):
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.system": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
            "gen_ai.response.id": f"chatcmpl-{turn}",
            "gen_ai.response.finish_reasons": (finish,),
            "gen_ai.usage.input_tokens": 60 + turn * 40,
            "gen_ai.usage.output_tokens": 18,
            "server.address": "api.openai.com",
        }
        if with_content and turn == 1:
            attributes["gen_ai.output.messages"] = (
                '[{"role": "assistant", "parts": [{"type": "text", "content": "Sunny."}]}]'
            )
        span = tracer.start_span("chat gpt-4o-mini", context=inside,
                                 start_time=start + turn * 10**9, attributes=attributes)
        span.end(end_time=start + turn * 10**9 + 5 * 10**8)
    loop.end(end_time=start + 2 * 10**9)
    return list(exporter.get_finished_spans())


def _details(trace: AgentTrace, **keys: Any) -> dict[str, tuple[str, str]]:
    case = EvalTestCase.from_dict({"task_id": "weather", **keys})
    return {r.name: (r.verdict, r.details) for r in score(trace, compile_plan(case))}


EXPECTS_A_CALL: dict[str, Any] = {
    "expected_tool_calls": [{"tool": "get_weather", "args": {"city": "Paris"}}],
    "trajectory": {"mode": "in_order"},
    "metrics": ["tool_selection_accuracy", "argument_correctness", "trajectory_match"],
}


def test_a_trace_without_content_says_why_no_call_is_seen() -> None:
    trace = from_otel_spans(_chat_spans())
    assert [s.type for s in trace.steps] == ["thought", "thought"]
    found = _details(trace, **EXPECTS_A_CALL)
    assert found["tool_selection_accuracy"] == (
        "fail", f"expected tool calls made: 0/1; missing: get_weather; {NO_CONTENT}")
    assert found["argument_correctness"] == (
        "fail", f"expected argument values matched: 0/1; get_weather: not called; {NO_CONTENT}")
    verdict, details = found["trajectory_match"]
    assert verdict == "fail" and details.endswith(f"; {NO_CONTENT}")


def test_the_note_survives_conversion_to_native_json() -> None:
    trace = AgentTrace.from_dict(from_otel_spans(_chat_spans()).to_dict())
    assert _details(trace, **EXPECTS_A_CALL)["tool_selection_accuracy"][1].endswith(NO_CONTENT)


def test_a_trace_with_content_gets_no_note() -> None:
    trace = from_otel_spans(_chat_spans(with_content=True))
    assert "not_recorded" not in trace.metadata
    details = _details(trace, **EXPECTS_A_CALL)["tool_selection_accuracy"][1]
    assert details == "expected tool calls made: 0/1; missing: get_weather"


def test_an_expected_state_on_a_format_without_state_fails_and_says_why() -> None:
    # Failing, not n.a.: the case asked for the state, and n.a. would pass it unchecked.
    trace = from_otel_spans(_chat_spans(with_content=True))
    found = _details(trace, metrics=["goal_completion_rate"],
                     expected_final_state={"forecast_sent": True})
    assert found["goal_completion_rate"] == (
        "fail", f"expected state keys matched: 0/1; {NO_STATE}; state.forecast_sent: missing")


def test_a_state_passed_to_the_reader_is_judged_as_usual() -> None:
    trace = from_otel_spans(_chat_spans(), actual_state={"forecast_sent": False})
    found = _details(trace, metrics=["goal_completion_rate"],
                     expected_final_state={"forecast_sent": True})
    assert found["goal_completion_rate"] == (
        "fail", "expected state keys matched: 0/1; state.forecast_sent: expected true, got false")

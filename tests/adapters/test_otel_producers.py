"""Traces written by real producers (OpenInference, Strands, MCP, the AI SDK ...) read call by call.

The fixtures are recorded by the scripts in ``tests/adapters/producers/`` (each runs the real
package offline against a mock model); ``tests/data/adapters/otel_producers.json`` says what
each must read as, and which test case a failing variant must fail, on which metric.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.adapters import from_otel_spans, load_trace
from openeval.adapters.stream import TraceRecord, iter_traces
from openeval.errors import TraceFormatError
from openeval.metrics.registry import get_metric
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).parent.parent / "data" / "adapters"
EXPECTED: dict[str, Any] = {
    k: v for k, v in orjson.loads((DATA / "otel_producers.json").read_bytes()).items()
    if not k.startswith("_")
}
FAILING = [(good, bad, metric) for good, want in EXPECTED.items()
           for bad, metric in want.get("fails", {}).items()]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_reads_call_by_call(name: str) -> None:
    want = EXPECTED[name]
    trace = load_trace(DATA / name)
    calls = [{"tool": s.tool_name, "args": s.tool_args, "result": s.tool_result, "error": s.error}
             for s in trace.tool_calls()]
    assert calls == want["calls"]
    assert trace.input == want["input"]
    assert trace.final_output == want["final_output"]
    assert len({s.turn for s in trace.steps if s.type == "thought"}) == want["turns"]
    assert [d["name"] for d in trace.tool_definitions] == want.get("tool_definitions", [])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_streams_by_trace_id(name: str) -> None:
    records = list(iter_traces(DATA / name))
    count = EXPECTED[name].get("streamed_traces", 1)
    assert [type(r) for r in records] == [TraceRecord] * count
    if count == 1:
        assert isinstance(records[0], TraceRecord)
        assert records[0].trace.tool_calls() == load_trace(DATA / name).tool_calls()


def test_one_trace_per_chat_of_one_conversation_reads_as_one_run() -> None:
    trace = load_trace(DATA / "otel_openai_v2" / "weather.otlp.jsonl")
    assert len(trace.metadata["otel"]["trace_ids"]) == 2


def test_one_trace_per_chat_of_two_conversations_says_what_to_do() -> None:
    with pytest.raises(TraceFormatError) as caught:
        load_trace(DATA / "otel_openai_v2" / "two_conversations.otlp.jsonl")
    message = str(caught.value)
    assert "\n" not in message
    assert "holds 4 traces" in message
    assert "they are not one conversation" in message
    assert "record the agent loop under one parent span" in message


def test_mcp_call_recorded_three_times_is_one_call() -> None:
    document = orjson.loads((DATA / "otel_mcp" / "weather.otlp.json").read_bytes())
    names = [span["name"] for r in document["resourceSpans"] for s in r["scopeSpans"]
             for span in s["spans"]]
    assert {"execute_tool get_weather", "MCP send tools/call get_weather",
            "tools/call get_weather"} <= set(names)
    assert len(load_trace(DATA / "otel_mcp" / "weather.otlp.json").tool_calls()) == 1


@pytest.mark.parametrize(("good", "bad", "metric"), FAILING)
def test_failing_variant_fails_the_right_metric(good: str, bad: str, metric: str) -> None:
    case = EvalTestCase(task_id="weather", **EXPECTED[good]["case"])
    judge = get_metric(metric)
    assert judge.score(load_trace(DATA / good), case).passed is True
    assert judge.score(load_trace(DATA / bad), case).passed is False


def _argument_details(trace: AgentTrace) -> str:
    case = EvalTestCase(task_id="weather",
                        expected_tool_calls=[{"tool": "get_weather", "args": {"city": "Paris"}}])
    result = get_metric("argument_correctness").score(trace, case)
    assert result.passed is False
    return result.details


def test_adk_with_content_capture_off_names_the_switch() -> None:
    trace = load_trace(DATA / "otel_adk" / "weather_content_off.otlp.json")
    assert "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=true" in _argument_details(trace)


@pytest.mark.parametrize("client_says_execute_tool", [False, True])
def test_mcp_spans_alone_are_one_call_each_and_say_they_carry_no_arguments(
    client_says_execute_tool: bool,
) -> None:
    # The recorded two-call MCP run without Strands' own spans: what a client instrumented by
    # the MCP SDK alone exports (the model spans keep no content either). Newer MCP SDKs mark
    # the client span execute_tool too; both shapes are one call per tools/call.
    document = orjson.loads((DATA / "otel_mcp" / "two_cities.otlp.json").read_bytes())
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            kept = []
            for span in scope["spans"]:
                if span["name"].startswith("execute_tool"):
                    continue
                if client_says_execute_tool and span["name"].startswith("MCP send tools/call"):
                    span["attributes"].append({"key": "gen_ai.operation.name",
                                               "value": {"stringValue": "execute_tool"}})
                kept.append({**span, "events": []})
            scope["spans"] = kept
    trace = from_otel_spans(document)
    assert [(s.tool_name, s.tool_args) for s in trace.tool_calls()] == [
        ("get_weather", None), ("get_weather", None)]
    assert "MCP spans record which tool was called, not its arguments" in _argument_details(trace)

"""The own-JSON formats against what their real producers wrote.

Each fixture under ``tests/data/adapters/<format>/`` was written by the producer's own
serialiser, run offline by the script of the same name under ``tests/adapters/producers/``
(the Langfuse export is built from its documented shape: see the README beside it). The
expectations are ``tests/data/adapters/producers.json`` (one trace per file) and
``producers_many.json`` (files that ``openeval score`` reads as many traces).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.adapters import iter_traces, read_trace
from openeval.adapters.stream import TraceRecord
from openeval.checks.trace import error_spans
from openeval.metrics import get_metric
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).parent.parent / "data" / "adapters"
CASES: dict[str, dict[str, Any]] = {
    name: case for name, case in orjson.loads((DATA / "producers.json").read_bytes()).items()
    if not name.startswith("_")
}
MANY: dict[str, dict[str, Any]] = {
    name: case
    for name, case in orjson.loads((DATA / "producers_many.json").read_bytes()).items()
    if not name.startswith("_")
}
PARIS = EvalTestCase(
    task_id="weather", input="What is the weather in Paris?",
    expected_tool_calls=[{"tool": "get_weather", "args": {"city": "Paris"}}],
)


def _verdict(judge: str, trace: AgentTrace) -> bool | None:
    if judge == "error_spans":
        [score, *_] = error_spans(trace)
        return score.good
    return get_metric(judge).score(trace, PARIS).passed


@pytest.mark.parametrize("name", sorted(CASES))
def test_fixture_reads_call_by_call(name: str) -> None:
    case = CASES[name]
    trace, fmt = read_trace(DATA / name)
    assert fmt == case["format"]
    calls = [
        {"tool": s.tool_name, "args": s.tool_args, "result": s.tool_result, "error": s.error}
        for s in trace.tool_calls()
    ]
    assert calls == [{"error": None, **call} for call in case["calls"]]
    assert trace.final_output == case["final_output"]
    assert len({s.turn for s in trace.steps if s.type == "thought"}) == case["turns"]
    if "input" in case:
        assert trace.input == case["input"]
    if "first_tokens" in case:
        first = next(s for s in trace.steps if s.type == "thought")
        assert first.tokens is not None
        assert {k: first.tokens[k] for k in case["first_tokens"]} == case["first_tokens"]
    if "tool_definitions" in case:
        assert [d["name"] for d in trace.tool_definitions] == case["tool_definitions"]
    for key in case.get("metadata", []):
        assert key in trace.metadata
    assert AgentTrace.from_dict(orjson.loads(orjson.dumps(trace.to_dict()))) == trace


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].get("passes")))
def test_right_run_passes(name: str) -> None:
    trace, _ = read_trace(DATA / name)
    for judge in CASES[name]["passes"]:
        assert _verdict(judge, trace) is True, judge


@pytest.mark.parametrize("name", sorted(n for n in CASES if CASES[n].get("fails")))
def test_failing_variant_fails_the_right_metric(name: str) -> None:
    trace, _ = read_trace(DATA / name)
    for judge in CASES[name]["fails"]:
        assert _verdict(judge, trace) is False, judge


@pytest.mark.parametrize("name", sorted(MANY))
def test_many_traces_per_file_stream_one_record_each(name: str) -> None:
    case = MANY[name]
    records = list(iter_traces(DATA / name))
    assert all(isinstance(r, TraceRecord) for r in records), records
    got = [r for r in records if isinstance(r, TraceRecord)]
    assert {r.format for r in got} == {case["format"]}
    if "ids" in case:
        assert [r.trace.task_id for r in got] == case["ids"]
    assert [
        {"args": r.trace.tool_calls()[0].tool_args, "error": r.trace.tool_calls()[0].error,
         "final_output": r.trace.final_output}
        for r in got
    ] == case["traces"]
    assert len({r.trace_id for r in got}) == len(got)


@pytest.mark.parametrize("name", ["inspect/weather.eval", "inspect/weather.json"])
def test_a_log_of_several_samples_read_as_one_trace_points_at_score(name: str) -> None:
    from openeval.errors import TraceFormatError

    with pytest.raises(TraceFormatError, match="3 samples; score them all with openeval score"):
        read_trace(DATA / name)


ENTRY_POINTS = {
    "openai_agents/weather_chat.json": ("from_openai_agents_trace", {}),
    "mlflow/weather.json": ("from_mlflow_trace", {}),
    "inspect/weather.json": ("from_inspect_log", {"sample": "weather-3"}),
    "adk_session/weather_tool_error.json": ("from_adk_session", {}),
    "langfuse_export/weather.json": ("from_langfuse_trace", {}),
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_python_entry_point_reads_what_the_file_reader_reads(name: str) -> None:
    import openeval.adapters

    entry, kwargs = ENTRY_POINTS[name]
    document = orjson.loads((DATA / name).read_bytes())
    trace = getattr(openeval.adapters, entry)(document, task_id="given", **kwargs)
    if "sample" in kwargs:
        [from_file] = [r.trace for r in iter_traces(DATA / name)
                       if isinstance(r, TraceRecord) and r.trace.task_id == kwargs["sample"]]
    else:
        from_file = read_trace(DATA / name)[0]
    assert trace.task_id == "given"
    assert trace.steps == from_file.steps and trace.final_output == from_file.final_output
    assert trace.messages == from_file.messages


def test_inspect_entry_point_asks_which_sample() -> None:
    from openeval.adapters import from_inspect_log
    from openeval.errors import TraceFormatError

    document = orjson.loads((DATA / "inspect/weather.json").read_bytes())
    with pytest.raises(TraceFormatError, match="3 samples; say which one with sample="):
        from_inspect_log(document)


@pytest.mark.parametrize("kind,denied", [("approval", True), ("parsing", True),
                                         ("timeout", False)])
def test_inspect_calls_that_never_ran_are_denied(kind: str, denied: bool, tmp_path: Path) -> None:
    document = orjson.loads((DATA / "inspect/weather_one.json").read_bytes())
    [tool] = [m for m in document["samples"][0]["messages"] if m["role"] == "tool"]
    tool["error"] = {"type": kind, "message": "Tool call rejected by approver."}
    path = tmp_path / "log.json"
    path.write_bytes(orjson.dumps(document))
    trace = read_trace(path)[0]
    [call] = trace.tool_calls()
    assert call.denied is denied and call.error == f"{kind}: Tool call rejected by approver."
    assert trace.records("denials")
    recovery = get_metric("denial_recovery_rate").score(trace, PARIS)
    assert recovery.passed is not None  # an Inspect log records denials: judged, not n.a.
    assert (recovery.details == "no denied tool calls") is not denied


MODEL_OUTPUTS = {
    "anthropic_message": (
        {"type": "message", "role": "assistant", "stop_reason": "tool_use", "content": [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather",
             "input": {"city": "Paris"}}]},
        "Checking.", "tool_use"),
    "bare_message_with_calls": (
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}}]},
        "", None),
    "text": ("It is sunny.", "It is sunny.", None),  # the TOOL run alone makes the call
}


@pytest.mark.parametrize("name", sorted(MODEL_OUTPUTS))
def test_langfuse_and_mlflow_read_each_model_output_shape(name: str, tmp_path: Path) -> None:
    output, text, finish = MODEL_OUTPUTS[name]
    langfuse = orjson.loads((DATA / "langfuse_export/weather.json").read_bytes())
    langfuse["observations"][1]["output"] = output
    mlflow = orjson.loads((DATA / "mlflow/weather.json").read_bytes())
    [model_span] = [s for s in mlflow["data"]["spans"]
                    if s["attributes"]["mlflow.spanOutputs"].startswith('{"id": "chatcmpl-1"')]
    model_span["attributes"]["mlflow.spanOutputs"] = orjson.dumps(output).decode()
    for document in (langfuse, mlflow):
        path = tmp_path / "t.json"
        path.write_bytes(orjson.dumps(document))
        trace = read_trace(path)[0]
        first = next(s for s in trace.steps if s.type == "thought")
        assert (first.content, first.finish_reason) == (text, finish)
        # The model's call and the tool's run are one step (or the run alone, for text).
        [call] = trace.tool_calls()
        assert (call.tool_name, call.tool_args) == ("get_weather", {"city": "Paris"})
        assert call.tool_result == "18°C and sunny in Paris"


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_python_entry_point_sets_what_the_caller_gives(name: str) -> None:
    import openeval.adapters
    from openeval.errors import TraceFormatError

    entry, kwargs = ENTRY_POINTS[name]
    function = getattr(openeval.adapters, entry)
    document = orjson.loads((DATA / name).read_bytes())
    own = function(document, **kwargs)
    trace = function(document, final_output="given answer", input="given question",
                     actual_state={"done": True}, metadata={"given": 1}, **kwargs)
    assert (trace.final_output, trace.input) == ("given answer", "given question")
    assert trace.actual_state == {"done": True}
    assert trace.metadata == {**own.metadata, "given": 1}
    with pytest.raises(TraceFormatError, match="actual_state"):
        function(document, actual_state=["not", "an", "object"], **kwargs)

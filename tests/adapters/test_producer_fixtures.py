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

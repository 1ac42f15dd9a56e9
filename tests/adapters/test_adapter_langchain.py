"""The LangChain adapter, against run trees made by real ``langchain-core`` and ``langgraph`` runs.

Every golden input under ``tests/data/adapters/langchain/`` is produced here: a scripted chat
model (a real ``BaseChatModel``) drives a real agent loop or langgraph's prebuilt ReAct agent
over real ``@tool``s, traced by ``collect_runs()`` or by a ``BaseTracer`` that records every run
as it ends (the flat shape of a LangSmith export). Rewrite the goldens and the example with
``OPENEVAL_REGEN_GOLDEN=1 .venv/bin/pytest tests/adapters/test_adapter_langchain.py``.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from fuzzing import assert_reads_or_refuses, json_values, replace_at
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.load import dumpd
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    messages_to_dict,
)
from langchain_core.runnables import RunnableConfig, chain
from langchain_core.tools import BaseTool, tool
from langchain_core.tracers.base import BaseTracer
from langchain_core.tracers.context import collect_runs
from langchain_core.tracers.schemas import Run
from run_profile import examples

from openeval.adapters import detect_format, from_langchain_run, from_openai_messages, load_trace
from openeval.adapters.base import TraceSource
from openeval.adapters.langchain import ADAPTER, from_langchain_messages, run_tree_document
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.jsonio import dump_json, read_json_file
from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).parent.parent / "data" / "adapters" / "langchain"
EXAMPLE = Path(__file__).parent.parent.parent / "examples" / "quickstart" / "06-langchain-run"
REGEN = os.environ.get("OPENEVAL_REGEN_GOLDEN") == "1"


# ---------------------------------------------------------------------------------------------
# Producers: real LangChain runs


class ScriptedChatModel(FakeMessagesListChatModel):
    """A chat model that answers with a fixed list of AI messages and accepts bound tools."""

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self


@tool
def get_weather(city: str) -> str:
    """Return the current weather in a city."""
    return {"Tokyo": "22C, clear", "Paris": "14C, rain"}.get(city, "unknown")


@tool
def convert_temperature(celsius: float) -> float:
    """Convert degrees Celsius to Fahrenheit."""
    return round(celsius * 9 / 5 + 32, 1)


@tool
def book_table(restaurant: str, people: int) -> str:
    """Book a restaurant table."""
    raise ValueError(f"{restaurant} is fully booked")


TOOLS: dict[str, BaseTool] = {t.name: t for t in (get_weather, convert_temperature, book_table)}


def _ai(
    text: str,
    calls: Sequence[tuple[str, str, dict[str, Any]]] = (),
    *,
    finish: str,
    tokens: tuple[int, int] = (20, 8),
    invalid: list[dict[str, Any]] | None = None,
) -> AIMessage:
    return AIMessage(
        content=text,
        tool_calls=[{"id": i, "name": n, "args": a, "type": "tool_call"} for i, n, a in calls],
        invalid_tool_calls=invalid or [],
        usage_metadata={
            "input_tokens": tokens[0], "output_tokens": tokens[1],
            "total_tokens": tokens[0] + tokens[1],
        },
        response_metadata={"finish_reason": finish, "model_name": "scripted-1"},
    )


def _agent_loop(
    responses: list[BaseMessage], question: str, *, max_turns: int, task_id: str
) -> Any:
    """Run a plain tool-calling loop under collect_runs(); return its one root run.

    The loop stops at ``max_turns`` model turns, leaving the last turn's calls unrun.
    """
    model = ScriptedChatModel(responses=responses)

    @chain
    def weather_agent(task: str) -> str:
        messages: list[BaseMessage] = [HumanMessage(task)]
        for turn in range(max_turns):
            reply = model.invoke(messages)
            messages.append(reply)
            if not isinstance(reply, AIMessage) or not reply.tool_calls:
                return reply.text
            if turn == max_turns - 1:
                break
            for call in reply.tool_calls:
                try:
                    messages.append(TOOLS[call["name"]].invoke(call))
                except ValueError as exc:
                    messages.append(
                        ToolMessage(str(exc), tool_call_id=call["id"] or "", status="error")
                    )
        return ""

    with collect_runs() as collector:
        weather_agent.invoke(question, config=_config(task_id))
    assert len(collector.traced_runs) == 1
    return collector.traced_runs[0]


def _config(task_id: str) -> RunnableConfig:
    return {"metadata": {"task_id": task_id}}


def _react_agent(responses: list[BaseMessage], tools: list[BaseTool]) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated in langgraph 1.x
        from langgraph.prebuilt import ToolNode, create_react_agent

        return create_react_agent(
            ScriptedChatModel(responses=responses), ToolNode(tools, handle_tool_errors=True)
        )


class _EveryRun(BaseTracer):
    """Records every run as it ends, unlinked: the flat shape a LangSmith export has."""

    def __init__(self) -> None:
        super().__init__()
        self.records: list[dict[str, Any]] = []

    def _persist_run(self, run: Run) -> None:
        pass

    def _end_trace(self, run: Run) -> None:
        self.records.append(run.model_dump())
        super()._end_trace(run)


def produce_loop_weather() -> Any:
    """Two tools in one model turn, then a third, then the answer: one run tree."""
    return _agent_loop(
        [
            _ai("Let me look that up.", [
                ("call_w1", "get_weather", {"city": "Tokyo"}),
                ("call_w2", "get_weather", {"city": "Paris"}),
            ], finish="tool_calls"),
            _ai("", [("call_c1", "convert_temperature", {"celsius": 22})], finish="tool_calls"),
            _ai("Tokyo is 22C (71.6F) and clear; Paris is 14C with rain.", finish="stop",
                tokens=(95, 21)),
        ],
        "Compare the weather in Tokyo and Paris, in Fahrenheit for Tokyo.",
        max_turns=5,
        task_id="loop_weather",
    )


def produce_loop_errors() -> Any:
    """A tool that raises, a call with broken arguments, and a call never run (turn limit)."""
    return _agent_loop(
        [
            _ai("", [("call_b1", "book_table", {"restaurant": "Sora", "people": 4})],
                finish="tool_calls"),
            _ai("Sora is full; trying another place.", [
                ("call_b2", "book_table", {"restaurant": "Umi", "people": 4}),
            ], finish="tool_calls", invalid=[{
                "id": "call_bad", "name": "book_table", "args": "{restaurant: Umi",
                "error": "Function book_table arguments are not valid JSON", "type":
                "invalid_tool_call",
            }]),
        ],
        "Book a table for 4 tonight.",
        max_turns=2,
        task_id="loop_errors",
    )


def produce_langgraph_roots() -> Any:
    """langgraph's ReAct agent under collect_runs(): a list of disconnected root runs."""
    agent = _react_agent(
        [
            _ai("", [("call_1", "get_weather", {"city": "Tokyo"})], finish="tool_calls"),
            _ai("It is 22C and clear in Tokyo.", finish="stop", tokens=(40, 11)),
        ],
        [get_weather],
    )
    with collect_runs() as collector:
        agent.invoke(
            {"messages": [("user", "Weather in Tokyo?")]}, config=_config("langgraph_roots")
        )
    return list(collector.traced_runs)


def produce_langgraph_export() -> Any:
    """langgraph's ReAct agent, every run recorded flat in end order; one tool fails."""
    agent = _react_agent(
        [
            _ai("", [("call_1", "book_table", {"restaurant": "Sora", "people": 2})],
                finish="tool_calls"),
            _ai("", [("call_2", "get_weather", {"city": "Tokyo"})], finish="tool_calls"),
            _ai("Sora is fully booked, sorry. It is 22C and clear, good for a walk.",
                finish="stop", tokens=(70, 16)),
        ],
        [book_table, get_weather],
    )
    recorder = _EveryRun()
    agent.invoke(
        {"messages": [("user", "Book Sora for two, else tell me the weather.")]},
        config={**_config("langgraph_export"), "callbacks": [recorder]},
    )
    return recorder.records


PRODUCERS: dict[str, Callable[[], Any]] = {
    "loop_weather": produce_loop_weather,
    "loop_errors": produce_loop_errors,
    "langgraph_roots": produce_langgraph_roots,
    "langgraph_export": produce_langgraph_export,
}


# ---------------------------------------------------------------------------------------------
# Goldens


def _scrub(trace: dict[str, Any]) -> dict[str, Any]:
    """Drop what changes from run to run (times, durations, run ids) before comparing."""
    steps = [{**s, "timestamp": 0.0, "latency_ms": None} for s in trace["steps"]]
    metadata = {k: v for k, v in trace["metadata"].items() if k != "run_id"}
    return {**trace, "steps": steps, "metadata": metadata}


def _write(path: Path, value: Any) -> None:
    path.write_bytes(dump_json(value))


@pytest.fixture(scope="module", autouse=True)
def regenerate() -> None:
    """With OPENEVAL_REGEN_GOLDEN=1, rewrite every producer output, golden and the example."""
    if not REGEN:
        return
    DATA.mkdir(parents=True, exist_ok=True)
    for name, produce in PRODUCERS.items():
        _write(DATA / f"{name}.json", run_tree_document(produce()))
        _write(DATA / f"{name}.expected.json", load_trace(DATA / f"{name}.json").to_dict())
    EXAMPLE.mkdir(parents=True, exist_ok=True)
    _write(EXAMPLE / "trace.json", run_tree_document(produce_loop_weather()))


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_golden_file_normalises_to_expected(name: str) -> None:
    trace = load_trace(DATA / f"{name}.json")
    assert trace.to_dict() == read_json_file(DATA / f"{name}.expected.json")
    assert dump_json(trace.to_dict()) == (DATA / f"{name}.expected.json").read_bytes()


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_fresh_runs_still_normalise_to_the_golden(name: str) -> None:
    runs = PRODUCERS[name]()
    golden = _scrub(read_json_file(DATA / f"{name}.expected.json"))
    from_objects = from_langchain_run(runs)
    from_json = from_langchain_run(run_tree_document(runs))
    assert from_objects == from_json
    assert _scrub(from_json.to_dict()) == golden


@pytest.mark.parametrize("name", sorted(PRODUCERS))
def test_golden_files_are_detected_as_langchain(name: str) -> None:
    assert detect_format(TraceSource(DATA / f"{name}.json")).name == "langchain"


# ---------------------------------------------------------------------------------------------
# What the mapping promises, checked on the goldens


def _golden(name: str) -> AgentTrace:
    return load_trace(DATA / f"{name}.json", "langchain")


def _brief(trace: AgentTrace) -> list[tuple[str, str | None, Any, str | None, str | None]]:
    return [(s.type, s.tool_name, s.tool_args, s.tool_result, s.error) for s in trace.steps]


def test_loop_pairs_each_call_with_its_tool_run_once() -> None:
    trace = _golden("loop_weather")
    assert _brief(trace) == [
        ("thought", None, None, None, None),
        ("tool_call", "get_weather", {"city": "Tokyo"}, "22C, clear", None),
        ("tool_call", "get_weather", {"city": "Paris"}, "14C, rain", None),
        ("thought", None, None, None, None),
        ("tool_call", "convert_temperature", {"celsius": 22}, "71.6", None),
        ("thought", None, None, None, None),
    ]
    assert [s.step_id for s in trace.steps] == [1, 2, 3, 4, 5, 6]
    assert trace.task_id == "loop_weather"
    assert trace.input == "Compare the weather in Tokyo and Paris, in Fahrenheit for Tokyo."
    assert trace.final_output == "Tokyo is 22C (71.6F) and clear; Paris is 14C with rain."
    assert trace.steps[0].content == "Let me look that up."


def test_model_steps_carry_tokens_model_and_finish_reason() -> None:
    thoughts = [s for s in _golden("loop_weather").steps if s.type == "thought"]
    assert [s.finish_reason for s in thoughts] == ["tool_calls", "tool_calls", "stop"]
    assert {s.model for s in thoughts} == {"scripted-1"}
    assert thoughts[-1].tokens == {"input": 95, "output": 21, "total": 116}
    assert all(s.latency_ms is not None and s.timestamp > 1.7e9 for s in thoughts)


def test_steps_are_in_execution_order() -> None:
    stamps = [s.timestamp for s in _golden("loop_weather").steps]
    assert stamps == sorted(stamps)


def test_tool_errors_broken_arguments_and_unanswered_calls() -> None:
    trace = _golden("loop_errors")
    calls = trace.tool_calls()
    assert [(c.tool_name, c.tool_args) for c in calls] == [
        ("book_table", {"restaurant": "Sora", "people": 4}),
        ("book_table", {"restaurant": "Umi", "people": 4}),
        ("book_table", None),
    ]
    assert calls[0].error == "ValueError: Sora is fully booked"
    assert calls[0].tool_result is None and not calls[0].denied
    # The loop hit its turn limit: the second call was requested but never ran.
    assert calls[1].tool_result is None and calls[1].error is None
    assert calls[2].content == "{restaurant: Umi"
    assert calls[2].error is not None
    assert calls[2].error.startswith("arguments are not a JSON object")
    assert trace.final_output == ""


def test_langgraph_root_list_reads_as_one_run() -> None:
    trace = _golden("langgraph_roots")
    assert _brief(trace) == [
        ("thought", None, None, None, None),
        ("tool_call", "get_weather", {"city": "Tokyo"}, "22C, clear", None),
        ("thought", None, None, None, None),
    ]
    assert trace.input == "Weather in Tokyo?"
    assert trace.final_output == "It is 22C and clear in Tokyo."
    assert trace.metadata["run_name"] == "LangGraph"
    assert trace.task_id == "langgraph_roots"  # from the run's metadata


def test_flat_export_is_linked_and_reordered() -> None:
    document = read_json_file(DATA / "langgraph_export.json")
    assert all("child_runs" not in run for run in document)
    assert document[-1]["name"] == "LangGraph"  # recorded in end order, root last
    trace = _golden("langgraph_export")
    assert [(s.type, s.tool_name) for s in trace.steps] == [
        ("thought", None), ("tool_call", "book_table"),
        ("thought", None), ("tool_call", "get_weather"), ("thought", None),
    ]
    failed = trace.steps[1]
    assert failed.error == "ValueError: Sora is fully booked"
    assert trace.steps[3].tool_result == "22C, clear"
    assert trace.final_output.startswith("Sora is fully booked")
    assert trace.input == "Book Sora for two, else tell me the weather."


def test_export_as_json_lines(tmp_path: Path) -> None:
    document = read_json_file(DATA / "langgraph_export.json")
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(run) for run in reversed(document)) + b"\n")
    trace = load_trace(path)
    assert _scrub(trace.to_dict()) == _scrub(
        _golden("langgraph_export").to_dict()
    )


# ---------------------------------------------------------------------------------------------
# Entry point options, envelopes, and the 0.2.1 call shape


def test_entry_point_arguments_override_what_runs_say() -> None:
    runs = read_json_file(DATA / "loop_weather.json")
    trace = from_langchain_run(runs, "weather-1", "my task", actual_state={"done": True})
    assert (trace.task_id, trace.input, trace.actual_state) == ("weather-1", "my task",
                                                                {"done": True})
    assert from_langchain_run(DATA / "loop_weather.json") == _golden("loop_weather")


def test_task_id_falls_back_to_file_stem_then_root_name(tmp_path: Path) -> None:
    runs = read_json_file(DATA / "loop_weather.json")
    runs["extra"]["metadata"].pop("task_id")
    path = tmp_path / "my_case.trace.json"
    _write(path, runs)
    assert load_trace(path).task_id == "my_case"
    assert from_langchain_run(runs).task_id == "weather_agent"


def test_wrapped_document_sets_task_and_state(tmp_path: Path) -> None:
    runs = read_json_file(DATA / "langgraph_roots.json")
    path = tmp_path / "wrapped.json"
    _write(path, {"task_id": "t-9", "actual_state": {"temp": 22}, "runs": runs})
    trace = load_trace(path)
    assert (trace.task_id, trace.actual_state) == ("t-9", {"temp": 22})
    assert len(trace.steps) == 3


# ---------------------------------------------------------------------------------------------
# Bad input


def _mutate(path: list[Any], value: Any) -> Callable[[Any], Any]:
    def apply(document: Any) -> Any:
        target = document
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return document

    return apply


BAD_INPUT: list[tuple[str, str, Callable[[Any], Any], str, str]] = [
    ("run_type_number", "loop_weather", _mutate(["child_runs", 0, "run_type"], 3),
     "child_runs[0].run_type", "expected 'run_type' as a string"),
    ("child_runs_object", "loop_weather", _mutate(["child_runs"], {"a": 1}),
     "child_runs", "expected a list of runs"),
    ("bad_start_time", "loop_weather", _mutate(["child_runs", 1, "start_time"], "yesterday"),
     "child_runs[1].start_time", "expected an ISO 8601 time"),
    ("start_time_in_milliseconds", "loop_weather",
     _mutate(["child_runs", 1, "start_time"], 1_700_000_000_000),
     "child_runs[1].start_time", "expected an epoch time in seconds"),
    ("tool_calls_string", "loop_weather", _mutate(
        ["child_runs", 0, "outputs", "generations", 0, 0, "message", "kwargs", "tool_calls"],
        "get_weather"), "child_runs[0].outputs.tool_calls", "expected 'tool_calls' as a list"),
    ("tool_call_without_name", "loop_weather", _mutate(
        ["child_runs", 0, "outputs", "generations", 0, 0, "message", "kwargs", "tool_calls", 0,
         "name"], None), "child_runs[0].outputs.tool_calls[0].name", "'name' as a string"),
    ("number_in_root_list", "langgraph_roots", _mutate([1], 7), "[1]",
     "expected a LangChain run"),
    ("error_object", "langgraph_export", _mutate([3, "error"], {"x": 1}), "[3].error",
     "expected 'error' as a string or null"),
]


@pytest.mark.parametrize(
    ("name", "location", "message"),
    [pytest.param(case[1], case[3], case[4], id=case[0]) for case in BAD_INPUT],
)
def test_bad_input_names_the_place(
    name: str, location: str, message: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    case = next(c for c in BAD_INPUT if c[0] == request.node.callspec.id)
    document = case[2](read_json_file(DATA / f"{name}.json"))
    path = tmp_path / "broken.json"
    _write(path, document)
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path, "langchain")
    assert caught.value.source == str(path)
    assert caught.value.location == location
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'[{"role": "user", "content": "hi"}]', "not a list of LangChain runs"),
        (b'{"task_id": "x", "steps": []}', "no 'run_type' and 'name'"),
        (b"[]", "not a list of LangChain runs"),
        (b"\x28\xb5\x2f\xfd garbage", "not a JSON document"),
        (b"not json at all", "not a JSON document"),
    ],
)
def test_refusal_names_why(content: bytes, reason: str, tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(content)
    refused = ADAPTER.refusal(TraceSource(path))
    assert refused is not None and reason in refused


def test_forced_empty_list_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_bytes(b"[]")
    with pytest.raises(TraceFormatError, match="expected at least one run"):
        load_trace(path, "langchain")


def test_tool_arguments_that_are_not_an_object() -> None:
    runs = read_json_file(DATA / "loop_weather.json")
    kwargs = runs["child_runs"][0]["outputs"]["generations"][0][0]["message"]["kwargs"]
    kwargs["tool_calls"][0]["args"] = [1, 2]
    step = from_langchain_run(runs).steps[1]
    assert (step.tool_args, step.content) == (None, "[1,2]")
    assert step.error == "arguments are not a JSON object: got a list"
    assert step.tool_result == "22C, clear"  # still paired with its tool run by id


JSON = json_values(
    [
        "run_type", "name", "child_runs", "outputs", "inputs", "error", "start_time", "end_time",
        "id", "parent_run_id", "dotted_order", "extra", "metadata", "generations", "message",
        "messages", "tool_calls", "args", "content", "type", "kwargs", "lc", "data", "output",
        "tool_call_id", "status", "runs",
    ],
    floats=True,
)
RUN_TYPE = st.sampled_from(["llm", "chat_model", "tool", "chain", "retriever", "x", None])


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=JSON | st.lists(st.fixed_dictionaries(
    {"run_type": RUN_TYPE, "name": st.sampled_from(["agent", "get_weather", ""])},
    optional={"child_runs": JSON, "outputs": JSON, "inputs": JSON, "id": JSON,
              "parent_run_id": JSON, "start_time": JSON, "error": JSON})))
def test_any_input_gives_a_trace_or_our_error(document: Any) -> None:
    try:
        trace = from_langchain_run(document)
    except OpenEvalError:
        return
    assert AgentTrace.from_dict(trace.to_dict()) == trace
    assert [s.step_id for s in trace.steps] == list(range(1, len(trace.steps) + 1))


@settings(max_examples=examples(200), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(name=st.sampled_from(sorted(PRODUCERS)),
       path=st.lists(st.integers(min_value=0, max_value=50), max_size=10),
       replacement=JSON)
def test_mutated_golden_files_give_a_trace_or_our_error(
    name: str, path: list[int], replacement: Any, tmp_path: Path
) -> None:
    document = read_json_file(DATA / f"{name}.json")
    mutated = tmp_path / "mutated.json"
    _write(mutated, replace_at(document, path, replacement))
    assert_reads_or_refuses("langchain", mutated)


# ---------------------------------------------------------------------------------------------
# The example case


def test_example_case_passes_every_metric() -> None:
    trace = load_trace(EXAMPLE / "trace.json")
    case = EvalTestCase.from_dict(read_json_file(EXAMPLE / "testcase.json"))
    results = [metric.score(trace, case) for metric in all_metrics()]
    failed = [r for r in results if r.passed is False]
    assert failed == []
    assert sum(r.passed is True for r in results) >= 5


# ---------------------------------------------------------------------------------------------
# Other shapes: a bare model run, runs listed twice, run objects inside a dict


def test_a_bare_model_run_is_one_model_step() -> None:
    model = ScriptedChatModel(
        responses=[_ai("", [("c1", "get_weather", {"city": "Oslo"})], finish="tool_calls")]
    )
    with collect_runs() as collector:
        model.invoke("Weather in Oslo?")
    trace = from_langchain_run(collector.traced_runs[0], "oslo")
    assert _brief(trace) == [
        ("thought", None, None, None, None),
        ("tool_call", "get_weather", {"city": "Oslo"}, None, None),
    ]
    assert trace.input == "Human: Weather in Oslo?"
    assert trace.final_output == ""  # the model asked for a tool: no answer yet


def test_a_run_listed_nested_and_flat_counts_once() -> None:
    tree = read_json_file(DATA / "loop_weather.json")
    flat_children = [dict(child) for child in tree["child_runs"]]
    trace = from_langchain_run([tree, *flat_children])
    assert trace.steps == _golden("loop_weather").steps


def test_run_objects_nested_in_a_dict_keep_their_children() -> None:
    root = produce_loop_weather()
    document = run_tree_document({**root.model_dump(), "child_runs": root.child_runs})
    assert len(document["child_runs"]) == len(root.child_runs)
    assert _scrub(from_langchain_run(document).to_dict()) == _scrub(
        read_json_file(DATA / "loop_weather.expected.json")
    )


def test_json_lines_errors_name_the_line(tmp_path: Path) -> None:
    document = read_json_file(DATA / "langgraph_export.json")
    document[2]["start_time"] = "soon"
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\n".join(orjson.dumps(run) for run in document))
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.location == "line 3: start_time"


# ---------------------------------------------------------------------------------------------
# Conversations: LangGraph's result["messages"], as objects and as saved dicts


def _booking_conversation() -> list[BaseMessage]:
    """The messages langgraph's ReAct agent returns: a failing tool, a retry, an answer."""
    agent = _react_agent(
        [
            _ai("I'll book Sora.", [("call_1", "book_table", {"restaurant": "Sora", "people": 2})],
                finish="tool_calls"),
            _ai("", [("call_2", "get_weather", {"city": "Tokyo"})], finish="tool_calls"),
            _ai("Sora is full; it is 22C and clear, good for a walk.", finish="stop"),
        ],
        [book_table, get_weather],
    )
    result = agent.invoke({"messages": [("user", "Book Sora for two, else the weather.")]})
    messages: list[BaseMessage] = result["messages"]
    return messages


def test_langgraph_messages_are_a_conversation() -> None:
    messages = _booking_conversation()
    trace = from_langchain_messages(messages, task_id="sora")
    assert [(s.type, s.tool_name, s.turn) for s in trace.steps] == [
        ("thought", None, 0), ("tool_call", "book_table", 0),
        ("thought", None, 1), ("tool_call", "get_weather", 1), ("thought", None, 2),
    ]
    failed, weather = trace.tool_calls()
    assert failed.error is not None and "Sora is fully booked" in failed.error
    assert weather.tool_result == "22C, clear" and weather.error is None
    assert (trace.task_id, trace.input) == ("sora", "Book Sora for two, else the weather.")
    assert trace.final_output == "Sora is full; it is 22C and clear, good for a walk."
    assert [m.role for m in trace.messages] == [
        "user", "assistant", "tool", "assistant", "tool", "assistant"
    ]
    assert trace.steps[0].tokens == {"input": 20, "output": 8, "total": 28}
    assert from_langchain_run(messages) == replace(trace, task_id="langchain_task")


def test_langgraph_messages_given_to_the_openai_reader_are_refused_not_read_as_nothing() -> None:
    with pytest.raises(TraceFormatError, match=r"a LangChain message .*from_langchain_messages"):
        from_openai_messages(_booking_conversation())


@pytest.mark.parametrize(
    "save",
    [messages_to_dict, lambda ms: [m.model_dump(mode="json") for m in ms],
     lambda ms: {"messages": messages_to_dict(ms)}, lambda ms: [dumpd(m) for m in ms]],
    ids=["messages_to_dict", "model_dump", "wrapped", "dumpd"],
)
def test_saved_messages_are_read_from_a_file(save: Any, tmp_path: Path) -> None:
    messages = _booking_conversation()
    path = tmp_path / "conversation.json"
    _write(path, save(messages))
    trace = load_trace(path)
    assert detect_format(TraceSource(path)).name == "langchain"
    expected = from_langchain_messages(messages, task_id="conversation")
    assert trace == expected


def test_two_invokes_under_one_collector_keep_both_and_answer_last() -> None:
    agent = _react_agent(
        [
            _ai("It is 22C and clear in Tokyo.", finish="stop"),
            _ai("It is 14C with rain in Paris.", finish="stop"),
        ],
        [get_weather],
    )
    with collect_runs() as collector:
        agent.invoke({"messages": [("user", "Weather in Tokyo?")]})
        agent.invoke({"messages": [("user", "And in Paris?")]})
    trace = from_langchain_run(list(collector.traced_runs))
    assert trace.input == "Weather in Tokyo?"
    assert trace.final_output == "It is 14C with rain in Paris."
    assert [(m.role, m.content) for m in trace.messages] == [
        ("user", "Weather in Tokyo?"), ("assistant", "It is 22C and clear in Tokyo."),
        ("user", "And in Paris?"), ("assistant", "It is 14C with rain in Paris."),
    ]
    assert len(trace.metadata["run_ids"]) == 2


def test_a_tool_message_with_error_status_fails_its_call() -> None:
    trace = from_langchain_messages([
        HumanMessage("Book it."),
        _ai("", [("c1", "book_table", {"restaurant": "Umi", "people": 4})], finish="tool_calls"),
        ToolMessage("Umi is closed today", tool_call_id="c1", status="error"),
        _ai("Umi is closed today, sorry.", finish="stop"),
    ])
    (call,) = trace.tool_calls()
    assert (call.tool_result, call.error) == ("Umi is closed today", "Umi is closed today")


@pytest.mark.parametrize(
    "document",
    [[{"type": "ai", "data": {}}], [{"run_type": "chain", "name": "x"}], {"runs": []}],
    ids=["message without content", "run with nothing in it", "no runs"],
)
def test_an_input_with_nothing_readable_is_refused(document: Any, tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    _write(path, document)
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path, "langchain")
    assert caught.value.source == str(path)

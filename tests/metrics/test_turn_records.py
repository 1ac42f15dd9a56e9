"""What of ``turn_expectations`` a case table cannot show: the records kept in the result's data,
a turn's check that cannot judge its segment, and the same turns read from each message source
(and from a recorded OTel conversation)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from openeval import load_trace
from openeval.metrics import get_metric
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scoring import compile_plan, score

TRACE = AgentTrace(
    task_id="t",
    steps=[TraceStep(step_id=1, type="tool_call", tool_name="refund", tool_args={}, turn=1)],
    messages=[Message(role="user", content="Refund it"),
              Message(role="assistant", content="Refunded.", turn=1)],
)


def test_the_turn_records_are_bounded_and_the_rest_counted() -> None:
    turns = [{"user": 1, "expected_tool_calls": [{"tool": "refund"}]}] * 45
    found = get_metric("turn_expectations").measure(TRACE, EvalTestCase(task_id="t", turns=turns))
    assert found.score == 1.0
    assert len(found.data["turns"]) == 40
    assert found.data["turns_cut"] == {"turns": 45, "kept": 40}


def test_a_turn_check_that_cannot_judge_is_an_error_naming_the_turn() -> None:
    # exact_match with no reference and no expected_output: no verdict is possible.
    case = EvalTestCase(task_id="t", turns=[{"user": 1, "checks": [{"check": "exact_match"}]}])
    [result] = score(TRACE, compile_plan(case, metrics=["turn_expectations"]))
    assert result.verdict == "error"
    assert result.details.startswith("turns[0].checks[0] (exact_match): ")


def _openai(order: str, n: int) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": f"Refund {order}"},
        {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"c{n}", "type": "function",
            "function": {"name": "refund", "arguments": f'{{"order": "{order}"}}'}}]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": "ok"},
        {"role": "assistant", "content": f"Refunded {order}."},
    ]


def _anthropic(order: str, n: int) -> list[dict[str, object]]:
    return [
        {"role": "user", "content": f"Refund {order}"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{n}", "name": "refund", "input": {"order": order}}]},
        # A tool result travels in a user message: it is not a user turn.
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{n}",
                                      "content": "ok"}]},
        {"role": "assistant", "content": [{"type": "text", "text": f"Refunded {order}."}]},
    ]


def _langchain(order: str, n: int) -> list[dict[str, object]]:
    return [
        {"type": "human", "data": {"content": f"Refund {order}"}},
        {"type": "ai", "data": {"content": "", "tool_calls": [
            {"name": "refund", "args": {"order": order}, "id": f"c{n}"}]}},
        {"type": "tool", "data": {"content": "ok", "tool_call_id": f"c{n}"}},
        {"type": "ai", "data": {"content": f"Refunded {order}."}},
    ]


def assert_held_turn_by_turn(trace: AgentTrace, turns: list[dict[str, Any]]) -> None:
    """The two turns hold as written, and neither holds with their user turns swapped."""
    result = get_metric("turn_expectations").score(trace, EvalTestCase(task_id="t", turns=turns))
    assert (result.passed, result.details) == (True, "turn expectations held: 2/2")
    swapped = [{**turns[0], "user": 2}, {**turns[1], "user": 1}]
    result = get_metric("turn_expectations").score(trace, EvalTestCase(task_id="t",
                                                                       turns=swapped))
    assert result.passed is False and result.score == 0.0


SOURCES = {"openai": ("from_openai_messages", _openai),
           "anthropic": ("from_anthropic_messages", _anthropic),
           "langchain": ("from_langchain_messages", _langchain)}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_each_message_source_splits_the_same_two_turns(source: str) -> None:
    import openeval.adapters

    entry, build = SOURCES[source]
    trace = getattr(openeval.adapters, entry)(build("A", 1) + build("B", 2))
    turns = [{"user": k, "expected_tool_calls": [{"tool": "refund", "args": {"order": o},
                                                 "times": 1}],
              "checks": [{"check": "contains", "values": [f"Refunded {o}"]}]}
             for k, o in ((1, "A"), (2, "B"))]
    assert_held_turn_by_turn(trace, turns)


RECORDED = Path(__file__).parents[1] / "data" / "adapters"


@pytest.mark.parametrize("recording", ["otel_openai_v2/two_turns.otlp.jsonl"])
def test_a_recorded_two_turn_conversation_is_judged_turn_by_turn(recording: str) -> None:
    # OTel with content: the official OpenAI instrumentation, one trace per chat call, where
    # the user asks about Rome after the answer about Paris.
    trace = load_trace(RECORDED / recording)
    turns = [{"user": k, "expected_tool_calls": [{"tool": "get_weather", "args": {"city": c},
                                                 "times": 1}],
              "expected_output_contains": [f"sunny in {c}"]}
             for k, c in ((1, "Paris"), (2, "Rome"))]
    assert_held_turn_by_turn(trace, turns)

"""CheckContext: the check library reference's evaluation context read off an AgentTrace and its
test case."""

from __future__ import annotations

import pytest

from openeval.checks import CheckContext, Score, Scores, as_context
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep


def _trace(**fields: object) -> AgentTrace:
    return AgentTrace(task_id="t", **fields)  # type: ignore[arg-type]


def test_input_is_the_conversation_before_the_reply() -> None:
    trace = _trace(messages=[Message("user", "hi"), Message("tool", "r", name="x"),
                             Message("assistant", "bye")], final_output="bye")
    assert CheckContext(trace).input == [{"role": "user", "content": "hi"},
                                         {"role": "tool", "content": "r"}]


def test_input_keeps_a_trailing_user_turn() -> None:
    trace = _trace(messages=[Message("assistant", "a"), Message("user", "q")])
    assert [m["role"] for m in CheckContext(trace).input] == ["assistant", "user"]


def test_input_without_messages_is_the_task_input() -> None:
    assert CheckContext(_trace(input="do it")).input == "do it"


def test_views() -> None:
    step = TraceStep(1, "tool_call", tool_name="pay", tool_args={"a": 1}, tool_result="ok")
    trace = _trace(steps=[step], final_output="done", metadata={"k": 1})
    context = CheckContext(trace, EvalTestCase("t", expected_output={"a": 1}), {"s": 2})
    assert (context.output, context.metadata, context.steps) == ("done", {"k": 1}, [step])
    assert context.expected_output == {"a": 1}
    assert context.params == {"s": 2}
    assert CheckContext(trace).expected_output is None


@pytest.mark.parametrize(
    ("step", "span"),
    [
        (TraceStep(1, "thought", "plan", model="m", latency_ms=5.0, tokens={"output": 3}),
         {"name": "thought", "kind": "llm", "model": "m", "output": "plan", "duration_ms": 5.0,
          "tokens": {"output": 3}, "error": None}),
        (TraceStep(2, "tool_call", tool_name="pay", tool_args={"a": 1}, tool_result="ok"),
         {"name": "pay", "kind": "tool", "tool_name": "pay", "input": {"a": 1}, "output": "ok"}),
        (TraceStep(3, "tool_call", "{bad", tool_name="pay", denied=True, error="no permission"),
         {"kind": "tool", "input": "{bad", "output": None, "error": "denied: no permission"}),
        (TraceStep(4, "tool_call", tool_name="pay", denied=True),
         {"error": "denied: no reason given"}),
        (TraceStep(5, "tool_result", "orphan"), {"name": "tool_result", "kind": "tool",
                                                 "output": "orphan"}),
        (TraceStep(6, "output", "final", turn=2), {"kind": "span", "output": "final",
                                                   "step_id": 6, "turn": 2}),
    ],
    ids=["thought", "call", "denied", "denied-no-reason", "unpaired-result", "output"],
)
def test_spans(step: TraceStep, span: dict[str, object]) -> None:
    found = CheckContext(_trace(steps=[step])).spans[0]
    assert set(found) == {"name", "kind", "tool_name", "model", "input", "output",
                          "duration_ms", "error", "tokens", "step_id", "turn"}
    assert {key: found[key] for key in span} == span


def test_score_reads_earlier_entries() -> None:
    earlier = Scores([Score(True, "BOOLEAN", name="ok"), Score(0.5, name="share")])
    context = CheckContext(_trace(), scores={"first": earlier, "empty": Scores()})
    assert context.score("first") is True
    assert context.score("first", "share") == 0.5
    assert context.score("first", "shar", default=-1) == -1
    assert context.score("empty", default="d") == "d"
    assert context.score("missing") is None


def test_as_context() -> None:
    context = CheckContext(_trace())
    assert as_context(context) is context
    assert as_context(_trace(final_output="x")).output == "x"
    assert as_context("text").output == "text"
    with pytest.raises(TypeError, match="got int"):
        as_context(3)  # type: ignore[arg-type]

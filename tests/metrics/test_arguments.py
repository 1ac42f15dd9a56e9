"""Pairing expected with executed calls for argument_correctness: exact, and bounded."""

from __future__ import annotations

from itertools import permutations
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.metrics import get_metric
from openeval.metrics.arguments import ExpectedArgs, _pair_groups, pair_calls
from openeval.models import AgentTrace, EvalTestCase, TraceStep

ARGS = st.dictionaries(st.sampled_from(["q", "page"]), st.sampled_from([0, 1, 1.0, "1", True]),
                       max_size=2)
PATTERN = st.sampled_from([0, 1, "1", True, {"$any": [0, 1]}, {"$optional": 1},
                           {"$type": "integer"}, {"$exists": False}])


def _best(expected: list[ExpectedArgs], actual: list[dict[str, Any]]) -> int:
    n, m = len(expected), len(actual)
    if n <= m:
        return max(sum(expected[i].weight(actual[p[i]]) for i in range(n))
                   for p in permutations(range(m), n))
    return max(sum(expected[p[j]].weight(actual[j]) for j in range(m))
               for p in permutations(range(n), m))


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["q", "page"]), PATTERN, min_size=1, max_size=2),
                min_size=1, max_size=4),
       st.lists(ARGS, max_size=5))
def test_grouped_pairing_is_optimal_and_one_to_one(
    raw: list[dict[str, Any]], actual: list[dict[str, Any]]
) -> None:
    expected = [ExpectedArgs(args, "args") for args in raw]
    best = _best(expected, actual)
    for pairing in (pair_calls(expected, actual), _pair_groups(expected, actual)):
        used = [p for p in pairing.partners if p is not None]
        assert len(used) == len(set(used)) == min(len(expected), len(actual))
        assert pairing.matched == best
        assert pairing.matched == sum(
            expected[i].weight(actual[p]) for i, p in enumerate(pairing.partners) if p is not None
        )


def test_200_identical_expected_calls_against_a_million_executed_calls() -> None:
    expected = [ExpectedArgs({"sku": "A1", "qty": {"$approx": 2, "$tol": 0.5}}, "args")] * 200
    # Four distinct calls, each repeated: a million executed calls in four groups.
    shapes = [{"sku": "A1", "qty": 2, "request_id": n} for n in range(3)] + [{"sku": "B2"}]
    actual = [shapes[i % 4] for i in range(1_000_000)]
    pairing = pair_calls(expected, actual)
    assert pairing.matched == 400
    assert None not in pairing.partners and len(set(pairing.partners)) == 200
    # One pass to group the calls, then a flow over 1 x 4 groups: nothing quadratic.
    assert pairing.work <= 1_000_000 + 10_000, pairing.work


def test_the_metric_on_a_million_step_trace_completes() -> None:
    steps = [TraceStep(step_id=n, type="tool_call", tool_name="add_item",
                       tool_args={"sku": "A1", "qty": 2, "request_id": n}) for n in range(3)]
    trace = AgentTrace(task_id="t", steps=steps * 333_334)
    case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "add_item", "args": {"sku": "A1", "qty": 2}}] * 200)
    result = get_metric("argument_correctness").score(trace, case)
    assert result.score == 1.0 and result.details == "expected argument values matched: 400/400"


def test_the_metric_scores_repeats_with_matchers_exactly() -> None:
    steps = [TraceStep(step_id=i, type="tool_call", tool_name="add_item",
                       tool_args={"sku": sku, "qty": qty})
             for i, (sku, qty) in enumerate([("A1", 1), ("A1", 3), ("B2", 2)])]
    case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "add_item", "args": {"sku": {"$regex": "^[AB]"}, "qty": {"$approx": 3}}},
        {"tool": "add_item", "args": {"sku": "A1", "qty": {"$type": "integer"}}},
        {"tool": "add_item", "args": {"sku": "B2", "qty": 2.0}},
    ])
    result = get_metric("argument_correctness").score(AgentTrace(task_id="t", steps=steps), case)
    assert result.score == 1.0 and result.passed is True


def test_arguments_a_model_broke_are_named_not_reported_missing() -> None:
    # What the OpenAI SDK hands back when the model stops mid-arguments (issue 7, item 13).
    from openai.types.chat import ChatCompletionMessage, ChatCompletionMessageToolCall
    from openai.types.chat.chat_completion_message_tool_call import Function

    from openeval.adapters import from_openai_messages

    reply = ChatCompletionMessage(role="assistant", content=None, tool_calls=[
        ChatCompletionMessageToolCall(id="call_1", type="function", function=Function(
            name="refund_order", arguments='{"order_id": "A1", "amount": 42.5')),
    ])
    trace = from_openai_messages([
        {"role": "user", "content": "Refund order A1."}, reply.model_dump(),
        {"role": "tool", "tool_call_id": "call_1", "content": "bad arguments"},
    ])
    test_case = EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "refund_order", "args": {"order_id": "A1", "amount": 42.5}},
    ])
    found = get_metric("argument_correctness").measure(trace, test_case)
    assert found.details == (
        'expected argument values matched: 0/2; refund_order: arguments are not valid JSON: '
        '"{\\"order_id\\": \\"A1\\", \\"amount\\": 42.5"'
    )
    (row,) = found.data["alignment"]
    assert (row["status"], row["differences"][0]["where"]) == ("args differ", "arguments")

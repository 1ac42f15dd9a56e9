"""The tool calls of steps made in one loop, against one :func:`_step_call` per step, and the
count of repeats with keys read in the loop, against the keys read through ``Call.key``
(proposals/0301-score-read-and-rows.md)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openeval.checks._steps import Call, _most_common, _step_call, _step_calls
from openeval.models import TraceStep


class _Args(dict[str, Any]):
    """A dict that is not exactly a dict: the general path decides."""


STEPS: dict[str, dict[str, Any]] = {
    "plain call": {"tool_name": "search", "tool_args": {"q": 1}},
    "no arguments": {"tool_name": "search"},
    "arguments kept as text": {"tool_name": "search", "content": "{oops",
                               "error": "arguments are not JSON"},
    "arguments a list": {"tool_name": "search", "tool_args": [1, 2]},
    "arguments a dict subclass": {"tool_name": "search", "tool_args": _Args(q=1)},
    "failed": {"tool_name": "search", "tool_args": {"q": 1}, "error": "timeout"},
    "empty error": {"tool_name": "search", "tool_args": {"q": 1}, "error": ""},
    "denied": {"tool_name": "search", "tool_args": {"q": 1}, "denied": True},
    "denied with a reason": {"tool_name": "rm", "tool_args": {}, "denied": True,
                             "error": "policy"},
    "no name": {"tool_name": None, "tool_args": {"q": 1}},
    "a name that is not text": {"tool_name": 7, "tool_args": {"q": 1}},
    "not a call": {"type": "thought", "content": "thinking"},
    "a result": {"type": "tool_result", "tool_name": "search", "tool_result": "ok"},
}


def _step(step_id: int, fields: dict[str, Any]) -> TraceStep:
    return TraceStep(step_id=step_id, **{"type": "tool_call", **fields})


def _shown(calls: list[Call]) -> list[str]:
    return [f"{call!r} {call.key}" for call in calls]


@pytest.mark.parametrize("fields", STEPS.values(), ids=list(STEPS))
def test_one_loop_makes_the_calls_step_call_makes(fields: dict[str, Any]) -> None:
    steps = [_step(1, fields), _step(2, {"tool_name": "a", "tool_args": {}}), _step(3, fields)]
    general = [_step_call(step) for step in steps if step.type == "tool_call"]
    assert _shown(_step_calls(steps)) == _shown(general)


@given(st.lists(st.sampled_from(list(STEPS.values())), max_size=8))
def test_any_steps_give_the_same_calls(chosen: list[dict[str, Any]]) -> None:
    steps = [_step(i, fields) for i, fields in enumerate(chosen, 1)]
    general = [_step_call(step) for step in steps if step.type == "tool_call"]
    assert _shown(_step_calls(steps)) == _shown(general)


def _most_common_through_keys(calls: list[Call]) -> tuple[int, Call | None]:
    if not calls:
        return 0, None
    keys = [call.key for call in calls]
    best_key, best = max(Counter(keys).items(), key=lambda item: item[1])
    return best, calls[keys.index(best_key)]


ARGS = st.sampled_from([{}, {"q": 1}, {"q": 1.0}, {"q": "1"}, {"q": [1, 2]}, {"r": None}])


@given(st.lists(st.tuples(st.sampled_from(["a", "b", ""]), ARGS), max_size=10), st.booleans())
def test_the_count_reads_the_keys_call_key_reads(
    made: list[tuple[str, dict[str, Any]]], keys_first: bool,
) -> None:
    calls = [Call(i, name, args, None, False, False) for i, (name, args) in enumerate(made, 1)]
    if keys_first:  # keys made already (another check read them) are taken as they are
        for call in calls[::2]:
            assert call.key
    again = [Call(i, name, args, None, False, False) for i, (name, args) in enumerate(made, 1)]
    count, call = _most_common(calls)
    want_count, want = _most_common_through_keys(again)
    assert count == want_count
    assert (call.position if call else None) == (want.position if want else None)

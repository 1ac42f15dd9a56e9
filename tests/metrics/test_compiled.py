"""CompiledCase: each form built once and kept, a failing build retried, nothing compiled
crossing a pickle; and the scorer calling a subclass's own ``measure`` when it has one."""

from __future__ import annotations

import pickle

import pytest

from openeval.errors import TestCaseError
from openeval.metrics.arguments import ArgumentCorrectness
from openeval.metrics.base import Measurement, reads_compiled
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase

CASE = EvalTestCase(task_id="t", expected_tool_calls=[{"tool": "f", "args": {"a": 1}}])


def test_a_form_is_built_once_and_kept() -> None:
    built: list[str] = []

    def build(test_case: EvalTestCase) -> str:
        built.append(test_case.task_id)
        return test_case.task_id

    compiled = CompiledCase(CASE)
    assert [compiled.once(build) for _ in range(3)] == ["t", "t", "t"]
    assert built == ["t"]


def test_a_build_that_raises_raises_every_time() -> None:
    calls: list[int] = []

    def build(test_case: EvalTestCase) -> None:
        calls.append(1)
        raise TestCaseError("bad matcher", location="expected_tool_calls[0].args.a")

    compiled = CompiledCase(CASE)
    for _ in range(2):
        with pytest.raises(TestCaseError, match="bad matcher"):
            compiled.once(build)
    assert len(calls) == 2


def test_a_pickle_carries_the_case_and_no_form() -> None:
    compiled = CompiledCase(CASE)
    compiled.once(len_of_calls)
    copied = pickle.loads(pickle.dumps(compiled))
    assert copied.test_case == CASE
    assert copied._built == {}  # rebuilt in the process that scores


def len_of_calls(test_case: EvalTestCase) -> int:
    return len(test_case.expected_tool_calls)


class _Lenient(ArgumentCorrectness):
    """A user's subclass that changes ``measure`` only."""

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        return Measurement(0.5, "my own rule")


def test_the_scorer_calls_a_subclass_measure() -> None:
    assert reads_compiled(ArgumentCorrectness)
    assert not reads_compiled(_Lenient)


def test_a_derived_form_reads_the_shared_forms_once() -> None:
    from openeval.metrics._common import expected_calls

    built: list[str] = []

    def counts(case: CompiledCase) -> int:
        built.append("counts")
        return len(case.once(expected_calls))

    case = CompiledCase(EvalTestCase(task_id="t", expected_tool_calls=[
        {"tool": "a", "args": {}}, {"tool": "b", "args": {"x": 1}}]))
    assert case.derived(counts) == 2 and case.derived(counts) == 2
    assert built == ["counts"]
    assert case.once(expected_calls) is case.once(expected_calls)  # one build, shared


def test_a_derived_build_that_raises_raises_every_time() -> None:
    from openeval.metrics.tool_selection import _expected_counts

    case = CompiledCase(EvalTestCase(task_id="t", expected_tool_calls=[{"tool": ""}]))
    for _ in range(2):
        with pytest.raises(TestCaseError, match="non-empty tool name"):
            case.derived(_expected_counts)

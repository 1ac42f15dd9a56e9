"""What a check reads: one trace, its test case, the entry's settings and earlier scores.

The check library's reference was written for a tracing product, where a check sees one span (its
input, output and attributes), the agent's other spans, and the dataset item it ran. Here a check
sees an :class:`~openeval.models.AgentTrace` and, in a suite, its
:class:`~openeval.models.EvalTestCase`. :class:`CheckContext` holds both and offers the reference's
views over them, so every check reads the same names (proposals/0040-check-library.md):

=================  ========================================================================
view               where it comes from
=================  ========================================================================
``input``          the conversation before the reply (``trace.messages`` without the final
                   assistant message), or ``trace.input`` when the trace kept no messages
``output``         ``trace.final_output``
``metadata``       ``trace.metadata``
``steps``          ``trace.steps``
``spans``          one dict per step (docs/semantics.md#span-dicts; see :func:`step_span`)
``expected_output`` ``test_case.expected_output``; None without a test case
``params``         the check entry's settings
``scores``         entry name -> :class:`~openeval.scores.Scores` of the entries run before
=================  ========================================================================
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, TypeVar

from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.scores import Score, Scores

_STEP_KINDS: dict[str, str] = {
    "thought": "llm",
    "tool_call": "tool",
    "tool_result": "tool",
    "output": "span",
}


def step_span(step: TraceStep) -> dict[str, Any]:
    """Return one step as a span dict (see docs/semantics.md#span-dicts).

    Keys: ``name`` (the tool's name for a tool step, else the step type), ``kind`` (``llm`` for
    a thought, ``tool`` for a tool call or unpaired result, ``span`` for output), ``tool_name``,
    ``model``, ``input`` (the call's arguments), ``output`` (the tool's result, or the step's
    text), ``duration_ms``, ``error`` (a denied call reads ``"denied: <reason>"``), ``tokens``,
    and ``step_id`` and ``turn`` from the step.
    """
    kind = _STEP_KINDS.get(step.type, "span")
    error = step.error
    if step.denied:
        error = f"denied: {step.error or 'no reason given'}"
    if step.type == "tool_call":
        # Arguments that did not parse are kept as raw text in the step's content.
        call_input: Any = step.tool_args if step.tool_args is not None else (step.content or None)
        output: Any = step.tool_result
    else:
        call_input = None
        output = step.content
    return {
        "name": step.tool_name if kind == "tool" and step.tool_name else step.type,
        "kind": kind,
        "tool_name": step.tool_name,
        "model": step.model,
        "input": call_input,
        "output": output,
        "duration_ms": step.latency_ms,
        "error": error,
        "tokens": step.tokens,
        "step_id": step.step_id,
        "turn": step.turn,
    }


_T = TypeVar("_T")


class TraceMemo:
    """What checks derive from one trace the same way (its tool calls, with their keys), made
    once and shared by every check of that trace.

    The scorer gives all the contexts of one trace the same memo, so six checks reading the
    tool calls build them once. A value is kept for one trace object: asked about another
    (a context copied with ``dataclasses.replace(ctx, trace=...)``), the memo starts afresh,
    so a check never reads what was derived from a different trace. Values are read-only by
    convention: callers hand out copies of containers.
    """

    __slots__ = ("_trace", "_values")

    def __init__(self) -> None:
        self._trace: AgentTrace | None = None
        self._values: dict[str, Any] = {}

    def get(self, trace: AgentTrace, what: str, make: Callable[[], _T]) -> _T:
        """Return the value ``what`` of ``trace``: made by ``make`` the first time asked."""
        if self._trace is not trace:
            self._trace = trace
            self._values = {}
        values = self._values
        found: _T = values.get(what, _MISSING)  # one lookup: asked a few times per check
        if found is _MISSING:
            found = values[what] = make()
        return found


_MISSING: Any = object()


@dataclass(frozen=True)
class CheckContext:
    """Everything one check may read about one run of the agent.

    Build it with :func:`as_context` from a text or a trace; the runner builds it with the test
    case, the entry's settings and the scores of the entries before it.
    """

    trace: AgentTrace
    """The run under evaluation."""
    test_case: EvalTestCase | None = None
    """The test case the run is scored against; None outside a suite."""
    params: Mapping[str, Any] = field(default_factory=dict)
    """The check entry's settings, as written in the test case."""
    scores: Mapping[str, Scores] = field(default_factory=dict)
    """Scores of the check entries run before this one, by entry name."""
    memo: TraceMemo = field(default_factory=TraceMemo, compare=False, repr=False)
    """Views of the trace derived once and shared by the contexts the scorer builds for one
    trace (see :class:`TraceMemo`); a context of its own starts with an empty one."""

    @cached_property
    def input(self) -> Any:
        """The conversation before the reply, as ``{"role", "content"}`` dicts in order.

        The trace's last message is left out when it is the assistant's (it is the reply). A
        trace that kept no messages gives its ``input`` text instead.
        """
        messages = self.trace.messages
        if not messages:
            return self.trace.input
        if messages[-1].role == "assistant":
            messages = messages[:-1]
        return [{"role": m.role, "content": m.content} for m in messages]

    @property
    def output(self) -> str:
        """The agent's final answer (``trace.final_output``)."""
        return self.trace.final_output

    @property
    def metadata(self) -> dict[str, Any]:
        """The trace's metadata dict (the reference's span attributes)."""
        return self.trace.metadata

    @property
    def steps(self) -> list[TraceStep]:
        """The trace's steps, in execution order."""
        return self.trace.steps

    @cached_property
    def spans(self) -> list[dict[str, Any]]:
        """The steps as span dicts (see :func:`step_span`), in order."""
        return [step_span(step) for step in self.trace.steps]

    @property
    def expected_output(self) -> Any:
        """The test case's reference answer; None without a test case or when it has none."""
        return None if self.test_case is None else self.test_case.expected_output

    def score(self, evaluator: str, score_name: str | None = None, default: Any = None) -> Any:
        """Return the value of a score an earlier check entry returned.

        ``score_name`` picks the score by name; None picks the entry's first score. Returns
        ``default`` when the entry did not run, returned no scores, or has no score of that
        name (a misspelt name never reads as another score's value).
        """
        found = self.scores.get(evaluator)
        if not found:
            return default
        if score_name is None:
            return found[0].value
        for score in found:
            if isinstance(score, Score) and score.name == score_name:
                return score.value
        return default


_new = object.__new__
_set = object.__setattr__


def scorer_context(
    trace: AgentTrace, test_case: EvalTestCase | None, params: Mapping[str, Any],
    scores: Mapping[str, Scores], memo: TraceMemo,
) -> CheckContext:
    """Return ``CheckContext(trace, test_case, params, scores, memo)``, equal to it, built
    without the frozen dataclass's ``__init__`` (one guarded ``setattr`` per field): the scorer
    builds one per check per trace (proposals/0300-score-loop-once-per-check.md)."""
    context: CheckContext = _new(CheckContext)
    _set(context, "__dict__", {"trace": trace, "test_case": test_case, "params": params,
                               "scores": scores, "memo": memo})
    return context


def as_context(value: str | AgentTrace | CheckContext) -> CheckContext:
    """Return ``value`` as a :class:`CheckContext`.

    A context is returned as it is; a trace gets a context with no test case; a string becomes
    the final output of an otherwise empty trace.

    Raises:
        TypeError: ``value`` is none of the three.
    """
    if isinstance(value, CheckContext):
        return value
    if isinstance(value, AgentTrace):
        return CheckContext(value)
    if isinstance(value, str):
        return CheckContext(AgentTrace(task_id="", final_output=value))
    raise TypeError(
        f"expected a text, an AgentTrace or a CheckContext, got {type(value).__name__}"
    )

"""A bounded excerpt of a case's trace, kept in its result when a run is asked to keep steps.

The HTML report's case view draws a step timeline and diffs the final output against the
expected one; the result records hold neither unless the run keeps them (``openeval run
--html``, ``--report html=...`` or ``--keep-steps``, proposals/0050). The excerpt is small by
construction, so a 5,000-case results folder does not grow by the traces' size: the first
:data:`MAX_STEPS` steps, each text cut at :data:`MAX_STEP_TEXT` characters, and the final and
expected outputs cut at :data:`MAX_OUTPUT` characters.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from openeval.models import AgentTrace, EvalTestCase, TraceStep

MAX_STEPS = 200
"""Steps kept; the rest are counted in ``steps_left_out``."""
MAX_STEP_TEXT = 300
"""Longest arguments, result, content or error text kept for one step."""
MAX_OUTPUT = 4000
"""Longest final or expected output kept."""


def cut(text: str, limit: int) -> str:
    """Return ``text``, or its first ``limit - 1`` characters and ``…`` when it is longer."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True)
class ExcerptStep:
    """One step as the timeline shows it: what it was, its texts cut, its flags and timing."""

    step_id: int
    type: str
    """``thought``, ``tool_call``, ``tool_result`` or ``output``."""
    tool_name: str | None = None
    args: str | None = None
    """The call's arguments as compact JSON text (or the raw text of broken ones), cut."""
    result: str | None = None
    """What the tool returned, cut."""
    content: str = ""
    """The step's own text (a thought, an output), cut."""
    error: str | None = None
    denied: bool = False
    divergent: bool = False
    latency_ms: float | None = None
    tokens: Mapping[str, int] | None = None
    turn: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the step as the JSON object of a result file's ``trace_excerpt.steps``."""
        return {
            "step_id": self.step_id,
            "type": self.type,
            "tool_name": self.tool_name,
            "args": self.args,
            "result": self.result,
            "content": self.content,
            "error": self.error,
            "denied": self.denied,
            "divergent": self.divergent,
            "latency_ms": self.latency_ms,
            "tokens": None if self.tokens is None else dict(self.tokens),
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ExcerptStep:
        """Build a step from its JSON object (already schema-checked)."""
        return cls(**data)

    @classmethod
    def of(cls, step: TraceStep) -> ExcerptStep:
        """Return the excerpt of one trace step."""
        from openeval.jsonio import dump_json_compact

        args = None
        if step.type == "tool_call":
            args = dump_json_compact(step.tool_args) if step.tool_args is not None else (
                step.content or None)
        content = "" if step.type == "tool_call" else step.content
        return cls(
            step_id=step.step_id,
            type=step.type,
            tool_name=step.tool_name,
            args=None if args is None else cut(args, MAX_STEP_TEXT),
            result=None if step.tool_result is None else cut(step.tool_result, MAX_STEP_TEXT),
            content=cut(content, MAX_STEP_TEXT),
            error=None if step.error is None else cut(step.error, MAX_STEP_TEXT),
            denied=step.denied,
            divergent=step.divergent,
            latency_ms=step.latency_ms,
            tokens=None if step.tokens is None else dict(step.tokens),
            turn=step.turn,
        )


@dataclass(frozen=True)
class TraceExcerpt:
    """The first steps of a trace, its final output and the test case's expected output."""

    steps: tuple[ExcerptStep, ...] = ()
    steps_left_out: int = 0
    """Steps of the trace past :data:`MAX_STEPS`, not kept."""
    final_output: str = ""
    """The trace's final output, cut at :data:`MAX_OUTPUT` characters."""
    expected_output: str | None = None
    """The test case's ``expected_output`` as text (JSON text when it is not a string), cut;
    None when the case gives none."""

    def to_dict(self) -> dict[str, Any]:
        """Return the excerpt as the JSON object of a result file's ``trace_excerpt``."""
        return {
            "steps": [step.to_dict() for step in self.steps],
            "steps_left_out": self.steps_left_out,
            "final_output": self.final_output,
            "expected_output": self.expected_output,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TraceExcerpt:
        """Build an excerpt from its JSON object (already schema-checked)."""
        return cls(
            steps=tuple(ExcerptStep.from_dict(step) for step in data["steps"]),
            steps_left_out=data["steps_left_out"],
            final_output=data["final_output"],
            expected_output=data["expected_output"],
        )

    @classmethod
    def of(cls, trace: AgentTrace, test_case: EvalTestCase | None = None) -> TraceExcerpt:
        """Return the bounded excerpt of ``trace`` (and of ``test_case``'s expected output)."""
        from openeval.jsonio import dump_json_compact

        expected = None if test_case is None else test_case.expected_output
        if expected is not None and not isinstance(expected, str):
            expected = dump_json_compact(expected)
        return cls(
            steps=tuple(ExcerptStep.of(step) for step in trace.steps[:MAX_STEPS]),
            steps_left_out=max(len(trace.steps) - MAX_STEPS, 0),
            final_output=cut(trace.final_output, MAX_OUTPUT),
            expected_output=None if expected is None else cut(expected, MAX_OUTPUT),
        )

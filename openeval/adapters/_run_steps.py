"""Steps of a run recorded as model turns and tool runs, the shape most own-JSON formats share.

The Agents SDK, Langfuse, MLflow and ADK each record a run as model calls (which may ask for
tool calls) and tool runs (which carry what ran: arguments, result, error), in time order.
:class:`RunBuilder` turns them into steps with one rule: a tool run fills the call a model
turn asked for (by call id, else the oldest waiting call of that tool), or is a call of its own
when no turn asked for it; a call asked for and never run keeps no result. Turn numbers,
messages and the final output follow :class:`~openeval.adapters._toolkit.Turns`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from openeval.adapters._toolkit import CallPairing, Errors, Turns, require_activity
from openeval.adapters._values import duration_ms
from openeval.adapters.tool_args import ToolArgs
from openeval.models import AgentTrace, MessageRole, Signal, TraceStep


@dataclass(frozen=True)
class AskedCall:
    """A tool call a model turn asked for."""

    name: str
    arguments: ToolArgs
    call_id: str | None = None


class RunBuilder:
    """Collects a run's steps and conversation in the order its parts are given."""

    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self.turns = Turns()
        self.pairing = CallPairing()
        self.turn: int | None = None
        self.tool_definitions: list[dict[str, Any]] = []

    def say(self, role: MessageRole, text: str) -> None:
        """Append a system or user message (they make no step)."""
        self.turns.say(role, text)

    def model_turn(
        self,
        text: str,
        calls: list[AskedCall],
        *,
        start: float | None = None,
        end: float | None = None,
        model: str | None = None,
        provider: str | None = None,
        tokens: dict[str, int] | None = None,
        finish_reason: str | None = None,
        error: str | None = None,
    ) -> int:
        """Append one model turn (a thought step, then one step per asked call); return its
        number."""
        number = self.turn = self.turns.start()
        self.steps.append(TraceStep(
            step_id=0, type="thought", content=text, timestamp=start or 0.0, model=model,
            provider=provider, tokens=tokens, latency_ms=duration_ms(start, end), turn=number,
            finish_reason=finish_reason, error=error,
        ))
        self.turns.say("assistant", text, turn=number)
        for call in calls:
            step = TraceStep(
                step_id=0, type="tool_call", content=call.arguments.raw, tool_name=call.name,
                tool_args=call.arguments.args, error=call.arguments.error,
                timestamp=start or 0.0, turn=number,
            )
            self.steps.append(step)
            self.pairing.expect(step, call.call_id)
        self.turns.answer(text, asked_for_tools=bool(calls))
        return number

    def tool_run(
        self,
        name: str | None,
        arguments: ToolArgs | None,
        result: str | None,
        *,
        error: str | None = None,
        call_id: str | None = None,
        start: float | None = None,
        end: float | None = None,
        denied: bool = False,
    ) -> TraceStep:
        """Record one tool run: fill the call it answers, or append a call of its own.

        ``arguments`` None keeps what the model asked for (the source did not record what ran).
        """
        step = self.pairing.take(call_id, name)
        if step is None:
            step = TraceStep(step_id=0, type="tool_call", tool_name=name, turn=self.turn)
            self.steps.append(step)
            if arguments is None:
                arguments = ToolArgs(None)
        if arguments is not None:
            step.tool_args, step.content, step.error = (
                arguments.args, arguments.raw, arguments.error
            )
        step.tool_result = result
        if start is not None:
            step.timestamp = start
        step.latency_ms = duration_ms(start, end)
        if error is not None:
            step.error = error if step.error is None else f"{step.error}; {error}"
        step.denied = step.denied or denied
        self.turns.say("tool", result or "", name=step.tool_name)
        self.turns.acted()
        return step

    def awaits(self, name: str) -> bool:
        """Return whether a call of tool ``name`` is waiting for its run."""
        return any(open_call.step.tool_name == name for open_call in self.pairing.waiting)

    def take_waiting(self, prefix: str) -> TraceStep | None:
        """Return (no longer waiting) the oldest waiting call whose tool name starts so."""
        waiting = self.pairing.waiting
        for index, open_call in enumerate(waiting):
            if (open_call.step.tool_name or "").startswith(prefix):
                return waiting.pop(index).step
        return None

    def trace(
        self,
        task_id: str,
        errors: Errors,
        *,
        what: str,
        metadata: dict[str, Any] | None = None,
        signals: list[Signal] | None = None,
        input: str | None = None,
        final_output: str | None = None,
    ) -> AgentTrace:
        """Return the trace built; raise TraceFormatError (``what`` was expected) when it
        holds nothing an agent did."""
        for number, step in enumerate(self.steps, start=1):
            step.step_id = number
        trace = AgentTrace(
            task_id=task_id,
            input=self.turns.first_user_text if input is None else input,
            steps=self.steps,
            final_output=self.turns.final_output if final_output is None else final_output,
            metadata=metadata or {},
            messages=self.turns.messages,
            signals=[] if signals is None else signals,
            tool_definitions=self.tool_definitions,
        )
        return require_activity(trace, errors, what)

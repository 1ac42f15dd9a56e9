"""Did the agent recover when a tool call was refused? (``denial_recovery_rate``)"""

from __future__ import annotations

from openeval.metrics._common import join_bounded, step_denied
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.values import json_equal


class DenialRecoveryRate(Metric):
    """Share of denied tool calls the agent recovered from.

    A denied call (permission denied, validation error, rate limited ...) is recovered when
    (1) no later tool call repeats it, same tool name and equal arguments, whether or not that
    repeat was denied too, and (2) the agent went on: a later tool call that was not denied,
    or a non-empty final output. Each denied call counts once.

    Passes when the score reaches the pass line (default 1.0: every denial recovered); a trace
    with no denial scores 1.0 and passes when its source records denials (Fixtura, native
    JSON). Fails when the agent retried a refused call as is, or stopped dead after it (an empty
    last turn is no answer). Not applicable on a trace whose source cannot mark a call denied
    (OpenAI, Anthropic, LangChain, OTel) and where no call is denied: zero denials there is no
    evidence. A test case's ``denied_when`` rule makes those sources record denials.
    """

    name = "denial_recovery_rate"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return recovered denials over denials (1.0 when there are none)."""
        # Most traces deny nothing: one pass in C says so before any list is built.
        calls = ([] if not any(map(step_denied, trace.steps))
                 else [step for step in trace.steps if step.type == "tool_call"])
        denied_at = [i for i, step in enumerate(calls) if step.denied]
        if not denied_at:
            if not trace.records("denials"):
                return not_applicable(
                    "this trace's format cannot mark a call denied (add a 'denied_when' rule "
                    "to the test case to find denials in tool results)"
                )
            return Measurement(1.0, "no denied tool calls")
        last_allowed = max((i for i, step in enumerate(calls) if not step.denied), default=-1)
        has_output = bool(trace.final_output)
        problems: list[str] = []
        for i in denied_at:
            step = calls[i]
            retry = _repeat_of(step, calls, i + 1)
            if retry is not None:
                problems.append(f"{_label(step)} retried unchanged at step {retry.step_id}")
            elif last_allowed < i and not has_output:
                problems.append(f"{_label(step)}: nothing followed (no allowed call, no output)")
        total = len(denied_at)
        recovered = total - len(problems)
        if not problems:
            return Measurement(1.0, f"denied tool calls recovered: {total}/{total}")
        head = f"denied tool calls recovered: {recovered}/{total}"
        return Measurement(recovered / total, join_bounded([head, *problems]))


def _repeat_of(denied: TraceStep, calls: list[TraceStep], start: int) -> TraceStep | None:
    """Return the first call from ``start`` on with the same tool and equal args, else None."""
    args = denied.tool_args or {}
    for index in range(start, len(calls)):
        step = calls[index]
        if step.tool_name == denied.tool_name and json_equal(args, step.tool_args or {}):
            return step
    return None


def _label(step: TraceStep) -> str:
    return f"{step.tool_name or '<unnamed tool>'} denied at step {step.step_id}"

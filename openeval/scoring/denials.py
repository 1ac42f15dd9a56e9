"""The denial rule: mark tool calls denied in formats that have no field for it.

OpenAI, Anthropic, LangChain and OTel traces cannot say that a permission layer refused a
call; the tool result just reads "permission denied: ...". A test case's ``denied_when``
patterns name such results, so ``denial_recovery_rate`` can judge recoveries on those traces
instead of being not applicable.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from openeval.errors import TestCaseError
from openeval.matching.regex_bounds import backtracking_risk
from openeval.matching.regex_budget import bounded_search
from openeval.models import AgentTrace

SEARCHED_CHARS = 10_000
"""Only the start of a long tool result is searched, which bounds a pathological pattern; every
search also has a CPU budget (proposals/0310-regex-cpu-budget.md)."""


def compile_denial_rule(
    patterns: Sequence[str], *, source: object = None
) -> tuple[re.Pattern[str], ...]:
    """Return ``patterns`` compiled (case-insensitive); raise TestCaseError naming a bad one."""
    compiled = []
    for i, pattern in enumerate(patterns):
        try:
            compiled.append(re.compile(pattern, re.IGNORECASE))
        except re.error as exc:
            raise TestCaseError(
                f"{pattern!r} is not a regular expression: {exc}",
                source=None if source is None else str(source), location=f"denied_when[{i}]",
            ) from None
        # Searched in every tool result of every trace; read with the flag it is compiled with.
        risk = backtracking_risk(pattern, re.IGNORECASE)
        if risk is not None:
            raise TestCaseError(f"the pattern {pattern!r} {risk}",
                                source=None if source is None else str(source),
                                location=f"denied_when[{i}]")
    return tuple(compiled)


def mark_denials(trace: AgentTrace, rule: Sequence[re.Pattern[str]]) -> AgentTrace:
    """Return ``trace`` with every tool call whose error or result matches ``rule`` denied.

    The trace then records denials (its ``signals`` gain ``denials``). ``trace`` itself is not
    changed. Raises RegexGaveUp (an OpenEvalError naming the pattern) when a search uses up its
    CPU budget.
    """
    if not rule:
        return trace
    steps = list(trace.steps)
    for i, step in enumerate(steps):
        if step.type != "tool_call" or step.denied:
            continue
        text = "\n".join(t[:SEARCHED_CHARS] for t in (step.error, step.tool_result) if t)
        hit = next((p for p in rule if bounded_search(p, text, "denied_when: the pattern")),
                   None)
        if hit is not None:
            steps[i] = replace(step, denied=True,
                               error=step.error or f"denied (matched {hit.pattern!r})")
    signals = trace.signals
    if signals is not None and "denials" not in signals:
        signals = [*signals, "denials"]
    return replace(trace, steps=steps, signals=signals)

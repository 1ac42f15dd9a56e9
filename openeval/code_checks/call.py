"""Calling a user's check on one case: its inputs by name in, named scores out.

:func:`run_code_check` loads the check (:mod:`.loader`), builds the inputs it declares from
the trace and test case (:func:`build_inputs`), calls it under its time limit (every way it
can fail becomes a :class:`~openeval.code_checks.types.CodeCheckError` naming ``file:line``),
and reads what it returned (:func:`as_scores`, docs/semantics.md#user-checks):

- ``True``/``False`` -> one BOOLEAN score: the verdict;
- an int or float -> one NUMERIC score, judged against the entry's ``threshold`` (not
  evaluated without one);
- ``CheckResponse(score, explanation)`` and ``(value, explanation)`` -> the same, with the
  explanation as the score's comment;
- a ``Score`` or ``Scores`` -> as returned (an unnamed single score takes the check's name).

Each call gets its own copy of the inputs, so a check that edits the trace, the test case or
its params changes nothing another check sees.
"""

from __future__ import annotations

import copy
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from openeval.code_checks._guard import guarded, safe_text, shown
from openeval.code_checks.loader import CodeCheckRef, load_check
from openeval.code_checks.types import CheckResponse, code_error
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scores import Score, Scores

_MODEL_TYPES = (AgentTrace, EvalTestCase, Message, TraceStep)
"""Plain dataclasses (no slots, no frozen fields): copied field by field."""

EXPECTED_RETURN = (
    "True or False, a number, CheckResponse(score, explanation), a (value, explanation) "
    "tuple, a Score or Scores"
)


def conversation_before_reply(trace: AgentTrace) -> Any:
    """Return what the model was given: the conversation as ``{"role", "content"}`` dicts
    without the final assistant reply; ``trace.input`` when the trace kept no messages."""
    if not trace.messages:
        return trace.input
    messages = trace.messages
    if messages[-1].role == "assistant":
        messages = messages[:-1]
    return [{"role": m.role, "content": m.content} for m in messages]


_INPUT_OF: dict[str, Callable[[AgentTrace, EvalTestCase | None], Any]] = {
    "model_output": lambda trace, case: trace.final_output,
    "scenario_input": lambda trace, case: case.input if case and case.input else trace.input,
    "scenario_result": lambda trace, case: case.expected_output if case else None,
    "metadata": lambda trace, case: trace.metadata,
    "model_input": lambda trace, case: conversation_before_reply(trace),
    "trace": lambda trace, case: trace,
    "steps": lambda trace, case: trace.steps,
    "tool_calls": lambda trace, case: trace.tool_calls(),
    "test_case": lambda trace, case: case,
}
"""How each input is read off a case; ``params`` and ``scores`` come from the run."""

_FROM_TRACE = frozenset({"metadata", "trace", "steps", "tool_calls"})
_FROM_CASE = frozenset({"scenario_result", "test_case"})
"""The inputs that hand the check something it could change, and so need a copy."""


def build_inputs(
    names: Sequence[str],
    *,
    trace: AgentTrace,
    test_case: EvalTestCase | None,
    params: Mapping[str, Any],
    scores: Mapping[str, Scores],
    fresh: bool = False,
) -> dict[str, Any]:
    """Return the inputs ``names`` asks for, as copies (see the module docstring); with
    ``fresh``, the trace and test case are this call's own already (just unpickled) and are
    handed over as they are.

    ``model_output`` the final output; ``scenario_input`` the test case's input (else the
    trace's); ``scenario_result`` the test case's ``expected_output``; ``metadata`` the trace's;
    ``model_input`` :func:`conversation_before_reply`; ``trace``; ``steps``; ``tool_calls`` the
    ``tool_call`` steps; ``test_case``; ``params`` the entry's settings; ``scores`` the Scores
    of the metrics and checks run before it, by name.
    """
    wanted = set(names)
    # One copy of each, so trace, steps and tool_calls still share their steps.
    own_trace = _copy(trace) if wanted & _FROM_TRACE and not fresh else trace
    own_case = _copy(test_case) if wanted & _FROM_CASE and not fresh else test_case
    found: dict[str, Any] = {}
    for name in names:
        if name == "params":
            found[name] = _copy(dict(params))
        elif name == "scores":  # a Score is frozen: new lists are copy enough
            found[name] = {key: Scores(value) for key, value in scores.items()}
        else:
            found[name] = _INPUT_OF[name](own_trace, own_case)
    return found


_IMMUTABLE = frozenset({str, int, float, bool, type(None)})


def _copy(value: Any) -> Any:
    """Return a deep copy of ``value``, fast for what inputs are made of (the model's
    dataclasses and JSON values); anything else goes through :func:`copy.deepcopy`.

    ``copy.deepcopy`` of a 10,000-step trace takes most of a second; this, a small part of it
    (benchmarks/code_checks.py).
    """
    kind = type(value)
    if kind in _IMMUTABLE:
        return value
    # Immutable items are tested inline: a call per item is most of the cost.
    if kind is dict:
        return {k: v if type(v) in _IMMUTABLE else _copy(v) for k, v in value.items()}
    if kind is list:
        return [v if type(v) in _IMMUTABLE else _copy(v) for v in value]
    if kind is tuple:
        return tuple(v if type(v) in _IMMUTABLE else _copy(v) for v in value)
    if kind in _MODEL_TYPES:
        fresh = object.__new__(kind)
        fresh.__dict__.update(
            {k: v if type(v) in _IMMUTABLE else _copy(v) for k, v in vars(value).items()}
        )
        return fresh
    return copy.deepcopy(value)


def run_code_check(
    ref: CodeCheckRef,
    *,
    name: str,
    params: Mapping[str, Any],
    trace: AgentTrace,
    test_case: EvalTestCase | None,
    scores: Mapping[str, Scores],
    fresh: bool = False,
) -> Scores:
    """Return the scores of the check ``ref`` on one case; ``name`` is its instance name.
    ``fresh``: the trace and test case belong to this call alone (see :func:`build_inputs`).

    Raises CodeCheckError (see the module docstring); KeyboardInterrupt goes through.
    """
    loaded = load_check(ref)
    inputs = build_inputs(loaded.inputs, trace=trace, test_case=test_case, params=params,
                          scores=scores, fresh=fresh)
    returned = guarded(lambda: loaded.function(**inputs), limit=ref.time_limit,
                       what=loaded.label, file=loaded.file, line=loaded.line,
                       where=ref.reference)
    where = shown(loaded.file) if loaded.file else ref.reference
    primary = loaded.score_names[0] if loaded.score_names else name
    return as_scores(returned, name=primary, label=loaded.label, where=where, line=loaded.line)


def as_scores(returned: Any, *, name: str, label: str, where: str, line: int | None) -> Scores:
    """Return what a code check returned as Scores (see the module docstring); ``name``
    names a score the check left unnamed.

    Raises CodeCheckError at ``where:line`` (the check's definition) for anything else.
    """
    if isinstance(returned, CheckResponse):
        return Scores([_score(returned.score, returned.explanation, name, label, where, line)])
    if isinstance(returned, tuple):
        if len(returned) != 2:
            raise _wrong(returned, label, where, line)
        value, explanation = returned
        return Scores([_score(value, explanation, name, label, where, line)])
    if isinstance(returned, Score):
        return Scores([returned if returned.name else replace(returned, name=name)])
    if isinstance(returned, list) and returned and all(isinstance(s, Score) for s in returned):
        if len(returned) == 1:
            return as_scores(returned[0], name=name, label=label, where=where, line=line)
        unnamed = [i for i, s in enumerate(returned) if not s.name]
        if unnamed:
            raise code_error(
                f"{label} returned {len(returned)} scores with score {unnamed[0]} unnamed; "
                "name each one (Score(..., name='...'))", where, line,
            )
        return Scores(returned)
    return Scores([_score(returned, None, name, label, where, line)])


def _score(
    value: Any, explanation: Any, name: str, label: str, where: str, line: int | None
) -> Score:
    if explanation is not None and not isinstance(explanation, str):
        raise code_error(
            f"{label} returned an explanation of type {type(explanation).__name__}; expected "
            "a string or None", where, line,
        )
    if isinstance(value, bool):
        return Score(value, "BOOLEAN", explanation, name)
    if isinstance(value, numbers.Real):  # numpy numbers too
        number = value if isinstance(value, (int, float)) else float(value)
        try:
            return Score(number, "NUMERIC", explanation, name)
        except ValueError:  # NaN or infinite
            raise code_error(f"{label} returned {number!r}, which is not a finite number",
                             where, line) from None
    raise _wrong(value, label, where, line)


def _wrong(value: Any, label: str, where: str, line: int | None) -> Exception:
    text = safe_text(repr, value)  # no memory address: result files are the same every run
    text = text if len(text) <= 60 else text[:59] + "…"
    return code_error(
        f"{label} returned {type(value).__name__} {text}; expected {EXPECTED_RETURN}",
        where, line,
    )

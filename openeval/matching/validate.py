"""Checking a test case's matchers and trajectory settings when its file is read.

A malformed matcher or trajectory setting must stop the case at read time, with the file and
the JSON path, not surface as a wrong score later (docs/semantics.md#argument-matchers).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import orjson

from openeval.errors import TestCaseError
from openeval.matching.constraints import read_constraints
from openeval.matching.matchers import compile_fields
from openeval.matching.trajectory import TrajectorySpec, compile_calls
from openeval.values import MAX_JSON_DEPTH


def validate_test_case_matchers(
    document: Mapping[str, Any], source: str | Path | None = None
) -> None:
    """Return None when every matcher and the ``trajectory`` object of a test case are valid.

    Checks the values of ``expected_tool_calls[*].args`` and ``expected_final_state`` (an
    unknown ``$`` key, a regex that does not compile or is refused, a malformed operand), and
    ``trajectory`` with the expected calls compiled under it (its ``per_tool`` paths included),
    and the expected calls' order and count keys (ids, edges, counts).
    Raises TestCaseError naming ``source`` and the JSON path of the first problem. ``document``
    must already fit the test case schema.
    """
    calls = document.get("expected_tool_calls") or []
    trajectory = document.get("trajectory")
    if trajectory is not None:
        compile_calls(calls, TrajectorySpec.from_json(trajectory, "trajectory", source),
                      source=source)
    elif calls_need_compiling(calls):
        compile_calls(calls, TrajectorySpec(), source=source)
    read_constraints(calls, source=source)
    _edges_need_a_trajectory(calls, trajectory, "expected_tool_calls", source)
    if document.get("turns") is not None:
        check_turns(document["turns"], source=source)
    if document.get("state") is not None:
        from openeval.matching.state import read_state_spec

        read_state_spec(document["state"], source=source)
    state = document.get("expected_final_state")
    if isinstance(state, Mapping):
        compile_fields(state, "expected_final_state", source=source)


def calls_need_compiling(calls: Any) -> bool:
    """False when compiling ``calls`` under the default rules (no ``trajectory``) can find
    nothing wrong, so reading the case need not compile them (proposals/0305).

    That is a list of ``{"tool": name, "args": {...}}`` objects whose JSON text orjson
    writes without a ``"$`` (no key, hence no matcher, starts with ``$``) and with fewer
    than MAX_JSON_DEPTH brackets (no value nests that deep): each call is then plain
    (:class:`~openeval.matching.calls.ExpectedCall` compiles nothing of it) and its shape is
    right. Anything else (a matcher, a deep value, a value orjson cannot write, a malformed
    entry) is compiled, and refused there with its path.
    """
    if type(calls) is not list:
        return True
    for entry in calls:
        if type(entry) is not dict:
            return True
        tool = entry.get("tool")
        args = entry.get("args")
        if type(tool) is not str or not tool or (args is not None and type(args) is not dict):
            return True
    try:
        text = orjson.dumps(calls)
    except TypeError:
        return True
    return b'"$' in text or text.count(b"[") + text.count(b"{") >= MAX_JSON_DEPTH


TURN_KEYS: tuple[str, ...] = (
    "checks", "expected_output_contains", "expected_tool_calls", "max_steps", "trajectory",
    "user",
)
"""The keys of one entry of a test case's ``turns``."""


def check_turns(value: Any, where: str = "turns", source: str | Path | None = None) -> None:
    """Raise TestCaseError naming the JSON path when ``turns`` is malformed: an entry that is
    not an object, an unknown key, a ``user`` that is not a turn number from 1, or expected
    calls, order and count keys, matchers or a trajectory that do not compile."""
    if not isinstance(value, list):
        raise TestCaseError(f"expected a list, got {type(value).__name__}", source=source,
                            location=where)
    for n, entry in enumerate(value):
        at = f"{where}[{n}]"
        if not isinstance(entry, Mapping):
            raise TestCaseError('expected an object {"user": k, ...}', source=source,
                                location=at)
        for key in entry:
            if key not in TURN_KEYS:
                raise TestCaseError(f"unknown key {key!r}; expected one of: "
                                    f"{', '.join(TURN_KEYS)}", source=source,
                                    location=f"{at}.{key}")
        user = entry.get("user")
        if isinstance(user, bool) or not isinstance(user, int) or user < 1:
            raise TestCaseError(f"expected a user turn number from 1, got {user!r}",
                                source=source, location=f"{at}.user")
        trajectory = entry.get("trajectory")
        spec = (TrajectorySpec.from_json(trajectory, f"{at}.trajectory", source)
                if trajectory is not None else TrajectorySpec())
        calls = entry.get("expected_tool_calls") or []
        compile_calls(calls, spec, where=f"{at}.expected_tool_calls", source=source)
        read_constraints(calls, f"{at}.expected_tool_calls", source)
        _edges_need_a_trajectory(calls, trajectory, f"{at}.expected_tool_calls", source)
        _check_turn_checks(entry.get("checks", []), f"{at}.checks", source)


EDGE_KEYS = ("after", "uses_result_of")
"""The order keys of an expected call that only ``trajectory_match`` judges."""


def _edges_need_a_trajectory(
    calls: Any, trajectory: Any, where: str, source: str | Path | None,
) -> None:
    """Raise TestCaseError at the first ``after`` / ``uses_result_of`` of ``calls`` when no
    ``trajectory`` is set: only trajectory_match judges order, and it is n.a. without one, so
    the edge would be read and judged by nothing (a broken order would pass)."""
    if trajectory is not None or not isinstance(calls, list):
        return
    for i, call in enumerate(calls):
        if not isinstance(call, Mapping):
            continue
        for key in EDGE_KEYS:
            if call.get(key):
                raise TestCaseError(
                    f"configures nothing: {key!r} is judged by trajectory_match, which needs a "
                    "'trajectory' beside these calls; add one (\"trajectory\": {\"mode\": "
                    "\"superset\"} judges only the edges and the calls made)", source=source,
                    location=f"{where}[{i}].{key}")


def _check_turn_checks(value: Any, where: str, source: str | Path | None) -> None:
    """Raise TestCaseError unless ``value`` is a list of built-in check entries: a code check
    runs only where the case's own ``checks`` run it (worker process, opt-in), not per turn.
    Each check's settings are checked where the check library is known
    (:func:`openeval.scoring.validate.check_turn_checks`)."""
    if not isinstance(value, list):
        raise TestCaseError(f"expected a list of check entries, got {type(value).__name__}",
                            source=source, location=where)
    names: dict[str, int] = {}
    for i, entry in enumerate(value):
        at = f"{where}[{i}]"
        if not isinstance(entry, Mapping):
            raise TestCaseError('expected an object {"check": NAME, ...}', source=source,
                                location=at)
        if "code" in entry:
            raise TestCaseError("a code check cannot run inside a turn; judge the whole "
                                "trace with the case's own 'checks'", source=source,
                                location=f"{at}.code")
        kind = entry.get("check")
        if not isinstance(kind, str) or not kind:
            raise TestCaseError("expected a 'check' key naming a check", source=source,
                                location=at)
        name = entry.get("name", kind)
        if not isinstance(name, str) or not name:
            raise TestCaseError("expected a non-empty name", source=source,
                                location=f"{at}.name")
        if name in names:
            raise TestCaseError(f"name {name!r} is already used by {where}[{names[name]}]; "
                                "give this entry its own 'name'", source=source,
                                location=f"{at}.name")
        names[name] = i
        threshold = entry.get("threshold")
        if threshold is not None and (isinstance(threshold, bool)
                                      or not isinstance(threshold, (int, float))):
            raise TestCaseError(f"expected a number, got {threshold!r}", source=source,
                                location=f"{at}.threshold")

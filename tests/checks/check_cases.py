"""Check cases as data: ``tests/data/checks/<area>.json``, read and run by the area's tests.

A **check case** is a JSON object:

- ``id``: a short name (the test id is ``<check>/<id>``); ``check``: the function's name;
- the first argument, one of: ``text`` (a string), ``value`` (any JSON value, passed as it is),
  ``trace`` (an :class:`AgentTrace` dict, with an optional ``test_case`` dict, passed as a
  :class:`CheckContext`), or ``reply`` with ``expected_output`` (a context whose final output is
  ``reply`` and whose test case holds ``expected_output``);
- ``settings``: keyword arguments;
- then what must come back: ``scores`` (``{name: value}``, numbers compared to 1e-3; every
  score named must be present), ``names`` (the exact score names, in order), ``comment`` (a
  substring of the primary score's comment), ``returns`` (the exact return value, for helpers
  that return no Scores), or ``raises`` (a substring of the ValueError's message).

A **call case** (``text.json``, ``util.json``, ``combine.json``) runs any function of a module:
``{"id", "call": "normalize", "args": [...], "kwargs": {...}, "returns": ...}`` (or ``raises``).
In ``args`` and ``kwargs``, ``{"$context": {...}}`` builds a context as above, ``{"$trace":
{...}}`` an :class:`AgentTrace`, ``{"$score": {...}}`` a :class:`Score` and ``{"$message":
{...}}`` a :class:`Message`. A result that is a Score or Scores is compared as score dicts.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

import openeval.checks as checks
from openeval.checks import CheckContext
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace, EvalTestCase, Message
from openeval.scores import Score, Scores

DATA = Path(__file__).resolve().parents[1] / "data" / "checks"
_FIRST_ARGUMENT = ("text", "value", "trace", "reply")


def load(area: str) -> list[dict[str, Any]]:
    """Return the cases of ``tests/data/checks/<area>.json``."""
    cases: list[dict[str, Any]] = read_json_file(DATA / f"{area}.json")
    return cases


def params(area: str, key: str = "check") -> list[Any]:
    """Return the cases of ``area`` as pytest params with readable ids."""
    return [pytest.param(case, id=f"{case[key]}/{case['id']}") for case in load(area)]


def context(spec: dict[str, Any]) -> CheckContext:
    """Return the context a ``{"trace": ..., "test_case": ...}`` or ``reply`` spec means."""
    if "reply" in spec:
        trace = AgentTrace(task_id="case", final_output=spec["reply"])
        test_case = EvalTestCase(task_id="case", expected_output=spec.get("expected_output"))
        return CheckContext(trace, test_case)
    test_case = spec.get("test_case")
    return CheckContext(
        AgentTrace.from_dict({"task_id": "case", **spec["trace"]}),
        None if test_case is None else EvalTestCase.from_dict({"task_id": "case", **test_case}),
    )


def first_argument(case: dict[str, Any]) -> Any:
    """Return the first argument a check case gives its check."""
    given = [key for key in _FIRST_ARGUMENT if key in case]
    assert len(given) == 1, f"case {case['id']}: give one of {_FIRST_ARGUMENT}, got {given}"
    if given[0] in ("trace", "reply"):
        return context(case)
    return case[given[0]]


def decode(value: Any) -> Any:
    """Return ``value`` with its ``$context``, ``$trace``, ``$score`` and ``$message`` built."""
    if isinstance(value, list):
        return [decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, inner), = value.items()
        if key == "$context":
            return context(inner)
        if key == "$trace":
            return AgentTrace.from_dict({"task_id": "case", **inner})
        if key == "$score":
            return Score(**inner)
        if key == "$message":
            return Message(**inner)
    return {key: decode(item) for key, item in value.items()}


def plain(value: Any) -> Any:
    """Return a result in JSON terms: scores as dicts, tuples as lists."""
    if isinstance(value, Score):
        return {k: v for k, v in value.to_dict().items() if k != "comment"}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def same(expected: Any, actual: Any) -> bool:
    """Return whether a result matches what a case expects (numbers to 1e-3, bools exactly)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, abs_tol=1e-3)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(same(v, actual[k])
                                                         for k, v in expected.items())
    return bool(expected == actual)


def run_check_case(case: dict[str, Any]) -> Any:
    """Run one check case and assert what it expects; return the result."""
    function = getattr(checks, case["check"])
    argument = first_argument(case)
    settings = case.get("settings", {})
    if "raises" in case:
        with pytest.raises(ValueError, match=case["raises"]):
            function(argument, **settings)
        return None
    result = function(argument, **settings)
    if "returns" in case:
        assert same(case["returns"], plain(result)), result
        return result
    assert isinstance(result, Scores)
    shown = {score.name: (score.value, score.comment) for score in result}
    if "names" in case:
        assert [score.name for score in result] == case["names"], shown
    for name, value in case.get("scores", {}).items():
        assert name in shown, f"no score {name!r}: {shown}"
        assert same(value, result[name].value), shown
    if "comment" in case:
        assert case["comment"] in (result[0].comment or ""), shown
    return result


def run_call_case(module: Any, case: dict[str, Any]) -> None:
    """Run one call case against ``module`` and assert what it expects."""
    function = getattr(module, case["call"])
    args = decode(case.get("args", []))
    kwargs = decode(case.get("kwargs", {}))
    if "raises" in case:
        with pytest.raises((ValueError, TypeError), match=case["raises"]):
            function(*args, **kwargs)
        return
    result = function(*args, **kwargs)
    assert same(case["returns"], plain(result)), plain(result)

"""Order and count keys of expected calls (``after``, ``uses_result_of``, ``times``,
``min_times``, ``max_times``, ``optional``): the table in
``tests/data/matching/constraint_cases.json``, the read-time errors, and the solver against
brute force on every small case.

A table row is ``id``; ``steps`` (``{"tool": name, "args": {...}, "turn": n}``); ``expected``;
``spec`` (the ``trajectory`` object); then either the verdict ``matched`` (with optional
``details_contains``, ``rows`` as ``[expected index, step index, ok]`` in display order, and a
``note`` saying why) or ``error``, a phrase of the error the match raises.
"""

from __future__ import annotations

import random
from itertools import product
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import OpenEvalError, TestCaseError
from openeval.jsonio import read_json_file
from openeval.matching.constraints import read_constraints
from openeval.matching.solver import MAX_WORK, MODE_RULES, solve
from openeval.matching.trajectory import TRAJECTORY_MODES, TrajectorySpec, match_trajectory
from openeval.models import TraceStep

DATA = Path(__file__).resolve().parents[1] / "data" / "matching" / "constraint_cases.json"
ROWS = read_json_file(DATA)


def expand(compact: list[dict[str, Any]]) -> list[TraceStep]:
    return [
        TraceStep(step_id=n + 1, type="tool_call", tool_name=item["tool"],
                  tool_args=item.get("args"), turn=item.get("turn"))
        for n, item in enumerate(compact)
    ]


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in ROWS])
def test_constraint_case(row: dict[str, Any]) -> None:
    steps = expand(row["steps"])
    spec = TrajectorySpec.from_json(row["spec"])
    if "error" in row:
        with pytest.raises(OpenEvalError, match=row["error"]):
            match_trajectory(steps, row["expected"], spec)
        return
    found = match_trajectory(steps, row["expected"], spec)
    assert found.matched is row["matched"], found.details
    assert found.details.startswith(
        "trajectory matched" if row["matched"] else "trajectory did not match")
    assert "\n" not in found.details and len(found.details) <= 400
    if "details_contains" in row:
        assert row["details_contains"] in found.details
    if "rows" in row:
        assert [[r.expected, r.executed, r.ok] for r in found.pairs] == row["rows"]
    assert match_trajectory(steps, row["expected"], spec) == found  # deterministic
    # The assignment the call metrics read holds only compatible, distinct calls.
    assert len({step for _, step in found.taken}) == len(found.taken)


def test_the_table_covers_each_key_passing_and_failing() -> None:
    seen = set()
    for row in ROWS:
        keys = {k for call in row["expected"] for k in call if k not in ("tool", "args", "id")}
        for key in keys:
            seen.add((key, row.get("matched")))
    for key in ("after", "uses_result_of", "times", "min_times", "max_times", "optional"):
        assert (key, True) in seen or key in ("max_times",), key
        assert (key, False) in seen or key in ("min_times",), key


@pytest.mark.parametrize(("calls", "where", "words"), [
    ([{"tool": "a", "id": ""}], "expected_tool_calls[0].id", "non-empty string"),
    ([{"tool": "a", "id": "x"}, {"tool": "b", "id": "x"}], "expected_tool_calls[1].id",
     "already used by expected_tool_calls[0]"),
    ([{"tool": "a", "after": ["nope"]}], "expected_tool_calls[0].after[0]",
     '"nope" is not the id of an expected call'),
    ([{"tool": "a", "id": "x", "after": ["x"]}], "expected_tool_calls[0].after[0]",
     "cannot come after itself"),
    ([{"tool": "a", "id": "x", "after": ["y"]}, {"tool": "b", "id": "y", "uses_result_of": ["x"]}],
     "expected_tool_calls", "form a cycle: x -> y -> x"),
    ([{"tool": "a", "times": -1}], "expected_tool_calls[0].times", "whole number"),
    ([{"tool": "a", "times": True}], "expected_tool_calls[0].times", "whole number"),
    ([{"tool": "a", "times": 1, "max_times": 2}], "expected_tool_calls[0].max_times",
     "either 'times' or 'max_times'"),
    ([{"tool": "a", "min_times": 3, "max_times": 2}], "expected_tool_calls[0].min_times",
     "above max_times"),
    ([{"tool": "a", "optional": True, "times": 1}], "expected_tool_calls[0].optional",
     "give one"),
    ([{"tool": "a", "optional": "yes"}], "expected_tool_calls[0].optional", "true or false"),
    ([{"tool": "a", "after": "x"}], "expected_tool_calls[0].after", "a list of ids"),
])
def test_a_bad_key_names_the_path(calls: list[Any], where: str, words: str) -> None:
    with pytest.raises(TestCaseError) as raised:
        read_constraints(calls, source="case.json")
    assert where in str(raised.value)
    assert words in str(raised.value)


def test_no_key_means_no_rules() -> None:
    assert read_constraints([{"tool": "a", "args": {"x": 1}}]) is None


def test_the_search_is_bounded() -> None:
    # Eight calls that only seven entries fit, after six calls every entry fits: no assignment
    # exists, and only a long search shows it. Past its bound the search refuses with an
    # error, never runs on or guesses.
    options = [list(range(14))] * 6 + [list(range(7, 14))] * 8
    rules = read_constraints([{"tool": "a", "id": f"e{n}"} for n in range(14)])
    assert rules is not None
    with pytest.raises(OpenEvalError, match="more than 5,000 search steps"):
        solve(options, [None] * 14, rules, MODE_RULES["unordered"], limit=5_000)
    assert solve(options, [None] * 14, rules, MODE_RULES["unordered"]).taken is None


def test_a_hostile_case_ends_in_bounded_work() -> None:
    steps = expand([{"tool": "a", "args": {"k": n % 3}} for n in range(200)])
    expected = [{"tool": "a", "id": f"e{n}", "min_times": 1, "after": [f"e{n - 1}"] if n else []}
                for n in range(150)]
    try:
        found = match_trajectory(steps, expected, TrajectorySpec(mode="superset"))
    except OpenEvalError as exc:
        assert "split the case" in str(exc)
    else:
        assert found.work <= 4 * MAX_WORK


# -- the solver against brute force -----------------------------------------------------------

TOOLS = ("a", "b")


def _random_case(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]], str]:
    calls = rng.randint(0, 5)
    turn_count = rng.randint(1, max(1, calls))
    turns = sorted(rng.randint(1, turn_count) for _ in range(calls))
    steps = [{"tool": rng.choice(TOOLS), "args": {"k": rng.randint(0, 1)}, "turn": t}
             for t in turns]
    expected: list[dict[str, Any]] = []
    for n in range(rng.randint(1, 4)):
        entry: dict[str, Any] = {"tool": rng.choice(TOOLS), "id": f"e{n}"}
        if rng.random() < 0.5:
            entry["args"] = {"k": rng.randint(0, 1)}
        count = rng.random()
        if count < 0.15:
            entry["optional"] = True
        elif count < 0.35:
            entry["times"] = rng.randint(0, 2)
        elif count < 0.45:
            entry["min_times"] = rng.randint(0, 2)
        elif count < 0.55:
            entry["max_times"] = rng.randint(1, 2)
        earlier = [f"e{m}" for m in range(n)]
        if earlier and rng.random() < 0.4:
            entry["after"] = rng.sample(earlier, 1)
        if earlier and rng.random() < 0.25:
            entry["uses_result_of"] = rng.sample(earlier, 1)
        expected.append(entry)
    return steps, expected, rng.choice(TRAJECTORY_MODES)


def _brute_force(steps: list[dict[str, Any]], expected: list[dict[str, Any]], mode: str) -> bool:
    """Try every assignment of calls to entries, each rule written out from its definition."""
    def fits(e: int, p: int) -> bool:
        want, call = expected[e], steps[p]
        return want["tool"] == call["tool"] and all(
            call["args"].get(k) == v for k, v in want.get("args", {}).items())

    def bounds(e: int) -> tuple[int, float, bool]:
        entry = expected[e]
        if "times" in entry:
            return entry["times"], entry["times"], True
        counted = "min_times" in entry or "max_times" in entry
        low = entry.get("min_times", 0 if entry.get("optional") else 1)
        if mode == "subset" and "min_times" not in entry:
            low = 0
        high = entry.get("max_times", float("inf") if counted else 1)
        return low, high, counted

    index = {entry["id"]: e for e, entry in enumerate(expected)}
    choices = [[None, *(e for e in range(len(expected)) if fits(e, p))]
               for p in range(len(steps))]
    for taken in product(*choices):
        if _holds(taken, steps, expected, mode, index, bounds, fits):
            return True
    return False


def _holds(taken: tuple[int | None, ...], steps: list[dict[str, Any]],
           expected: list[dict[str, Any]], mode: str, index: dict[str, int],
           bounds: Any, fits: Any) -> bool:
    mine: dict[int, list[int]] = {e: [] for e in range(len(expected))}
    for p, e in enumerate(taken):
        if e is not None:
            mine[e].append(p)
    for e in mine:
        low, high, counted = bounds(e)
        if not low <= len(mine[e]) <= high:
            return False
        if counted and any(taken[p] is None and fits(e, p) for p in range(len(steps))):
            return False
    if mode in ("strict", "unordered", "subset") and None in taken:
        return False
    if mode in ("strict", "in_order"):
        for x in range(len(steps)):
            for y in range(x + 1, len(steps)):
                a, b = taken[x], taken[y]
                if a is not None and b is not None and steps[x]["turn"] != steps[y]["turn"] \
                        and a > b:
                    return False
    for e, entry in enumerate(expected):
        for name in entry.get("after", []):
            f = index[name]
            if any(y <= x for x in mine[f] for y in mine[e]):
                return False
        for name in entry.get("uses_result_of", []):
            f = index[name]
            if any(steps[y]["turn"] <= steps[x]["turn"] for x in mine[f] for y in mine[e]):
                return False
    return True


def test_the_solver_agrees_with_brute_force_on_small_cases() -> None:
    rng = random.Random(20261201)
    verdicts = set()
    for _ in range(1500):
        steps, expected, mode = _random_case(rng)
        found = match_trajectory(expand(steps), expected, TrajectorySpec(mode=mode))
        wanted = _brute_force(steps, expected, mode)
        assert found.matched is wanted, (mode, steps, expected, found.details)
        verdicts.add(wanted)
    assert verdicts == {True, False}


def test_with_no_rule_the_solver_agrees_with_the_plain_match() -> None:
    # An id alone sends a case to the solver; its verdict must be the plain match's.
    rng = random.Random(7)
    for _ in range(800):
        steps, expected, mode = _random_case(rng)
        plain = [{k: v for k, v in entry.items() if k in ("tool", "args")} for entry in expected]
        labelled = [{**entry, "id": f"e{n}"} for n, entry in enumerate(plain)]
        trace = expand(steps)
        spec = TrajectorySpec(mode=mode)
        assert match_trajectory(trace, labelled, spec).matched is match_trajectory(
            trace, plain, spec).matched, (mode, steps, plain)

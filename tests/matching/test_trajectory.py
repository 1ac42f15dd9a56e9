"""Trajectory matching against the table in ``tests/data/matching/trajectory_cases.json``,
against brute force on random small cases, and within a work bound on long runs.

A table row is ``id``; ``steps`` in a compact form (``{"tool": name, "args": {...}, "turn":
n, "denied": true, "error": "..."}``, or ``{"think": text}`` for a model step); ``expected``
(expected tool calls); ``spec`` (the ``trajectory`` object); the verdict ``matched``; and
optionally ``details_contains``, ``matched_expected`` and a ``note`` saying why (quirk rows).
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise, permutations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.errors import OpenEvalError, TestCaseError
from openeval.jsonio import read_json_file
from openeval.matching.trajectory import (
    SPEC_KEYS,
    TRAJECTORY_MODES,
    TrajectorySpec,
    compile_calls,
    match_trajectory,
)
from openeval.models import TraceStep

DATA = Path(__file__).resolve().parents[1] / "data" / "matching" / "trajectory_cases.json"
ROWS = read_json_file(DATA)
ARGS_MODES = ("exact", "superset", "subset", "ignore")


def expand(compact: list[dict[str, Any]]) -> list[TraceStep]:
    """Return the trace steps a table row's compact ``steps`` stand for."""
    steps = []
    for index, item in enumerate(compact):
        if "think" in item:
            steps.append(TraceStep(step_id=index + 1, type="thought", content=item["think"]))
            continue
        unknown = set(item) - {"tool", "args", "turn", "denied", "error"}
        assert not unknown, f"step {index}: unknown compact keys {unknown}"
        steps.append(TraceStep(
            step_id=index + 1, type="tool_call", tool_name=item["tool"],
            tool_args=item.get("args"), turn=item.get("turn"),
            denied=item.get("denied", False), error=item.get("error"),
        ))
    return steps


@pytest.mark.parametrize("row", [pytest.param(r, id=r["id"]) for r in ROWS])
def test_trajectory_case(row: dict[str, Any]) -> None:
    steps = expand(row["steps"])
    spec = TrajectorySpec.from_json(row["spec"])
    found = match_trajectory(steps, row["expected"], spec)
    assert found.matched is row["matched"], found.details
    assert "\n" not in found.details and len(found.details) <= 400
    assert found.details.startswith(
        "trajectory matched" if row["matched"] else "trajectory did not match"
    )
    if "details_contains" in row:
        assert row["details_contains"] in found.details
    if "matched_expected" in row:
        assert found.matched_expected == row["matched_expected"]
    _check_alignment(found.pairs, steps, row["expected"])
    assert match_trajectory(steps, row["expected"], spec) == found  # deterministic


def _check_alignment(pairs: Any, steps: list[TraceStep], expected: list[Any]) -> None:
    """Every expected call and every tool call appears exactly once in the side-by-side rows."""
    calls = [i for i, step in enumerate(steps) if step.type == "tool_call"]
    assert sorted(r.executed for r in pairs if r.executed is not None) == calls
    assert sorted(r.expected for r in pairs if r.expected is not None) == list(range(len(expected)))


def test_the_table_crosses_every_mode_with_every_args_mode() -> None:
    seen = {(r["spec"].get("mode", "in_order"), r["spec"].get("args", "superset"), r["matched"])
            for r in ROWS}
    for mode in TRAJECTORY_MODES:
        for args in ARGS_MODES:
            assert (mode, args, True) in seen or (mode, args, False) in seen, (mode, args)
        assert (mode, "superset", True) in seen and (mode, "superset", False) in seen, mode


def test_quirk_rows_say_why() -> None:
    quirks = [r for r in ROWS if r["id"].startswith("quirk/")]
    assert len(quirks) >= 6
    for row in quirks:
        assert row.get("note") or row.get("details_contains"), row["id"]


# -- the spec ------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("value", "where", "words"),
    [
        ({"mode": "strcit"}, "trajectory.mode",
         '"strcit" is not one of strict, in_order, unordered, superset, subset'),
        ({"args": "loose"}, "trajectory.args", "is not one of exact, superset, subset, ignore"),
        ({"modes": "strict"}, "trajectory.modes", "unknown key \"modes\"; expected one of: "
         + ", ".join(SPEC_KEYS)),
        ({"per_tool": {"search": "fuzzy"}}, "trajectory.per_tool.search", "is not one of exact"),
        ({"per_tool": {"search": []}}, "trajectory.per_tool.search", "non-empty list"),
        ({"ignore_args": "*_id"}, "trajectory.ignore_args", "expected a list"),
        ({"defaults": {"search": 10}}, "trajectory.defaults.search", "expected a JSON object"),
        ({"defaults": {"search": {"limit": {"$type": "integer"}}}},
         "trajectory.defaults.search.limit", "a plain value, not a matcher"),
        ({"include_denied": "yes"}, "trajectory.include_denied", "expected true or false"),
        ([], "trajectory", "expected a JSON object"),
    ],
)
def test_a_bad_spec_names_the_path_and_the_choices(value: Any, where: str, words: str) -> None:
    with pytest.raises(TestCaseError) as caught:
        TrajectorySpec.from_json(value, source="case.json")
    assert caught.value.location == where
    assert caught.value.source == "case.json"
    assert words in caught.value.message


def test_spec_defaults_and_round_trip() -> None:
    spec = TrajectorySpec.from_json({})
    assert (spec.mode, spec.args, spec.include_denied) == ("in_order", "superset", False)
    full = {"mode": "strict", "args": "exact", "per_tool": {"a": "ignore", "b": ["x.y"]},
            "ignore_args": ["*_id"], "defaults": {"a": {"n": 1}}, "include_denied": True}
    assert TrajectorySpec.from_json(full).to_json() == full


def test_a_per_tool_path_through_a_matcher_is_an_error() -> None:
    spec = TrajectorySpec.from_json({"per_tool": {"search": ["filter.status"]}})
    with pytest.raises(TestCaseError, match="goes through a matcher at 'filter'"):
        compile_calls([{"tool": "search", "args": {"filter": {"$type": "object"}}}], spec)


# -- optimal, against brute force ----------------------------------------------------------

TOOLS = st.sampled_from(["a", "b", "c"])
VALUES = st.sampled_from([0, 1, 1.0, "1", True, None])
ARGS = st.dictionaries(st.sampled_from(["x", "y"]), VALUES, max_size=2)


@st.composite
def cases(
    draw: st.DrawFn, mode: str
) -> tuple[list[TraceStep], list[dict[str, Any]], TrajectorySpec]:
    count = draw(st.integers(0, 5))
    turns = sorted(draw(st.lists(st.integers(0, 2), min_size=count, max_size=count)))
    steps = [
        TraceStep(step_id=i, type="tool_call", tool_name=draw(TOOLS), tool_args=draw(ARGS),
                  turn=turns[i] if draw(st.booleans()) else None,
                  denied=draw(st.sampled_from([False, False, False, True])),
                  error=draw(st.sampled_from([None, None, None, "boom"])))
        for i in range(count)
    ]
    expected = [{"tool": draw(TOOLS), "args": draw(ARGS)} for _ in range(draw(st.integers(0, 5)))]
    spec = TrajectorySpec(
        mode=mode,  # type: ignore[arg-type]
        args=draw(st.sampled_from(ARGS_MODES)),
        include_denied=draw(st.booleans()),
    )
    return steps, expected, spec


def _brute_force(
    steps: list[TraceStep], expected: list[dict[str, Any]], spec: TrajectorySpec
) -> tuple[bool, int]:
    """Return (verdict, most expected calls paired) by trying every pairing."""
    counted = [s for s in steps if s.type == "tool_call"
               and (spec.include_denied or (not s.denied and s.error is None))]
    compiled = compile_calls(expected, spec)

    def ok(i: int, j: int) -> bool:
        call, step = compiled[i], counted[j]
        args = spec.rules_for(step.tool_name or "").normalize(step.tool_args)
        return call.tool == step.tool_name and call.test(args) is True

    n, m = len(compiled), len(counted)
    if n <= m:
        most = max((sum(ok(i, p[i]) for i in range(n)) for p in permutations(range(m), n)),
                   default=0)
    else:
        most = max(sum(ok(p[j], j) for j in range(m)) for p in permutations(range(n), m))
    mode = spec.mode
    if mode == "superset":
        return most == n, most
    if mode == "subset":
        return most == m, most
    if mode == "unordered":
        return n == m and most == n, most
    blocks: list[list[int]] = []
    for j, step in enumerate(counted):
        if blocks and step.turn is not None and counted[blocks[-1][-1]].turn == step.turn:
            blocks[-1].append(j)
        else:
            blocks.append([j])
    if mode == "in_order":
        # Expected order kept from turn to turn; within one turn any order.
        block_of = {j: b for b, block in enumerate(blocks) for j in block}
        return any(all(ok(i, j) for i, j in enumerate(chosen))
                   and all(block_of[a] <= block_of[b] for a, b in pairwise(chosen))
                   for chosen in permutations(range(m), n)), most
    if n != m:
        return False, most
    start = 0
    for block in blocks:
        segment = range(start, start + len(block))
        start += len(block)
        if not any(all(ok(i, j) for i, j in zip(segment, order, strict=True))
                   for order in permutations(block)):
            return False, most
    return True, most


@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_matching_agrees_with_brute_force(mode: str, data: st.DataObject) -> None:
    steps, expected, spec = data.draw(cases(mode))
    found = match_trajectory(steps, expected, spec)
    verdict, most = _brute_force(steps, expected, spec)
    assert found.matched is verdict, found.details
    if spec.mode in ("unordered", "superset", "subset"):
        assert found.matched_expected == most
    _check_alignment(found.pairs, steps, expected)


# -- bounded work ----------------------------------------------------------------------------

@cache
def _long_run(calls: int) -> tuple[list[TraceStep], list[dict[str, Any]]]:
    tools = ["search", "lookup_order", "refund_order", "send_email"]
    steps = [
        TraceStep(step_id=i, type="tool_call", tool_name=tools[i % 4],
                  tool_args={"id": i, "q": {"page": i % 7, "tags": ["x", i % 3]}})
        for i in range(calls)
    ]
    expected = [{"tool": s.tool_name, "args": s.tool_args} for s in steps]
    return steps, expected


@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
def test_a_10000_call_trajectory_scores_in_bounded_work(mode: str) -> None:
    steps, expected = _long_run(10_000)
    found = match_trajectory(steps, expected, TrajectorySpec(mode=mode, args="exact"))  # type: ignore[arg-type]
    assert found.matched, found.details
    # Linear in the calls: the index finds each expected call's partner without a scan.
    assert found.work <= 40 * len(steps), found.work


def test_identical_calls_collapse_and_matchers_stay_linear() -> None:
    step = TraceStep(step_id=0, type="tool_call", tool_name="poll", tool_args={"n": 1.0})
    steps = [step] * 5_000
    expected = [{"tool": "poll", "args": {"n": {"$approx": 1, "$tol": 0.1}}}] * 5_000
    for mode in TRAJECTORY_MODES:
        found = match_trajectory(steps, expected, TrajectorySpec(mode=mode))  # type: ignore[arg-type]
        assert found.matched, (mode, found.details)
        assert found.work <= 20 * len(steps), (mode, found.work)


def test_a_failing_long_run_is_bounded_too() -> None:
    steps, expected = _long_run(2_000)
    expected = list(expected)
    expected[1_000] = {"tool": "search", "args": {"id": -1, "q": {"page": 6, "tags": ["x", 1]}}}
    for mode in TRAJECTORY_MODES:
        found = match_trajectory(steps, expected, TrajectorySpec(mode=mode, args="exact"))  # type: ignore[arg-type]
        assert not found.matched
        assert "call 1001: expected search, got search: id: expected -1, got 1000" in found.details
        assert found.work <= 80 * len(steps), (mode, found.work)


def test_matchers_no_index_can_narrow_stay_within_the_comparison_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    steps = [TraceStep(step_id=i, type="tool_call", tool_name="set", tool_args={"v": i})
             for i in range(60)]
    expected = [{"tool": "set", "args": {"v": {"$approx": i, "$tol": 0.1}}} for i in range(60)]
    found = match_trajectory(steps, expected, TrajectorySpec(mode="unordered"))
    assert found.matched and found.work >= 60 * 60  # every pair is compared: no index helps
    monkeypatch.setattr("openeval.matching.trajectory.MAX_COMPARISONS", 1000)
    with pytest.raises(OpenEvalError, match="needs more than 1,000 argument comparisons"):
        match_trajectory(steps, expected, TrajectorySpec(mode="unordered"))

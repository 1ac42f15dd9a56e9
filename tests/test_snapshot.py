"""Drafting a test case from a trace: the draft must pass on the trace it came from."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.adapters import load_trace
from openeval.errors import OpenEvalError
from openeval.matching.trajectory import TRAJECTORY_MODES
from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.snapshot import (
    VOLATILE_KINDS,
    Generalised,
    Outcome,
    case_document,
    draft_test_case,
    expected_calls,
    generalise,
    trace_reference,
    volatile_kind,
)


def _trace() -> AgentTrace:
    return AgentTrace(
        task_id="refund-7",
        input="Refund order 7",
        steps=[
            TraceStep(1, "thought", "let me look"),
            TraceStep(2, "tool_call", tool_name="lookup", tool_args={"id": 7}, tool_result="ok"),
            TraceStep(3, "tool_call", tool_name="delete_all", tool_args={}, denied=True,
                      error="permission denied"),
            TraceStep(4, "tool_call", tool_name="refund", content="[7]", tool_args=None,
                      error="arguments are not a JSON object: a list"),
            TraceStep(5, "tool_result", content="orphan result"),
        ],
        final_output="Refunded order 7.\nAnything else?",
        actual_state={"refunded": [7], "notes": {"by": "agent"}},
    )


def test_expected_calls_skip_denied_and_failed_calls() -> None:
    # The refund call failed (its arguments were not an object): it achieved nothing, so a
    # known-good run is not expected to make it (docs/semantics.md#no-vacuous-passes).
    assert expected_calls(_trace()) == [{"tool": "lookup", "args": {"id": 7}}]


def test_draft_fields() -> None:
    case = draft_test_case(_trace(), trace_ref="trace.json")
    assert case == EvalTestCase(
        task_id="refund-7",
        input="Refund order 7",
        expected_tool_calls=[{"tool": "lookup", "args": {"id": 7}, "times": 1}],
        expected_final_state={"refunded": [7], "notes": {"by": "agent"}},
        expected_output_contains=[],
        max_steps=3,
        optimal_steps=3,
        trace="trace.json",
    )
    assert draft_test_case(_trace(), task_id="other").task_id == "other"


def test_draft_is_a_copy_not_a_view() -> None:
    trace = _trace()
    case = draft_test_case(trace)
    trace.actual_state["notes"]["by"] = "someone else"
    trace.steps[1].tool_args = {"id": 8}
    assert case.expected_final_state["notes"] == {"by": "agent"}
    assert case.expected_tool_calls[0]["args"] == {"id": 7}


def test_every_applicable_metric_passes_on_the_source_trace() -> None:
    trace = _trace()
    case = draft_test_case(trace)
    results = {m.name: m.score(trace, case) for m in all_metrics()}
    failed = {n: r.details for n, r in results.items() if r.passed is False}
    # The trace's denied call is followed by other calls and never retried, so it counts as
    # recovered; nothing the draft asks for is missing from the trace it came from.
    assert failed == {}


def test_case_document_drops_unset_keys() -> None:
    document = case_document(draft_test_case(_trace()))
    assert "trace" not in document and "thresholds" not in document and "metrics" not in document
    assert EvalTestCase.from_dict(document) == draft_test_case(_trace())


@pytest.mark.parametrize(
    ("trace", "testcase", "expected"),
    [
        ("cases/a/trace.json", "cases/a/testcase.json", "trace.json"),
        ("traces/a.jsonl", "cases/a/testcase.json", "../../traces/a.jsonl"),
        ("a.trace", "testcase.json", "a.trace"),
    ],
)
def test_trace_reference_is_relative_to_the_test_case(
    tmp_path: Path, trace: str, testcase: str, expected: str
) -> None:
    assert trace_reference(tmp_path / trace, tmp_path / testcase) == expected


# --- volatile values ----------------------------------------------------------------------

DATA = Path(__file__).parent / "data" / "snapshot"
VOLATILE = orjson.loads((DATA / "volatile_values.json").read_bytes())


@pytest.mark.parametrize("row", VOLATILE, ids=[row["why"] for row in VOLATILE])
def test_volatile_kind(row: dict[str, Any]) -> None:
    assert volatile_kind(row["value"]) == row["kind"]


def test_every_volatile_kind_is_in_the_table() -> None:
    assert {row["kind"] for row in VOLATILE} - {None} == set(VOLATILE_KINDS)


def test_generalise_replaces_at_any_depth_and_names_the_paths() -> None:
    found = Generalised()
    value = {"a": ["2026-02-11T09:41:27Z", {"b": "7d0c5a4e-2b1f-4c3d-9e8a-6f5b4c3d2e1f"}],
             "c": "Paris", "n": 3}
    assert generalise(value, "x", found) == {
        "a": [{"$type": "string"}, {"b": {"$type": "string"}}], "c": "Paris", "n": 3,
    }
    assert found.replaced == [("x.a[0]", "timestamp"), ("x.a[1].b", "uuid")]
    kept = Generalised()
    assert generalise(value, "x", kept, exact=True) == value
    assert kept.replaced == []


def test_an_object_that_would_read_as_a_matcher_is_compared_literally() -> None:
    # A Mongo-style update in a recorded argument: written as a matcher it would be refused
    # ("unknown matcher $set") or, worse, match something else.
    update = {"$set": {"status": "closed"}}
    for exact in (False, True):
        assert generalise(update, "x", Generalised(), exact=exact) == {"$eq": update}


def _booking() -> AgentTrace:
    return AgentTrace.from_dict(orjson.loads((DATA / "booking.trace.json").read_bytes()))


def test_draft_with_mode_and_ignored_args() -> None:
    found = Generalised()
    case = draft_test_case(_booking(), mode="strict", ignore_args=["*_id", "trace.*"],
                           found=found)
    assert case.trajectory == {"mode": "strict", "ignore_args": ["*_id", "trace.*"]}
    assert case.expected_tool_calls[0] == {
        "tool": "get_booking", "args": {"requested_at": {"$type": "string"}}, "times": 1}
    assert case.expected_tool_calls[3] == {
        "tool": "refund_payment",
        "args": {"amount": 59.9, "currency": "EUR", "reason": "fare difference",
                 "trace": {"sent_at": {"$exists": True}, "span_id": {"$exists": True}}},
        "times": 1,
    }
    assert [path for path, _ in found.replaced] == [
        "expected_tool_calls[0].args.requested_at",
        "expected_tool_calls[2].args.idempotency_key",
        "expected_final_state.booking.updated_at",
        "expected_final_state.refund.ledger_ref",
    ]
    assert case.expected_final_state["booking"]["date"] == "2026-03-01"  # a bare date stays


def test_globs_alone_imply_in_order_and_bad_settings_are_refused() -> None:
    assert draft_test_case(_booking(), ignore_args=["*_id"]).trajectory == {
        "mode": "in_order", "ignore_args": ["*_id"]}
    assert draft_test_case(_booking()).trajectory is None
    with pytest.raises(ValueError, match="is not one of strict, in_order"):
        draft_test_case(_booking(), mode="strcit")
    with pytest.raises(ValueError, match="glob is empty"):
        draft_test_case(_booking(), ignore_args=[""])


@pytest.mark.parametrize("mode", [None, *TRAJECTORY_MODES])
@pytest.mark.parametrize("exact", [False, True])
def test_every_metric_passes_on_the_source_trace_in_every_mode(
    mode: str | None, exact: bool
) -> None:
    trace = _booking()
    globs = ["*_id"] if mode else []  # globs alone would imply a trajectory block
    case = draft_test_case(trace, mode=mode, ignore_args=globs, exact=exact)
    results = {m.name: m.score(trace, case) for m in all_metrics()}
    assert {n: r.details for n, r in results.items() if r.passed is False} == {}
    assert (results["trajectory_match"].passed is None) == (mode is None)


def _repeats() -> AgentTrace:
    calls = [("lookup", {"id": 7}), ("poll", {"job": 1}), ("poll", {"job": 1}),
             ("refund", {"id": 7}), ("notify", {}), ("poll", {"job": 1})]
    return AgentTrace(task_id="repeats", steps=[
        TraceStep(n + 1, "tool_call", tool_name=tool, tool_args=args, turn=n + 1)
        for n, (tool, args) in enumerate(calls)
    ])


def test_counts_collapse_identical_calls_in_a_row_and_count_each_call() -> None:
    calls = expected_calls(_repeats(), counts=True)
    assert [(c["tool"], c["times"]) for c in calls] == [
        ("lookup", 1), ("poll", 2), ("refund", 1), ("notify", 1), ("poll", 1)]
    assert "times" not in expected_calls(_repeats())[0]


@pytest.mark.parametrize("mode", [None, *TRAJECTORY_MODES])
def test_a_draft_with_counts_passes_its_run_and_fails_a_repeated_call(mode: str | None) -> None:
    trace = _repeats()
    case = draft_test_case(trace, mode=mode, counts=True)
    results = {m.name: m.score(trace, case) for m in all_metrics()}
    assert {n: r.details for n, r in results.items() if r.passed is False} == {}
    # The same run with the refund made twice: the count catches it, whatever the mode.
    steps = list(trace.steps)
    steps.insert(4, TraceStep(10, "tool_call", tool_name="refund", tool_args={"id": 7}, turn=9))
    twice = AgentTrace(task_id="repeats", steps=steps)
    metric = "trajectory_match" if mode else "tool_selection_accuracy"
    found = {m.name: m.score(twice, case) for m in all_metrics()}[metric]
    assert found.passed is False
    assert "refund: expected 1 time, executed 2 times" in found.details


def test_counts_are_the_default_of_a_draft() -> None:
    assert [c["times"] for c in draft_test_case(_repeats()).expected_tool_calls] == [
        1, 2, 1, 1, 1]
    assert all("times" not in c
               for c in draft_test_case(_repeats(), counts=False).expected_tool_calls)


# --- what the outcome repeats is kept (docs/semantics.md#what-a-snapshot-keeps) ------------

OUTCOME_RULE = orjson.loads((DATA / "outcome_rule.json").read_bytes())


@pytest.mark.parametrize("row", OUTCOME_RULE, ids=[row["id"] for row in OUTCOME_RULE])
def test_a_volatile_value_the_outcome_repeats_is_kept(row: dict[str, Any]) -> None:
    given = row["outcome"]
    steps = ([TraceStep(1, "tool_call", tool_name="other", tool_args=given["arguments"])]
             if "arguments" in given else [])
    outcome = Outcome.of(AgentTrace(task_id="t", input=given.get("input", ""), steps=steps,
                                    final_output=given.get("output", ""),
                                    actual_state=given.get("state", {})))
    found = Generalised()
    value = {row["key"]: row["value"]}
    written = generalise(value, "x", found, outcome=outcome, where=row["where"])
    path = f"x.{row['key']}"
    if row["kept"] is None:
        assert written == {row["key"]: {"$type": "string"}}
        assert found.kept == [] and [p for p, _ in found.replaced] == [path]
    else:
        assert written == value
        assert found.kept == [(path, row["kept"])] and found.replaced == []


def test_the_calendar_draft_keeps_the_booked_time_and_loosens_the_noise() -> None:
    trace = AgentTrace.from_dict(orjson.loads((DATA / "calendar.trace.json").read_bytes()))
    found = Generalised()
    case = draft_test_case(trace, found=found)
    create = case.expected_tool_calls[1]["args"]
    assert (create["start"], create["end"]) == ("2026-12-02T10:00:00", "2026-12-02T10:30:00")
    event = case.expected_final_state["events"][0]
    assert (event["start"], event["end"]) == ("2026-12-02T10:00:00", "2026-12-02T10:30:00")
    assert [path for path, _ in found.replaced] == [
        "expected_tool_calls[0].args.calendar_id", "expected_tool_calls[0].args.request_id",
        "expected_tool_calls[1].args.calendar_id", "expected_tool_calls[1].args.request_id",
        "expected_final_state.events[0].id", "expected_final_state.events[0].created_at",
    ]
    assert [path for path, _ in found.kept] == [
        "expected_tool_calls[1].args.start", "expected_tool_calls[1].args.end",
        "expected_final_state.events[0].start", "expected_final_state.events[0].end",
    ]
    # --exact has no outcome to consult: everything stays, nothing is listed as kept.
    exact = Generalised()
    draft_test_case(trace, exact=True, found=exact)
    assert exact.kept == [] and exact.replaced == []


# --- per user turn (proposals/0154-turn-expectations.md) ----------------------------------

ADAPTERS = Path(__file__).parent / "data" / "adapters"
TWO_REFUNDS = ADAPTERS / "openai" / "chat_second_request.json"


def _verdicts(trace: AgentTrace, case: EvalTestCase) -> dict[str, bool | None]:
    return {m.name: m.score(trace, case).passed for m in all_metrics()}


@pytest.mark.parametrize("mode", [None, *TRAJECTORY_MODES])
def test_a_per_turn_draft_passes_its_run_and_fails_when_one_turn_changes(
    mode: str | None
) -> None:
    trace = load_trace(TWO_REFUNDS)
    case = draft_test_case(trace, mode=mode, per_turn=True)
    assert case.expected_tool_calls == [] and case.trajectory is None
    assert case.turns is not None
    assert [(t["user"], [c["args"] for c in t["expected_tool_calls"]], t["max_steps"])
            for t in case.turns] == [(1, [{"order_id": 1042, "amount": 10}], 1),
                                     (2, [{"order_id": 1042, "amount": 1}], 1)]
    assert all(("trajectory" in t) == (mode is not None) for t in case.turns)
    verdicts = _verdicts(trace, case)
    assert verdicts["turn_expectations"] is True
    assert False not in verdicts.values()
    # The second turn's refund made for 11: only that turn's entry fails.
    second = trace.tool_calls()[1]
    second.tool_args = {"order_id": 1042, "amount": 11}
    result = {m.name: m for m in all_metrics()}["turn_expectations"].score(trace, case)
    assert result.passed is False
    assert result.details.startswith("turn expectations held: 1/2; turns[1] (user turn 2)")


def test_per_turn_tells_apart_calls_a_flat_list_cannot() -> None:
    # Both refunds, but each in the other's turn: an unordered flat list passes this run.
    trace = load_trace(TWO_REFUNDS)
    flat = draft_test_case(trace, mode="unordered")
    per_turn = draft_test_case(trace, mode="unordered", per_turn=True)
    first, second = trace.tool_calls()
    first.tool_args, second.tool_args = second.tool_args, first.tool_args
    assert _verdicts(trace, flat)["trajectory_match"] is True
    assert _verdicts(trace, per_turn)["turn_expectations"] is False


def test_a_turn_answered_in_words_expects_no_call() -> None:
    trace = load_trace(ADAPTERS / "anthropic" / "second_request.json")
    case = draft_test_case(trace, per_turn=True)
    assert case.turns == [
        {"user": 1, "max_steps": 0},
        {"user": 2, "expected_tool_calls": [
            {"tool": "change_booking", "args": {"people": 11}, "times": 1}], "max_steps": 1},
    ]
    assert _verdicts(trace, case)["turn_expectations"] is True
    assert draft_test_case(trace, per_turn=True, counts=False).turns == [
        {"user": 2, "expected_tool_calls": [{"tool": "change_booking", "args": {"people": 11}}]}]


def test_per_turn_needs_the_user_turns() -> None:
    with pytest.raises(OpenEvalError, match="turns need the conversation's user messages"):
        draft_test_case(_booking(), per_turn=True)

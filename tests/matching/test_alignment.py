"""The side-by-side rows of expected and executed calls: bounded, JSON, built from the pairing.

The rows each metric writes are held by the metric case tables (``tests/data/metrics/*.json``,
keys ``alignment``, ``first_divergence``, ``differences``); here, what those tables cannot show:
the window kept of a long alignment and the bounds on every text.
"""

from __future__ import annotations

import orjson
import pytest

from openeval.matching.alignment import (
    MAX_DIFFERENCES,
    MAX_ROWS,
    MAX_TEXT,
    AlignedCall,
    Difference,
    alignment_data,
    trajectory_rows,
)
from openeval.matching.trajectory import TrajectorySpec, match_trajectory
from openeval.models import TraceStep
from openeval.scoring.scorer import MAX_DATA_BYTES


def calls(count: int, *, wrong_at: int | None = None) -> list[TraceStep]:
    return [
        TraceStep(step_id=n + 1, type="tool_call", tool_name="get",
                  tool_args={"page": -1 if n == wrong_at else n})
        for n in range(count)
    ]


EXPECTED = [{"tool": "get", "args": {"page": n}} for n in range(500)]


@pytest.mark.parametrize(("wrong_at", "kept_from"), [(0, 0), (250, 245), (499, 500 - MAX_ROWS)])
def test_a_long_alignment_keeps_a_window_from_just_before_the_first_divergence(
    wrong_at: int, kept_from: int
) -> None:
    steps = calls(500, wrong_at=wrong_at)
    spec = TrajectorySpec(mode="strict")
    found = match_trajectory(steps, EXPECTED, spec)
    data = alignment_data(trajectory_rows(steps, EXPECTED, spec, found))
    assert data["alignment_cut"] == {"from": kept_from, "rows": 500}
    assert len(data["alignment"]) == MAX_ROWS
    first = data["first_divergence"]
    assert (first["expected"], first["step_id"], first["status"]) == (
        wrong_at, wrong_at + 1, "args differ")
    row = data["alignment"][first["row"]]
    assert row["differences"] == [{"where": "page", "expected": str(wrong_at), "got": "-1"}]


def test_a_short_alignment_is_kept_whole_and_says_nothing_of_cutting() -> None:
    steps = calls(3)
    spec = TrajectorySpec(mode="strict")
    found = match_trajectory(steps, EXPECTED[:3], spec)
    data = alignment_data(trajectory_rows(steps, EXPECTED[:3], spec, found))
    assert data == {"alignment": [
        {"expected": n, "step_id": n + 1, "tool": "get", "status": "matched", "ok": True,
         "differences": []} for n in range(3)
    ]}


def test_every_text_of_a_row_is_bounded() -> None:
    huge = "x" * 10_000
    differences = tuple(Difference(huge + str(n), huge, huge, huge) for n in range(20))
    row = AlignedCall(0, 1, huge, "wrong tool", False, differences, got_tool=huge, note=huge)
    document = row.to_dict()
    assert len(document["differences"]) == MAX_DIFFERENCES
    assert document["differences_left_out"] == 20 - MAX_DIFFERENCES
    assert len(document["note"]) == MAX_TEXT
    # Even so, an alignment fits what a result may hold, so the scorer never drops one.
    assert len(orjson.dumps(alignment_data([row] * (MAX_ROWS * 3)))) < MAX_DATA_BYTES


def test_a_denied_call_of_the_missing_tool_stands_in_its_row() -> None:
    steps = [TraceStep(step_id=7, type="tool_call", tool_name="refund", denied=True,
                       error="permission denied")]
    expected = [{"tool": "refund"}]
    spec = TrajectorySpec(mode="in_order")
    found = match_trajectory(steps, expected, spec)
    (row,) = alignment_data(trajectory_rows(steps, expected, spec, found))["alignment"]
    assert row == {"expected": 0, "step_id": 7, "tool": "refund", "status": "not counted",
                   "ok": False, "differences": [], "note": "denied: permission denied"}

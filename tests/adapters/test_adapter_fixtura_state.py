"""The database state of a Fixtura recording: its SqliteTool calls replayed on the seed.

The recordings under ``tests/data/adapters/fixtura_state/`` are made by that folder's
``refund_agent.py`` with Fixtura's own executor and SqliteTool (re-record with
``python tests/data/adapters/fixtura_state/refund_agent.py``); ``initial.db`` is the seed
both runs started from, found beside them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fixtura", reason="fixtura (the recorder of these fixtures) needs 3.11")

from openeval.adapters import from_fixtura_trace, load_trace
from openeval.adapters.fixtura.state import replay_state
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.matching.state import read_sqlite
from openeval.metrics import get_metric
from openeval.models import AgentTrace, EvalTestCase

DATA = Path(__file__).resolve().parents[1] / "data" / "adapters" / "fixtura_state"
FRAME = {"changes": {"orders.1042.status": "refunded"}, "allowed": ["audit.*"]}


def _state_diff(trace: AgentTrace) -> tuple[bool | None, str]:
    result = get_metric("state_diff").score(trace, EvalTestCase(task_id="t", state=FRAME))
    return result.passed, result.details


@pytest.mark.parametrize(("name", "passed", "words"), [
    ("refund-one", True, "1 required change, 2 allowed changes, nothing else"),
    ("refund-all", False, '1 unexpected change: orders.1043.status: "paid" -> "refunded"'),
])
def test_a_recording_beside_its_seed_is_judged_by_state_diff(
    name: str, passed: bool, words: str,
) -> None:
    trace = load_trace(DATA / f"{name}.trace")
    assert trace.initial_state == read_sqlite(DATA / "initial.db")
    # The audit table has no primary key: its row is keyed by rowid.
    assert trace.actual_state["audit"] == {"1": {"order_id": 1042, "note": "refund: damaged"}}
    found, details = _state_diff(trace)
    assert found is passed and words in details


def test_the_replay_ends_where_fixtura_left_the_database(tmp_path: Path) -> None:
    # A fresh recording, and the database SqliteTool really wrote, in a scratch folder.
    sys.path.insert(0, str(DATA))
    try:
        import refund_agent
    finally:
        sys.path.remove(str(DATA))
    refund_agent.seed(tmp_path / "initial.db")
    for name in refund_agent.RUNS:
        trace = from_fixtura_trace(refund_agent.record(tmp_path, name))
        assert trace.actual_state == read_sqlite(tmp_path / f"{name}.db")
        assert trace.initial_state == read_sqlite(tmp_path / "initial.db")


def test_without_a_seed_the_recording_has_no_state(tmp_path: Path) -> None:
    (tmp_path / "run.trace").write_bytes((DATA / "refund-one.trace").read_bytes())
    trace = load_trace(tmp_path / "run.trace")
    assert trace.initial_state is None and trace.actual_state == {}
    with pytest.raises(OpenEvalError, match="no initial state"):  # an error, never a pass
        get_metric("state_diff").measure(trace, EvalTestCase(task_id="t", state=FRAME))


def test_a_seed_named_by_the_caller_wins(tmp_path: Path) -> None:
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, amount REAL)")
        db.execute("INSERT INTO orders VALUES (1042, 'paid', 1.0)")
        db.execute("CREATE TABLE audit (order_id INTEGER, note TEXT)")
    db.close()
    trace = from_fixtura_trace(DATA / "refund-one.trace", initial_database=other)
    assert trace.actual_state["orders"] == {"1042": {"id": 1042, "status": "refunded",
                                                     "amount": 1.0}}
    given = from_fixtura_trace(DATA / "refund-one.trace", actual_state={"x": 1},
                               initial_state={"x": 0})
    assert (given.initial_state, given.actual_state) == ({"x": 0}, {"x": 1})


def _recording(tmp_path: Path, *calls: dict[str, Any], seed: bool = True) -> Path:
    """Write a plain-JSONL Fixtura recording of ``calls`` (beside a copy of the seed)."""
    if seed:
        (tmp_path / "initial.db").write_bytes((DATA / "initial.db").read_bytes())
    lines = [{"event_type": "llm_call", "step_id": "step-000001", "timestamp": 1.0,
              "prompt": "go", "completion": "", "provider": "p", "model": "m",
              "input_tokens": 1, "output_tokens": 1, "finish_reason": "tool_use",
              "latency_ms": 1}]
    for n, args in enumerate(calls, start=2):
        lines.append({"event_type": "tool_call", "step_id": f"step-{n:06d}", "timestamp": n,
                      "tool_name": "sqlite_tool", "arguments": args,
                      "permission_decision": "allowed", "response": None, "latency_ms": 1})
    path = tmp_path / "run.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


HOSTILE = [
    ("attach", "ATTACH DATABASE 'stolen.db' AS stolen", "ATTACH"),
    # No authorizer code: VACUUM cannot run inside the call's savepoint, so it changes nothing.
    ("vacuum-into", "VACUUM INTO 'copy.db'", None),
    ("pragma", "PRAGMA writable_schema = ON", "PRAGMA"),
    ("extension", "SELECT load_extension('evil')", "FUNCTION"),
    ("temp-table", "CREATE TEMP TABLE t (x)", "INSERT on the temp database"),
    ("commit", "COMMIT", "TRANSACTION"),
]


@pytest.mark.parametrize(("query", "refused"), [h[1:] for h in HOSTILE],
                         ids=[h[0] for h in HOSTILE])
def test_sql_beyond_rows_and_tables_is_refused_and_writes_no_file(
    tmp_path: Path, query: str, refused: str | None,
) -> None:
    path = _recording(tmp_path, {"operation": "write", "query": query})
    before = sorted(os.listdir(tmp_path))
    if refused is None:
        trace = load_trace(path)
        assert trace.actual_state == trace.initial_state
    else:
        with pytest.raises(TraceFormatError, match=f"step 2 \\(sqlite_tool\\) uses {refused}"):
            load_trace(path)
    assert sorted(os.listdir(tmp_path)) == before


def test_a_runaway_statement_is_stopped(tmp_path: Path) -> None:
    endless = ("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
               "SELECT count(*) FROM c")
    path = _recording(tmp_path, {"operation": "read", "query": endless}, seed=False)
    steps = load_trace(path).steps
    with pytest.raises(TraceFormatError, match="more than 100,000 database steps"):
        replay_state(DATA / "initial.db", steps, recording=path, max_steps=100_000)


def test_a_database_that_grows_past_its_bound_is_stopped(tmp_path: Path) -> None:
    grow = ("INSERT INTO audit (order_id, note) WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL "
            "SELECT x + 1 FROM c LIMIT 100) SELECT x, randomblob(100000) FROM c")
    path = _recording(tmp_path, {"operation": "write", "query": grow}, seed=False)
    steps = load_trace(path).steps
    with pytest.raises(TraceFormatError, match="grew the database past 1,048,576 bytes"):
        replay_state(DATA / "initial.db", steps, recording=path, max_bytes=1 << 20)
    # The same statement within the bound is replayed.
    _, after = replay_state(DATA / "initial.db", steps, recording=path, max_bytes=64 << 20)
    assert len(after["audit"]) == 100


def test_failed_and_refused_calls_change_nothing(tmp_path: Path) -> None:
    path = _recording(
        tmp_path,
        {"operation": "write", "query": "UPDATE orders SET status = 'x' WHERE id = ?",
         "parameters": [1042, 5]},  # wrong parameter count: failed in the run too
        {"operation": "write", "query": "DELETE FROM orders; DELETE FROM audit"},  # two at once
        {"operation": "erase", "query": "DELETE FROM orders"},  # SqliteTool raises before commit
    )
    trace = load_trace(path)
    assert trace.actual_state == trace.initial_state


def test_a_seed_that_is_not_a_database_names_the_recording(tmp_path: Path) -> None:
    path = _recording(tmp_path)
    (tmp_path / "initial.db").write_text("not a database")
    with pytest.raises(TraceFormatError, match=r"initial\.db") as caught:
        load_trace(path)
    assert caught.value.source == str(path)

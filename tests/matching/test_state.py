"""State sources for ``state_diff``: JSON files and SQLite databases beside the test case, read
once when the case is read, bounded, and refused outside the case's folder."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from openeval.errors import TestCaseError
from openeval.matching.state import MAX_ROWS, flatten, read_sqlite, read_state_spec
from openeval.metrics import get_metric
from openeval.models import AgentTrace
from openeval.testcase_file import load_test_case


def _database(path: Path, status: str, extra: bool = False) -> None:
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, total REAL)")
        db.execute("CREATE TABLE notes (text TEXT)")  # no primary key: keyed by rowid
        db.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                       [(1042, status, 59.9), (1043, "paid", 12.0)])
        db.execute("INSERT INTO notes VALUES ('hello')")
        if extra:
            db.execute("UPDATE orders SET status = 'refunded' WHERE id = 1043")


def test_sqlite_reads_as_table_key_column(tmp_path: Path) -> None:
    _database(tmp_path / "before.db", "paid")
    state = read_sqlite(tmp_path / "before.db")
    assert state["orders"]["1042"] == {"id": 1042, "status": "paid", "total": 59.9}
    assert state["notes"] == {"1": {"text": "hello"}}
    assert flatten(state)["orders.1043.status"] == "paid"


def _case(tmp_path: Path, state: object) -> Path:
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps({"task_id": "t", "state": state}))
    return path


@pytest.mark.parametrize(("extra", "passed", "words"), [
    (False, True, "1 required change"),
    (True, False, '1 unexpected change: orders.1043.status: "paid" -> "refunded"'),
])
def test_a_case_diffs_two_databases_beside_it(
    tmp_path: Path, extra: bool, passed: bool, words: str,
) -> None:
    _database(tmp_path / "before.db", "paid")
    _database(tmp_path / "after.sqlite", "refunded", extra=extra)
    case = load_test_case(_case(tmp_path, {
        "initial": "before.db", "final": "after.sqlite",
        "changes": {"orders.1042.status": "refunded"}}))
    result = get_metric("state_diff").score(AgentTrace(task_id="t"), case)
    assert result.passed is passed
    assert words in result.details


def test_a_json_file_beside_the_case_is_read_when_the_case_is(tmp_path: Path) -> None:
    (tmp_path / "before.json").write_text(json.dumps({"a": {"b": 1}}))
    case = load_test_case(_case(tmp_path, {"initial": "before.json", "changes": {"a.b": 2}}))
    assert case.state is not None and case.state["initial"] == {"a": {"b": 1}}
    result = get_metric("state_diff").score(
        AgentTrace(task_id="t", actual_state={"a": {"b": 2}}), case)
    assert result.passed is True


@pytest.mark.parametrize(("state", "words"), [
    ({"initial": "../secret.json"}, "beside the test case (no folders)"),
    ({"initial": "/etc/passwd"}, "beside the test case (no folders)"),
    ({"initial": ".hidden.json"}, "beside the test case (no folders)"),
    ({"initial": "nope.json"}, "no such file beside the test case"),
    ({"initial": 3}, "state.initial: expected a JSON object or a string"),
    ({"allowed": "orders.*"}, "state.allowed: expected a list"),
    ({"change": {}}, "state.change: unknown key 'change'"),
    ({"changes": {"a": {"$aprox": 1}}}, "state.changes.a"),
])
def test_a_bad_state_names_the_path(tmp_path: Path, state: object, words: str) -> None:
    with pytest.raises(TestCaseError) as raised:
        load_test_case(_case(tmp_path, state))
    assert words in str(raised.value)


def test_a_file_that_is_not_a_database_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "broken.db").write_text("not sqlite")
    with pytest.raises(TestCaseError, match=r"broken\.db: cannot read as SQLite"):
        read_state_spec({"initial": "broken.db"}, source=tmp_path / "testcase.json")


def test_a_database_is_opened_read_only(tmp_path: Path) -> None:
    _database(tmp_path / "before.db", "paid")
    before = (tmp_path / "before.db").read_bytes()
    read_sqlite(tmp_path / "before.db")
    assert (tmp_path / "before.db").read_bytes() == before


def test_too_many_rows_are_refused(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "big.db") as db:
        db.execute("CREATE TABLE t (v INTEGER)")
        db.executemany("INSERT INTO t VALUES (?)", ((n,) for n in range(MAX_ROWS + 1)))
    with pytest.raises(TestCaseError, match="more than 200,000 rows"):
        read_sqlite(tmp_path / "big.db")


def test_the_diff_in_the_data_is_bounded_failing_rows_first() -> None:
    from openeval.matching.state import MAX_DIFF_ROWS
    from openeval.models import EvalTestCase

    before = {"orders": {str(n): {"status": "paid"} for n in range(60)}}
    after = {"orders": {str(n): {"status": "refunded"} for n in range(60)}}
    # 50 changes allowed, 10 unexpected: the 10 come first, then 30 of the allowed ones.
    case = EvalTestCase(task_id="t", state={
        "initial": before, "final": after, "allowed": [f"orders.{n}.*" for n in range(50)]})
    found = get_metric("state_diff").measure(AgentTrace(task_id="t"), case)
    rows = found.data["state_diff"]
    assert len(rows) == MAX_DIFF_ROWS == 40
    assert [r["verdict"] for r in rows[:10]] == ["unexpected"] * 10
    assert {r["verdict"] for r in rows[10:]} == {"allowed"}
    assert found.data["state_diff_cut"] == {"rows": 60, "kept": 40}
    assert found.details.startswith("10 unexpected changes: orders.50.status")
    assert len(found.details) < 2000

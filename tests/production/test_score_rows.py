"""Rows and the summary: pure, deterministic, every record counted once; the sample is stable."""

from __future__ import annotations

from pathlib import Path

import orjson

from openeval.models import AgentTrace, TraceStep
from openeval.production.engine import local_rows, sample_threshold
from openeval.production.plan import load_checks
from openeval.production.records import TraceRecord, Unreadable
from openeval.production.rows import row_line, score_record
from openeval.production.sample import BottomK, sample_key
from openeval.production.summary import ScoreSummary


def _record(n: int, answer: str = "Your order ships tomorrow.") -> TraceRecord:
    trace = AgentTrace(task_id=f"t{n}", final_output=answer, steps=[
        TraceStep(step_id=1, type="tool_call", tool_name="lookup", tool_args={"id": n},
                  tool_result="ok")])
    return TraceRecord(trace, "f.jsonl", n, "native", f"t{n}")


def test_a_row_names_the_trace_and_each_check() -> None:
    plan = load_checks(None)
    row = score_record(_record(1, "Mail me at jane.doe@corp-mail.net"), plan)
    assert (row["trace_id"], row["file"], row["line"], row["status"]) == (
        "t1", "f.jsonl", 1, "failed")
    assert row["checks"]["pii_leak"]["verdict"] == "fail"
    assert row["checks"]["pii_leak"]["scores"] == {"pii_free": False, "pii_count": 1.0}
    assert "email x1" in row["checks"]["pii_leak"]["details"]
    assert "details" not in row["checks"]["refusal"]  # passed: no details kept
    assert row_line(row) == orjson.dumps(row, option=orjson.OPT_SORT_KEYS) + b"\n"


def test_unreadable_is_a_row_too() -> None:
    row = score_record(Unreadable("f.jsonl", 7, "invalid JSON"), load_checks(None))
    assert row == {"file": "f.jsonl", "line": 7, "status": "unreadable",
                   "message": "invalid JSON"}


def test_summary_counts_every_row_once_and_merges_in_order() -> None:
    plan = load_checks(None)
    items = [_record(n, "I'm sorry, but I can't help with that." if n % 3 == 0 else "Done.")
             for n in range(1, 31)] + [Unreadable("f.jsonl", 99, "broken")]
    rows = [score_record(item, plan) for item in items]
    whole = ScoreSummary()
    for row in rows:
        whole.add(row)
    parts = [ScoreSummary(), ScoreSummary()]
    for i, row in enumerate(rows):
        parts[i >= 12].add(row)
    parts[0].merge(parts[1])
    assert parts[0].to_json() == whole.to_json()
    summary = whole.to_json()
    assert summary["rows"] == summary["scored"] + summary["not_sampled"] + 1
    assert summary["unreadable"] == {"count": 1, "first": ["f.jsonl:99: broken"]}
    refusal = summary["checks"]["refusal"]
    assert (refusal["passed"], refusal["failed"]) == (20, 10)
    assert refusal["failing_traces"] == [f"t{n}" for n in range(3, 31, 3)]


def test_bottom_k_is_the_same_in_any_order_and_split() -> None:
    keys = [sample_key(f"trace-{n}") for n in range(1000)]
    one, left, right = BottomK(10), BottomK(10), BottomK(10)
    one.update(keys)
    left.update(keys[::2])
    right.update(keys[1::2])
    left.merge(right)
    assert one.threshold() == left.threshold() == sorted(keys)[9]
    # The key is BLAKE2b's: the same in every process, version and engine.
    assert sample_key("trace-1") == int.from_bytes(
        __import__("hashlib").blake2b(b"trace-1", digest_size=8).digest(), "big")


def test_sample_scores_exactly_k_and_counts_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"".join(orjson.dumps({"task_id": f"t{n}", "steps": []}) + b"\n"
                              for n in range(200)))
    rows = list(local_rows([path], load_checks(None), sample=25))
    statuses = [row["status"] for row in rows]
    assert len(rows) == 200 and statuses.count("not sampled") == 175
    kept = {row["trace_id"] for row in rows if row["status"] != "not sampled"}
    keys = sorted(sample_key(f"t{n}") for n in range(200))
    assert kept == {f"t{n}" for n in range(200) if sample_key(f"t{n}") <= keys[24]}
    assert sample_threshold([], 3) is None

"""A refund agent recorded with Fixtura's SqliteTool, for the database state of a recording.

Running this file re-records, beside it, ``initial.db`` (the shop's database before either
run) and two runs on copies of it with Fixtura's own executor, permission engine and
SqliteTool: ``refund-one.trace`` refunds order 1042 as asked and logs it; ``refund-all.trace``
refunds every paid order, 1043 too. The "model" is scripted (fixed completions, no network),
so the recordings are the same every time apart from timestamps and latencies.
"""

from __future__ import annotations

import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

from fixtura.executor import RecordingExecutor
from fixtura.recorder.recorder import ExecutionRecorder
from fixtura.security.permission_engine import CapabilityToken
from fixtura.tools.sqlite_tool import SqliteTool

TASK = "Refund order 1042: it arrived damaged."
RUNS = ("refund-one", "refund-all")


def seed(path: Path) -> None:
    """Write the shop's database as it is before the run (``audit`` has no primary key)."""
    path.unlink(missing_ok=True)
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, status TEXT, amount REAL)")
        db.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                       [(1042, "paid", 59.9), (1043, "paid", 12.5), (1044, "shipped", 8.0)])
        db.execute("CREATE TABLE audit (order_id INTEGER, note TEXT)")
    sqlite3.connect(path).close()


def _token() -> CapabilityToken:
    token = CapabilityToken()
    token.db.read = True
    token.db.write = True
    return token


def _model(run: RecordingExecutor, prompt: str, completion: str, finish: str) -> None:
    run.record_llm_call(prompt=prompt, completion=completion, provider="scripted",
                        model="refund-bot", input_tokens=20, output_tokens=10,
                        finish_reason=finish, latency_ms=5)


def record(folder: Path, name: str) -> Path:
    """Record run ``name`` (one of :data:`RUNS`) on a copy of the seed; return its path."""
    database = folder / f"{name}.db"
    shutil.copyfile(folder / "initial.db", database)
    trace = folder / f"{name}.trace"
    trace.unlink(missing_ok=True)
    run = RecordingExecutor(ExecutionRecorder(trace), {"sqlite_tool": SqliteTool(str(database))},
                            _token())
    _model(run, TASK, "Looking the order up.", "tool_use")
    run.call("sqlite_tool", {"operation": "read", "query": "SELECT * FROM orders WHERE id = ?",
                             "parameters": [1042]})
    _model(run, "order 1042: paid, 59.90", "Refunding it and logging why.", "tool_use")
    if name == "refund-one":
        run.call("sqlite_tool", {"operation": "write",
                                 "query": "UPDATE orders SET status = 'refunded' WHERE id = ?",
                                 "parameters": [1042]})
    else:  # the mistake the frame condition is there to catch
        run.call("sqlite_tool", {"operation": "write",
                                 "query": "UPDATE orders SET status = 'refunded' "
                                          "WHERE status = 'paid'"})
    run.call("sqlite_tool", {"operation": "write",
                             "query": "INSERT INTO audit (order_id, note) VALUES (?, ?)",
                             "parameters": [1042, "refund: damaged"]})
    run.call("sqlite_tool", {"operation": "write", "query": "DELETE FROM no_such_table"})
    _model(run, "refunded", "Order 1042 is refunded.", "end_turn")
    return trace


def main(target: Path) -> None:
    """Record in a scratch folder and copy the seed and both recordings to ``target``."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        seed(folder / "initial.db")
        shutil.copyfile(folder / "initial.db", target / "initial.db")
        for name in RUNS:
            trace = record(folder, name)
            shutil.copyfile(trace, target / trace.name)
            print(f"recorded {target / trace.name}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)

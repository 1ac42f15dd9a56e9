"""The database state around a Fixtura recording: its SqliteTool writes replayed on a seed.

Fixtura records no state of its own: no snapshot of the database before or after a run, and no
sidecar file. What a recording does hold is every ``sqlite_tool`` call Fixtura's SqliteTool
made, with the SQL and its parameters. Given the database the run started from (the seed),
the state after the run follows: the seed copied into memory, each executed call run on it
again, in order. The trace then carries both (``initial_state`` before, ``actual_state``
after) in the ``{table: {key: {column: value}}}`` shape of a state file, so the test case's
``state`` (``changes``, ``allowed``) judges the recording with ``state_diff``
(proposals/0241-fixtura-database-state.md).

The seed is ``initial.db`` beside the recording, or the file the caller names. It is opened
read-only and copied into memory; nothing is ever written to a file. The replayed SQL comes
from a file anyone may have written, so it runs under an authorizer that allows reading and
changing rows and tables only (no ``ATTACH``, no ``PRAGMA``, no extension), with bounds on the
work it may do, on the size of any value and of the database, and sorts kept in memory.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from openeval.errors import OpenEvalError, TraceFormatError
from openeval.io.files import open_regular
from openeval.matching.state import MAX_STATE_BYTES, read_sqlite_connection
from openeval.models import TraceStep

SEED_NAME = "initial.db"
"""The seed database looked for beside a recording: what the run's SqliteTool started from."""
SQLITE_TOOL = "sqlite_tool"
"""The name Fixtura's SqliteTool records its calls under."""
OPERATIONS = ("read", "write")
"""The operations SqliteTool runs. It commits on leaving its connection's ``with`` block, so
a ``read`` that changes rows changes the database as a ``write`` does: both are replayed."""
MAX_STEPS = 50_000_000
"""Most SQLite virtual-machine steps all the replayed statements may take together."""
_PROGRESS_EVERY = 1_000
MAX_VALUE_BYTES = 1_000_000
"""Largest string or blob one replayed statement may make."""
MAX_GROWN_BYTES = 2 * MAX_STATE_BYTES
"""Largest the database may grow to while the calls are replayed."""

_ALLOWED = {
    sqlite3.SQLITE_INSERT, sqlite3.SQLITE_UPDATE, sqlite3.SQLITE_DELETE, sqlite3.SQLITE_READ,
    sqlite3.SQLITE_SELECT, sqlite3.SQLITE_FUNCTION, sqlite3.SQLITE_RECURSIVE,
    sqlite3.SQLITE_CREATE_TABLE, sqlite3.SQLITE_DROP_TABLE, sqlite3.SQLITE_ALTER_TABLE,
    sqlite3.SQLITE_CREATE_INDEX, sqlite3.SQLITE_DROP_INDEX,
}
"""What replayed SQL may do: read and change rows, tables and indexes of the main database.
Not ``BEGIN`` / ``COMMIT``: each call runs in a savepoint of its own, so a failing one
changes nothing, and the recorded SQL may not end it."""
_REFUSED_FUNCTIONS = {"load_extension"}


class _Guard:
    """The authorizer of replayed SQL; remembers the first thing it refused."""

    def __init__(self) -> None:
        self.refused: str | None = None

    def __call__(self, action: int, arg1: str | None, arg2: str | None, db: str | None,
                 trigger: str | None) -> int:
        refused = (action not in _ALLOWED
                   or (action == sqlite3.SQLITE_FUNCTION
                       and (arg2 or "").lower() in _REFUSED_FUNCTIONS)
                   or db not in (None, "main"))  # temp or attached: not the seed's tables
        if not refused:
            return sqlite3.SQLITE_OK
        if self.refused is None:
            self.refused = _ACTIONS.get(action, f"action {action}") + (
                f" on the {db} database" if db not in (None, "main") else "")
        return sqlite3.SQLITE_DENY


_ACTIONS = {getattr(sqlite3, f"SQLITE_{name}"): name for name in (
    "ATTACH", "DETACH", "PRAGMA", "TRANSACTION", "SAVEPOINT", "REINDEX", "ANALYZE",
    "CREATE_TEMP_TABLE", "CREATE_TEMP_INDEX", "CREATE_TEMP_TRIGGER", "CREATE_TEMP_VIEW",
    "CREATE_TRIGGER", "CREATE_VIEW", "CREATE_VTABLE", "DROP_TRIGGER", "DROP_VIEW",
    "DROP_VTABLE", "DROP_TEMP_TABLE", "DROP_TEMP_INDEX", "DROP_TEMP_TRIGGER",
    "DROP_TEMP_VIEW", "FUNCTION", "READ", "SELECT", "INSERT", "UPDATE", "DELETE")
    if hasattr(sqlite3, f"SQLITE_{name}")}
"""Authorizer action codes by name, for saying what a statement tried."""


def seed_beside(recording: Path) -> Path | None:
    """Return the seed database beside ``recording`` (:data:`SEED_NAME`), or None."""
    seed = recording.parent / SEED_NAME
    return seed if seed.is_file() else None


def sqlite_writes(steps: Iterable[TraceStep]) -> list[TraceStep]:
    """Return the SqliteTool calls of ``steps`` that ran, in order: refused, invalid or
    rate-limited calls (``denied`` or an error recorded) never touched the database."""
    return [
        step for step in steps
        if step.type == "tool_call" and step.tool_name == SQLITE_TOOL and not step.denied
        and step.error is None and isinstance(step.tool_args, Mapping)
        and step.tool_args.get("operation") in OPERATIONS
    ]


def replay_state(
    seed: Path, steps: Iterable[TraceStep], *, recording: Path, max_steps: int = MAX_STEPS,
    max_bytes: int = MAX_GROWN_BYTES,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return the state before and after the run: ``seed`` as read, and ``seed`` with the
    executed SqliteTool calls of ``steps`` replayed on a copy in memory.

    A statement that fails on replay failed in the run too (SqliteTool rolls it back and
    records no error), so it changes nothing here either. Raises TraceFormatError naming
    ``recording`` when the seed cannot be read as a database, is too large, or the replay
    goes over its bounds (``max_steps`` database steps in all, a database of ``max_bytes``),
    or a call does what is not replayed (``ATTACH``, ``PRAGMA``, a temporary table, an
    extension): the run may have changed what the replay cannot see, so no state is better
    than a wrong one.
    """
    memory = _copy_into_memory(seed, recording, max_bytes)
    try:
        before = _read(memory, seed, recording)
        budget = [max(1, max_steps // _PROGRESS_EVERY)]

        def progress() -> int:
            budget[0] -= 1
            return 1 if budget[0] < 0 else 0  # non-zero aborts the running statement

        memory.set_progress_handler(progress, _PROGRESS_EVERY)
        for step in sqlite_writes(steps):
            _replay(memory, step, recording, budget=budget, max_steps=max_steps,
                    max_bytes=max_bytes)
        memory.set_progress_handler(None, 0)
        after = _read(memory, seed, recording)
    finally:
        memory.close()
    return before, after


def _copy_into_memory(seed: Path, recording: Path, max_bytes: int) -> sqlite3.Connection:
    handle, size = open_regular(seed, expected="a SQLite database")  # no FIFO, no device
    handle.close()
    if size > MAX_STATE_BYTES:
        raise TraceFormatError(
            f"the seed database {seed.name} is {size:,} bytes, above the {MAX_STATE_BYTES:,} "
            "a state may hold", source=recording)
    try:
        source = sqlite3.connect(f"{seed.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise TraceFormatError(f"the seed database {seed.name} cannot be opened: {exc}",
                               source=recording) from None
    memory = sqlite3.connect(":memory:", isolation_level=None)  # autocommit, as each call was
    try:
        source.backup(memory)
    except sqlite3.Error as exc:
        memory.close()
        raise TraceFormatError(f"the seed database {seed.name} cannot be read: {exc}",
                               source=recording) from None
    finally:
        source.close()
    # Bounds of the copy itself: sorts and temporary tables in memory, never in a temp file,
    # and a database that may grow to twice the largest seed, no more.
    page_size = memory.execute("PRAGMA page_size").fetchone()[0]
    memory.execute("PRAGMA temp_store = MEMORY")
    memory.execute(f"PRAGMA max_page_count = {max(1, max_bytes // page_size)}")
    setlimit = getattr(memory, "setlimit", None)  # Python 3.11+; the authorizer bounds 3.10
    names = vars(sqlite3)
    if setlimit is not None:
        setlimit(names["SQLITE_LIMIT_LENGTH"], MAX_VALUE_BYTES)
        setlimit(names["SQLITE_LIMIT_ATTACHED"], 0)
    return memory


def _read(memory: sqlite3.Connection, seed: Path, recording: Path) -> dict[str, Any]:
    try:
        return read_sqlite_connection(memory, seed.name)
    except OpenEvalError as exc:
        raise TraceFormatError(exc.message, source=recording) from None


def _replay(memory: sqlite3.Connection, step: TraceStep, recording: Path, *,
            budget: list[int], max_steps: int, max_bytes: int) -> None:
    args = step.tool_args or {}
    query, parameters = args.get("query"), args.get("parameters", [])
    if not isinstance(query, str) or not isinstance(parameters, list):
        return  # SqliteTool's own validation refused it: it never ran
    memory.execute("SAVEPOINT call")
    guard = _Guard()
    memory.set_authorizer(guard)
    try:
        for _ in memory.execute(query, parameters):
            pass  # a read's rows are not needed, and are not kept: a huge SELECT costs no memory
    except (sqlite3.Error, sqlite3.Warning, OverflowError, ValueError) as exc:
        full = (getattr(exc, "sqlite_errorname", None) == "SQLITE_FULL"  # Python 3.11+
                or str(exc) == "database or disk is full")
        # Failed in the run as it fails here (the run rolled the call back): no change.
        memory.set_authorizer(None)
        memory.execute("ROLLBACK TO call")
        memory.execute("RELEASE call")
        if budget[0] < 0:
            raise TraceFormatError(
                f"replaying the SqliteTool calls took more than {max_steps:,} database steps "
                f"(at step {step.step_id}); the state after the run is not computed",
                source=recording) from None
        if full:
            raise TraceFormatError(
                f"replaying step {step.step_id} (sqlite_tool) grew the database past "
                f"{max_bytes:,} bytes; the state after the run is not computed",
                source=recording) from None
        if guard.refused is not None:
            raise TraceFormatError(
                f"step {step.step_id} (sqlite_tool) uses {guard.refused}, which is not "
                "replayed (only rows, tables and indexes are); the state after the run is not "
                "computed", source=recording) from None
        return
    memory.set_authorizer(None)
    memory.execute("RELEASE call")

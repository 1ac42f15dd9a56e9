"""The final state as a frame condition: what changed, what had to, what was allowed.

A test case's ``state`` object (proposals/0153-state-diff.md):

- ``initial`` and ``final``: the state before and after the run, each a JSON object, or the name
  of a file beside the test case (``.json``, or a SQLite database ``.db`` / ``.sqlite`` /
  ``.sqlite3``). Left out, they default to the trace's ``initial_state`` and ``actual_state``.
- ``changes``: ``{path: value or matcher}``: each path must have changed, to a matching value.
- ``allowed``: fnmatch globs over paths (``*`` crosses dots) that may change.

Paths are dotted (``orders.1042.status``); arrays are leaves, empty objects hold no path. A
SQLite file reads as ``{table: {key: {column: value}}}`` with the primary key (the rowid when
there is none) as key: ``orders.1042.status``. Every source is bounded: a file of at most
:data:`MAX_STATE_BYTES`, a database of at most :data:`MAX_ROWS` rows, values nested at most
``MAX_JSON_DEPTH`` deep; a database is opened read-only (``mode=ro``), so nothing in it runs
or is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from openeval.errors import TestCaseError
from openeval.matching.calls import glob_pattern
from openeval.matching.matchers import Expected, compile_expected
from openeval.values import MAX_JSON_DEPTH, MISSING, json_equal, short_json

STATE_KEYS: tuple[str, ...] = ("allowed", "changes", "final", "initial")
MAX_STATE_BYTES = 64 * 1024 * 1024
"""Largest state file read."""
MAX_ROWS = 200_000
"""Most rows read from one SQLite file, over all its tables."""
MAX_DIFF_ROWS = 40
"""Rows of the diff kept in a result's data (the count of the rest is kept too)."""
_SQLITE_SUFFIXES = (".db", ".sqlite", ".sqlite3")

Verdict = Literal["required", "allowed", "unexpected", "missing"]


@dataclass(frozen=True)
class StateSpec:
    """A test case's ``state``, checked and with its file sources read."""

    initial: Mapping[str, Any] | None
    final: Mapping[str, Any] | None
    changes: Mapping[str, Expected]
    allowed: re.Pattern[str] | None
    allowed_globs: tuple[str, ...] = ()


@dataclass(frozen=True)
class DiffRow:
    """One path of the diff: its value before and after, and how the case judges it."""

    path: str
    before: Any
    after: Any
    verdict: Verdict
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.verdict in ("required", "allowed")

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": _cut(self.path), "before": _shown(self.before), "after": _shown(self.after),
            "verdict": self.verdict, "ok": self.ok, **({"why": _cut(self.why)} if self.why else {}),
        }


def _cut(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _shown(value: Any) -> str:
    return "(absent)" if value is MISSING else short_json(value, 60)


def _fail(message: str, where: str, source: str | Path | None) -> TestCaseError:
    return TestCaseError(message, source=source, location=where)


def read_state_spec(
    value: Any, *, where: str = "state", source: str | Path | None = None,
) -> StateSpec:
    """Return the ``state`` object ``value`` checked, its files read beside ``source``.

    Raises TestCaseError naming the JSON path for an unknown key, a source that is neither an
    object nor a file name beside the test case, a file that cannot be read or is too large,
    an ``allowed`` that is not a list of globs, or a malformed matcher in ``changes``.
    """
    if not isinstance(value, Mapping):
        raise _fail(f"expected a JSON object, got {short_json(value)}", where, source)
    for key in value:
        if key not in STATE_KEYS:
            raise _fail(f"unknown key {short_json(key)}; expected one of: "
                        f"{', '.join(STATE_KEYS)}", f"{where}.{key}", source)
    changes = value.get("changes", {})
    if not isinstance(changes, Mapping):
        raise _fail(f"expected an object {{path: value}}, got {short_json(changes)}",
                    f"{where}.changes", source)
    compiled = {
        str(path): compile_expected(expected, f"{where}.changes.{path}", source=source)
        for path, expected in changes.items()
    }
    globs = value.get("allowed", [])
    if not isinstance(globs, list) or not all(isinstance(g, str) and g for g in globs):
        raise _fail(f"expected a list of path globs, got {short_json(globs)}",
                    f"{where}.allowed", source)
    return StateSpec(
        _source(value.get("initial"), f"{where}.initial", source),
        _source(value.get("final"), f"{where}.final", source),
        compiled, glob_pattern(globs), tuple(globs),
    )


def _source(value: Any, where: str, source: str | Path | None) -> Mapping[str, Any] | None:
    if value is None or isinstance(value, Mapping):
        return value
    if not isinstance(value, str) or not value:
        raise _fail(f"expected a JSON object or a file name, got {short_json(value)}", where,
                    source)
    if "/" in value or "\\" in value or value in (".", "..") or value.startswith("."):
        raise _fail(f"{short_json(value)}: give the name of a file beside the test case "
                    "(no folders)", where, source)
    base = Path(source).parent if source is not None else Path.cwd()
    path = base / value
    if not path.is_file():
        raise _fail(f"{short_json(value)}: no such file beside the test case", where, source)
    size = path.stat().st_size
    if size > MAX_STATE_BYTES:
        raise _fail(f"{value}: {size:,} bytes, above the {MAX_STATE_BYTES:,} a state file may "
                    "hold", where, source)
    if path.suffix.lower() in _SQLITE_SUFFIXES:
        return read_sqlite(path, where, source)
    from openeval.jsonio import read_json_file

    found = read_json_file(path, error=TestCaseError)
    if not isinstance(found, Mapping):
        raise _fail(f"{value}: expected a JSON object, got {short_json(found)}", where, source)
    return found


def read_sqlite(path: Path, where: str = "state", source: str | Path | None = None,
                ) -> dict[str, Any]:
    """Return a SQLite database as ``{table: {key: {column: value}}}``, read-only and bounded.

    The key is the primary key (its columns joined by ``,`` when it has several), or the rowid
    when the table has none. Blobs become their hex text.
    """
    import sqlite3

    uri = f"{path.resolve().as_uri()}?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise _fail(f"{path.name}: cannot open as SQLite: {exc}", where, source) from None
    try:
        return read_sqlite_connection(connection, path.name, where, source)
    finally:
        connection.close()


def read_sqlite_connection(
    connection: Any, name: str, where: str = "state", source: str | Path | None = None,
) -> dict[str, Any]:
    """Return the database open on ``connection`` (a ``sqlite3.Connection``; ``name`` is the
    file it came from, for messages) as :func:`read_sqlite` does."""
    import sqlite3

    rows = 0
    out: dict[str, Any] = {}
    try:
        tables = [table for (table,) in connection.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name")]
        for table in tables:
            quoted = '"' + table.replace('"', '""') + '"'
            info = connection.execute(f"PRAGMA table_info({quoted})").fetchall()
            columns = [row[1] for row in info]
            keys = [row[1] for row in sorted(info, key=lambda r: r[5]) if row[5]]
            selected = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
            query = (f"SELECT {selected} FROM {quoted}" if keys
                     else f"SELECT rowid, {selected} FROM {quoted}")
            content: dict[str, Any] = {}
            for record in connection.execute(query):
                rows += 1
                if rows > MAX_ROWS:
                    raise _fail(f"{name}: more than {MAX_ROWS:,} rows", where, source)
                values = dict(zip(columns, record[0 if keys else 1:], strict=True))
                key = (",".join(str(values[k]) for k in keys) if keys else str(record[0]))
                content[key] = {c: (v.hex() if isinstance(v, bytes) else v)
                                for c, v in values.items()}
            out[table] = content
    except sqlite3.Error as exc:
        raise _fail(f"{name}: cannot read as SQLite: {exc}", where, source) from None
    return out


def flatten(value: Mapping[str, Any]) -> dict[str, Any]:
    """Return ``{dotted path: leaf value}`` of a state. Arrays are leaves; an empty object
    holds no path, so emptying a record shows as its fields removed, not as an object added."""
    out: dict[str, Any] = {}
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        prefix, item, depth = stack.pop()
        if isinstance(item, Mapping) and depth < MAX_JSON_DEPTH:
            for key, child in item.items():
                stack.append((f"{prefix}.{key}" if prefix else str(key), child, depth + 1))
        elif prefix:
            out[prefix] = item
    return out


def _at(flat: Mapping[str, Any], path: str) -> Any:
    """Return the value at ``path``: a leaf, or the object of the leaves under it."""
    if path in flat:
        return flat[path]
    prefix = path + "."
    under = {key[len(prefix):]: value for key, value in flat.items() if key.startswith(prefix)}
    if not under:
        return MISSING
    tree: dict[str, Any] = {}
    for key, value in under.items():
        node = tree
        parts = key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
        node[parts[-1]] = value
    return tree


def diff_state(
    before: Mapping[str, Any], after: Mapping[str, Any], spec: StateSpec,
) -> list[DiffRow]:
    """Return one row per changed path (added, removed or changed), judged, then one
    ``missing`` row per required change that did not happen, in path order."""
    old, new = flatten(before), flatten(after)
    changed = sorted(
        path for path in set(old) | set(new)
        if not json_equal(old.get(path, MISSING), new.get(path, MISSING))
        or (path in old) != (path in new)
    )
    required: dict[str, str] = {}  # path of a changed leaf -> the changes key that covers it
    rows: list[DiffRow] = []
    for key, expected in spec.changes.items():
        was, now = _at(old, key), _at(new, key)
        moved = [p for p in changed if p == key or p.startswith(key + ".")]
        if not moved:
            rows.append(DiffRow(key, was, now, "missing", "required change did not happen"))
            continue
        verdict = expected.test(now)
        for path in moved:
            required[path] = key
        if verdict is not True:
            rows.append(DiffRow(key, was, now, "missing",
                                f"changed, but not to {expected.describe()}"))
    for path in changed:
        was, now = old.get(path, MISSING), new.get(path, MISSING)
        if path in required:
            if not any(r.path == required[path] and r.verdict == "missing" for r in rows):
                rows.append(DiffRow(path, was, now, "required"))
        elif spec.allowed is not None and spec.allowed.fullmatch(path):
            rows.append(DiffRow(path, was, now, "allowed"))
        else:
            rows.append(DiffRow(path, was, now, "unexpected"))
    rows.sort(key=lambda row: row.path)
    return rows


def describe_row(row: DiffRow) -> str:
    """Return ``path: before -> after`` (``removed`` / ``added`` when a side is absent)."""
    if row.after is MISSING:
        return f"{row.path}: removed"
    if row.before is MISSING:
        return f"{row.path}: added {short_json(row.after, 60)}"
    return f"{row.path}: {short_json(row.before, 60)} -> {short_json(row.after, 60)}"


def diff_data(rows: list[DiffRow]) -> dict[str, Any]:
    """Return the diff as a result's data: the rows that fail first, bounded."""
    ordered = sorted(rows, key=lambda row: (row.ok, row.path))
    data: dict[str, Any] = {"state_diff": [row.to_dict() for row in ordered[:MAX_DIFF_ROWS]]}
    if len(rows) > MAX_DIFF_ROWS:
        data["state_diff_cut"] = {"rows": len(rows), "kept": MAX_DIFF_ROWS}
    return data


def with_state_files(document: Mapping[str, Any], *, source: str | Path | None) -> dict[str, Any]:
    """Return a test case document whose ``state`` sources named as files are read (beside
    ``source``) into objects, so scoring reads no file; the document itself is not changed.
    Raises TestCaseError as :func:`read_state_spec` does."""
    state = document.get("state")
    spec = read_state_spec(state, source=source)
    if not isinstance(state, Mapping):  # read_state_spec refused it already
        return dict(document)
    read = dict(state)
    for key, found in (("initial", spec.initial), ("final", spec.final)):
        if found is not None:
            read[key] = dict(found)
    return {**document, "state": read}

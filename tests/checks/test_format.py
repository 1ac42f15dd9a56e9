"""The format checks against their cases in ``tests/data/checks/format.json``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("format"))
def test_format_case(case: dict[str, Any]) -> None:
    run_case("format", case)


# --- json_validity's schema patterns through the real command line (issue 24) --------------

SPACES = " " * 90_000
"""Under the 100,000 characters a check reads of a reply, so the reply is still JSON."""


@dataclass(frozen=True)
class SchemaRow:
    id: str
    schema: dict[str, Any]
    reply: Any
    says: str
    """How the case's line starts: an errored case, or a failure."""
    refused: str | None = None
    """The pattern an errored case names."""
    seconds: float = 60


SCHEMA_ROWS = [
    # Each once hung the run: re.search backtracks exponentially on 41 characters.
    SchemaRow("alternation-under-repeat", {"properties": {"a": {"pattern": "^(a|aa)+$"}}},
              {"a": "a" * 40 + "b"}, "ERROR c: ", "^(a|aa)+$"),
    SchemaRow("nested-quantifier-in-pattern-properties",
              {"patternProperties": {"^(\\w+\\s?)*$": {"type": "string"}}},
              {"a" * 40 + "!": "x"}, "ERROR c: ", "^(\\w+\\s?)*$"),
    # Not refused (polynomial), but a schema pattern searches 10,000 characters at most: 90 KB
    # took 40 s, and is now "not matched" at once.
    SchemaRow("quadratic-pattern-on-90-kb", {"properties": {"a": {"pattern": "\\s*x\\s*$"}}},
              {"a": SPACES}, "FAIL  c", seconds=20),
]


@pytest.mark.parametrize("row", SCHEMA_ROWS, ids=[r.id for r in SCHEMA_ROWS])
def test_a_schema_pattern_is_bounded(row: SchemaRow, tmp_path: Path) -> None:
    case = tmp_path / "suite" / "c"
    case.mkdir(parents=True)
    (case / "trace.json").write_text(json.dumps(
        {"task_id": "c", "input": "x", "steps": [], "final_output": json.dumps(row.reply)}))
    (case / "testcase.json").write_text(json.dumps(
        {"task_id": "c", "metrics": [], "checks": [{"check": "json_validity",
                                                      "schema": row.schema}]}))
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(tmp_path / "suite"),
         "--output", str(tmp_path / "out")],
        capture_output=True, text=True, timeout=row.seconds,
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert done.returncode == 1
    line = done.stdout.splitlines()[0]
    assert line.startswith(row.says), line
    if row.refused is not None:
        assert f"the pattern {row.refused!r}" in line

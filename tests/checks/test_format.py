"""The format checks against their cases in ``tests/data/checks/format.json``."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any

import pytest
from check_cases import params, run_case
from hypothesis import given
from hypothesis import strategies as st

from openeval.checks import text as check_text
from openeval.checks.format import _word_count


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


# --- length_budget: the one-pass word count of a short reply is the bounded count ----------





def bounded_count(body: str, low: int | None, high: int | None) -> tuple[int, str]:
    bounds = [b for b in (low, high) if b is not None]
    cap = max(bounds) + 1 if bounds else 0
    count = sum(1 for _ in islice(check_text.iter_words(body, lower=False), cap))
    return count, f"more than {cap - 1}" if cap and count >= cap else str(count)


WORD_CASES = {
    "empty": ("", 1, 300),
    "no bound": ("a b c", None, None),
    "exactly at the cap": ("a b c", 1, 2),
    "one char words up to the cap": ("a b", None, 2),
    "just below the quick length": ("a b c d", 0, 3),
    "punctuation only": ("... !!", 1, 3),
    "accents and digits": ("café 42 x_y", 1, 2),
}


@pytest.mark.parametrize(("body", "low", "high"), WORD_CASES.values(), ids=WORD_CASES.keys())
def test_word_count_is_the_bounded_count(body: str, low: int | None, high: int | None) -> None:
    assert _word_count(body, low, high) == bounded_count(body, low, high)


@given(st.text(alphabet="ab _.é1\n", max_size=40), st.none() | st.integers(0, 20),
       st.none() | st.integers(0, 20))
def test_word_count_is_the_bounded_count_on_any_text(
        body: str, low: int | None, high: int | None) -> None:
    assert _word_count(body, low, high) == bounded_count(body, low, high)

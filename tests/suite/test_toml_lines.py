"""Key lines of a TOML file: every key and table found on its line, and the nearest ancestor
standing in for a path that has no line of its own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openeval.suite.toml_lines import key_lines, line_of

CASES = json.loads((Path(__file__).parents[1] / "data" / "suite" / "toml_lines.json").read_text())


@pytest.mark.parametrize("row", CASES, ids=[r["id"] for r in CASES])
def test_key_lines(row: dict[str, Any]) -> None:
    lines = key_lines(row["text"])
    for path, line in row["lines"].items():
        assert lines.get(path) == line, path
    for path in row.get("absent", []):
        assert path not in lines


@pytest.mark.parametrize(
    ("path", "line"),
    [("gates.tool", 5), ("checks[1].threshold", 4), ("checks[7]", 2), ("metrics[3]", 1),
     ("unknown", None), ("", None)],
)
def test_line_of_falls_back_to_the_nearest_ancestor(path: str, line: int | None) -> None:
    lines = {"metrics": 1, "checks": 2, "checks[1]": 4, "gates": 3, "gates.tool": 5}
    assert line_of(lines, path) == line


@given(st.text(max_size=200))
def test_never_raises_on_any_text(text: str) -> None:
    lines = key_lines(text)
    assert all(1 <= n <= max(1, len(text.splitlines())) for n in lines.values())

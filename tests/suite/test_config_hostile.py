"""Hostile ``openeval.toml`` files through the real command line (issue 24, finding 8 and 10).

A pull request's author writes the suite's configuration. Each row writes one shape of file
(at most the 1 MB a configuration may hold) into a fresh suite and runs ``openeval run`` in a
subprocess with a time limit: the run ends well inside it, with one line naming the file, and
no traceback.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

GOOD = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good"


def _many_checks(size: int) -> str:
    # Thousands of valid entries: each was checked for regex risk and its annotations read
    # anew, 15 ms a check (600 KB took minutes).
    entries, total, i = [], 0, 0
    while total < size:
        entry = f'[[checks]]\ncheck = "refusal"\nname = "r{i}"\n'
        entries.append(entry)
        total, i = total + len(entry), i + 1
    return "".join(entries)


def _dotted_key(dots: int, lines: int) -> str:
    # One table per dot: a RecursionError traceback once the nesting passed Python's limit.
    return "".join("x." * dots + f"k{i} = 1\n" for i in range(lines))


def _dotted_headers(dots: int, lines: int) -> str:
    return "".join("[" + "x." * dots + f"k{i}]\n" for i in range(lines))


@dataclass(frozen=True)
class Shape:
    id: str
    text: Callable[[], str]
    code: int
    says: str
    seconds: float = 60.0
    """The run must end inside this (the unfixed code took five times as long)."""


SHAPES = [
    Shape("400-kb-of-checks", lambda: _many_checks(400_000), 0, "PASS  good"),
    Shape("dotted-key-999-deep", lambda: _dotted_key(999, 100), 1,
          "openeval.toml: line 1: x.x.x"),
    Shape("dotted-headers-999-deep", lambda: _dotted_headers(999, 100), 1,
          "nested more than 64 tables or arrays deep"),
]


@pytest.mark.parametrize("shape", SHAPES, ids=[s.id for s in SHAPES])
def test_a_hostile_configuration_ends_quickly_with_one_line(shape: Shape,
                                                            tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(GOOD, suite / "good")
    (suite / "openeval.toml").write_text(shape.text())
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(suite), "--output",
         str(tmp_path / "out")],
        capture_output=True, text=True, timeout=shape.seconds,
    )
    assert "Traceback" not in done.stdout + done.stderr
    assert shape.says in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.returncode == shape.code
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["cases"] == 1

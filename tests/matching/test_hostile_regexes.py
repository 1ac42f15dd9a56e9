"""A user's regular expression that can backtrack exponentially is refused when the test case is
read, naming the pattern, so a 41-character reply can never hang a run: scenarios of
tests/data/matching/hostile_regexes.json, each a one-case suite run by ``openeval run`` in a
subprocess with a time limit far below what the pattern would take."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from openeval.matching.regex_bounds import backtracking_risk

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "tests" / "data" / "matching" / "hostile_regexes.json").read_text())


@pytest.mark.parametrize("scenario", DATA["scenarios"], ids=[s["id"] for s in DATA["scenarios"]])
def test_a_pattern_that_can_hang_is_an_errored_case_naming_it(
    tmp_path: Path, scenario: dict[str, Any]
) -> None:
    case = tmp_path / "s" / "c"
    case.mkdir(parents=True)
    (case / "testcase.json").write_text(json.dumps(scenario["testcase"]))
    subject = DATA["subject"]
    (case / "trace.json").write_text(json.dumps({
        "task_id": "t", "final_output": subject,
        "steps": [{"step_id": 0, "type": "tool_call", "tool_name": "lookup",
                   "tool_args": {"q": subject}, "tool_result": subject}],
    }))
    done = subprocess.run([sys.executable, "-m", "openeval", "run", "--suite", "s"],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert scenario["error"] in done.stdout


@pytest.mark.parametrize("pattern", [
    "refund", r"order \d+", r"(\d+,)*\d+", "(foo|bar)+", "(a|b)*c", r"[\w.]+@[\w.]+",
    r"permission denied|forbidden", r"^(?:\s*\w+)$",
])
def test_ordinary_patterns_are_kept(pattern: str) -> None:
    assert backtracking_risk(pattern) is None

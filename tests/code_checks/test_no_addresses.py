"""A code check's error never writes a memory address into the results (issue 24, smaller).

Each row is a code check that returns or raises an object whose default repr holds
``at 0x7f...``; two runs in subprocesses must write the same bytes.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

GOOD = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good"

BODIES = {
    "returns-a-generator": "return (x for x in [1, 2])",
    "returns-a-generator-as-explanation": "return (True, (x for x in [1]))",
    "raises-with-an-object": "raise ValueError(Thing())",
    "exits-with-an-object": "raise SystemExit(Thing())",
}


@pytest.mark.parametrize("body", list(BODIES.values()), ids=list(BODIES))
def test_two_runs_write_the_same_bytes(body: str, tmp_path: Path) -> None:
    case = tmp_path / "suite" / "c"
    shutil.copytree(GOOD, case)
    (case / "mycheck.py").write_text(f"class Thing:\n    pass\n\n\ndef check(trace):\n"
                                     f"    {body}\n")
    (case / "testcase.json").write_text(json.dumps(
        {"task_id": "good", "metrics": [], "checks": [{"code": "mycheck.py:check"}]}))
    outputs = []
    for run in ("first", "second"):
        done = subprocess.run(
            [sys.executable, "-m", "openeval", "run", "--suite", str(tmp_path / "suite"),
             "--output", str(tmp_path / run), "--allow-code"],
            capture_output=True, text=True, timeout=120)
        assert done.returncode == 1 and "Traceback" not in done.stdout + done.stderr
        assert " at 0x" not in done.stdout
        outputs.append({p.name: p.read_bytes() for p in (tmp_path / run).iterdir()})
    assert outputs[0] == outputs[1]

"""No file is ever written through a link in the output folder, and an output folder that is a
link (or lies below one in the working folder) is refused: scenarios of
tests/data/results/output_links.json, each run as a subprocess in a folder holding a suite, a
``victim`` file and the links a pull request could commit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = json.loads((ROOT / "tests" / "data" / "results" / "output_links.json").read_text())
VICTIM = b"precious: must never change\n"


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_nothing_is_written_through_a_link(tmp_path: Path, scenario: dict[str, Any]) -> None:
    case = tmp_path / "s" / "c"
    case.mkdir(parents=True)
    (case / "testcase.json").write_text(json.dumps(
        {"task_id": "c", "expected_tool_calls": [{"tool": "lookup_order"}]}))
    (case / "trace.json").write_text(json.dumps({"task_id": "c", "steps": [],
                                                 "final_output": "x"}))
    (tmp_path / "victim").write_bytes(VICTIM)
    (tmp_path / "elsewhere").mkdir()
    for name, target in scenario.get("links", {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).symlink_to(target)
    for name, target in scenario.get("folder_links", {}).items():
        (tmp_path / name).symlink_to(target, target_is_directory=True)
    done = subprocess.run([sys.executable, "-m", "openeval", *scenario["command"]],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == scenario["exit"], done.stdout + done.stderr
    assert (tmp_path / "victim").read_bytes() == VICTIM
    assert list((tmp_path / "elsewhere").iterdir()) == []
    assert "Traceback" not in done.stderr
    if "stderr" in scenario:
        assert scenario["stderr"] in done.stderr and done.stderr.count("\n") == 1
    for name in scenario.get("links", {}):
        path = tmp_path / name
        assert not path.is_symlink() or name.endswith(".tmp"), f"{name} still a link"

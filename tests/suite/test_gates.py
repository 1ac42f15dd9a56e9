"""A configuration file may only tighten the gate the command line gives, and every gate line
says where it came from: scenarios of tests/data/suite/config_gates.json, each a suite of one
passing and one failing case scored by ``openeval run`` in a subprocess, its gate reason read
back from ``summary.json``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = json.loads((ROOT / "tests" / "data" / "suite" / "config_gates.json").read_text())
EXPECTED = {"task_id": "t", "metrics": ["tool_selection_accuracy"],
            "expected_tool_calls": [{"tool": "lookup_order"}]}
CALLED = {"task_id": "t", "steps": [{"step_id": 0, "type": "tool_call",
                                     "tool_name": "lookup_order", "tool_args": {}}],
          "final_output": "done"}


def _suite(root: Path, toml: str) -> None:
    for name, trace in (("passes", CALLED), ("fails", {**CALLED, "steps": []})):
        (root / name).mkdir(parents=True)
        (root / name / "testcase.json").write_text(json.dumps(EXPECTED), encoding="utf-8")
        (root / name / "trace.json").write_text(json.dumps(trace), encoding="utf-8")
    (root / "openeval.toml").write_text(toml, encoding="utf-8")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_a_configuration_only_tightens_the_gate(tmp_path: Path, scenario: dict[str, Any]
                                                 ) -> None:
    _suite(tmp_path / "s", scenario["toml"])
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", ".", "--output", "../out", "-q",
         *scenario["args"]],
        cwd=tmp_path / "s", env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
        text=True, timeout=120, check=False,
    )
    assert done.returncode == scenario["exit"], done.stdout + done.stderr
    reason = json.loads((tmp_path / "out" / "summary.json").read_text())["gate_reason"]
    for text in scenario["reason"]:
        assert text in reason
        assert text in done.stdout  # the console says it too

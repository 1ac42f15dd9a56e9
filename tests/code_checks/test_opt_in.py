"""A suite's files run no code without the run's opt-in, and code that runs reaches the run only
as its check's errored result: each scenario of tests/data/code_checks/opt_in.json is a suite
written into a fresh folder and scored by ``openeval run`` in a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = json.loads((ROOT / "tests" / "data" / "code_checks" / "opt_in.json").read_text())


def _write(tmp: Path, scenario: dict[str, Any]) -> None:
    for name, content in scenario["files"].items():
        path = tmp / name
        path.parent.mkdir(parents=True, exist_ok=True)
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text.replace("{tmp}", str(tmp)), encoding="utf-8")
    for name, target in scenario.get("links", {}).items():
        (tmp / name).symlink_to(target)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s["id"] for s in SCENARIOS])
def test_a_suites_code_runs_only_with_the_opt_in_and_only_in_its_worker(
    tmp_path: Path, scenario: dict[str, Any]
) -> None:
    _write(tmp_path, scenario)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", "s", "--output", "out",
         *scenario["args"]],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == scenario["exit"], output
    assert "Traceback" not in output
    for text in scenario["output_has"]:
        assert text.replace("{tmp}", str(tmp_path)) in output, output
    for text in scenario.get("output_lacks", []):
        assert text not in output, output
    for name in scenario.get("absent", []):
        assert not (tmp_path / name).exists(), f"{name}: the suite's code ran"
    if scenario.get("summary"):
        summary = json.loads((tmp_path / "out" / "summary.json").read_text())
        assert summary["gate_passed"] is False

"""``openeval.production.score_to_folder`` writes exactly the files ``openeval score`` writes,
and returns the verdict the command exits with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from openeval.production import score_to_folder
from openeval.results.gates import GateRule

ROOT = Path(__file__).resolve().parents[2]
QUICKSTART = ROOT / "examples" / "quickstart"
CHECKS = ('[[checks]]\ncheck = "pii_leak"\n\n[[checks]]\ncheck = "refusal"\n'
          'name = "no_refusal"\n')

# (id, command-line arguments after the inputs, score_to_folder keywords)
RUNS = [
    ("default-checks", [], {}),
    ("checks-file-and-gates",
     ["--checks", "{checks}", "--fail-under-metric", "pii_leak=0.9",
      "--fail-under-check", "no_refusal=0.5"],
     {"checks": "{checks}", "gates": [GateRule("pii_leak", 0.9, "--fail-under-metric pii_leak=0.9"),
                                      ("no_refusal", 0.5, "--fail-under-check no_refusal=0.5")]}),
    ("a-gate-missed", ["--checks", "{checks}", "--fail-under-metric", "pii_leak=1"],
     {"checks": "{checks}", "gates": [("pii_leak", 1.0, "--fail-under-metric pii_leak=1")]}),
    ("sample-and-zstd", ["--sample", "5", "--results-name", "results.jsonl.zst"],
     {"sample": 5, "results_name": "results.jsonl.zst"}),
]


def _export(folder: Path) -> Path:
    """A production export: a JSON Lines file with a leak and a bad line, beside real traces
    in several formats."""
    lines = [orjson.dumps({"task_id": f"t{n}", "steps": [],
                           "final_output": "mail jane.doe@corp-mail.net" if n == 3 else "ok"})
             for n in range(12)]
    folder.mkdir()
    (folder / "calls.jsonl").write_bytes(b"\n".join(lines) + b"\nnot json\n")
    for case in sorted(QUICKSTART.iterdir()):
        for trace in sorted(case.glob("trace.*")):
            (folder / f"{case.name}-{trace.name}").write_bytes(trace.read_bytes())
    return folder


def _cli(args: list[str], cwd: Path) -> int:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "openeval", "score", *args], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode


@pytest.mark.parametrize(("args", "keywords"), [r[1:] for r in RUNS], ids=[r[0] for r in RUNS])
def test_the_same_files_and_verdict_as_the_command(
    args: list[str], keywords: dict[str, object], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    export = _export(tmp_path / "export")
    (tmp_path / "checks.toml").write_text(CHECKS)
    filled = [a.replace("{checks}", "checks.toml") for a in args]
    code = _cli(["export", "--output", "by-cli", *filled], tmp_path)
    monkeypatch.chdir(tmp_path)  # the same relative names in the rows
    given = {k: "checks.toml" if v == "{checks}" else v for k, v in keywords.items()}
    outcome = score_to_folder([export.name], output="by-python", **given)  # type: ignore[arg-type]
    names = sorted(p.name for p in (tmp_path / "by-cli").iterdir() if not p.name.startswith("."))
    assert names == sorted(p.name for p in (tmp_path / "by-python").iterdir()
                           if not p.name.startswith("."))
    assert "summary.json" in names and len(names) == 2
    for name in names:
        assert (tmp_path / "by-python" / name).read_bytes() == (
            tmp_path / "by-cli" / name).read_bytes(), name
    assert outcome.passed == (code == 0)
    assert outcome.summary.unreadable == 1
    assert [rule.given for rule, _ in outcome.verdict.gates] == [
        g[2] for g in keywords.get("gates", [])]  # type: ignore[attr-defined]


def test_without_an_output_folder_nothing_is_written(tmp_path: Path) -> None:
    export = _export(tmp_path / "export")
    outcome = score_to_folder([export], checks=[{"check": "pii_leak"}],
                              gates=[("pii_leak", 0.9, "pii_leak=0.9")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["export"]
    ((rule, gate),) = outcome.verdict.gates
    assert rule.given == "pii_leak=0.9"
    assert gate.name == "pii_leak" and gate.figure is not None and gate.figure < 1.0
    assert gate.passed and not outcome.passed  # held, but a line could not be read

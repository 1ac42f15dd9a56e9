"""``openeval score`` on hostile or awkward input, each scenario as a real subprocess: a check
name cannot forge a CI workflow command, and no trace below an input folder is dropped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Root reads any folder; without the two capabilities that let it, mode bits apply again.
AS_A_USER = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search") if (
    os.geteuid() == 0) else ()
FORGED = "x\n::error title=forged::owned\r::stop-commands::y"


def score(*args: str, cwd: Path, prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT),
                                                                     os.environ.get("PYTHONPATH")]))}
    return subprocess.run([*prefix, sys.executable, "-m", "openeval", "score", *args],
                          capture_output=True, text=True, cwd=cwd, env=env, timeout=120)


def _trace(path: Path, task_id: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"task_id": task_id, "steps": [], "final_output": "ok"}) + "\n")


@pytest.fixture
def work() -> Iterator[Path]:
    # Not pytest's tmp_path: the unprivileged-user row needs every parent folder readable.
    base = Path(tempfile.mkdtemp(prefix="openeval-score-hostile-"))
    base.chmod(0o755)
    yield base
    for folder in base.rglob("*"):
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o755)
    shutil.rmtree(base)


def _no_workflow_command(done: subprocess.CompletedProcess[str]) -> None:
    for line in (done.stdout + done.stderr).splitlines():
        assert not line.startswith("::"), line


@pytest.mark.parametrize("where", ["table", "gate", "unknown-gate"])
def test_a_check_name_cannot_forge_a_workflow_command(work: Path, where: str) -> None:
    _trace(work / "a.jsonl", "t1")
    name = json.dumps(FORGED)
    (work / "c.toml").write_text(f'[[checks]]\ncheck = "refusal"\nname = {name}\n')
    gate = {"table": (), "gate": ("--fail-under-metric", f"{FORGED}=0.5"),
            "unknown-gate": ("--fail-under-check", f"{FORGED}z=0.5")}[where]
    done = score("a.jsonl", "--checks", "c.toml", *gate, cwd=work)
    _no_workflow_command(done)
    if where == "unknown-gate":  # one error line, its line breaks flattened
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("openeval: error: ")
    else:
        assert done.returncode == 0, done.stderr
        assert "x\\x0a::error title=forged::owned\\x0d::stop-commands::y" in done.stdout


def test_a_folder_that_cannot_be_listed_is_counted_unreadable(work: Path) -> None:
    _trace(work / "in" / "a" / "t.jsonl", "a")
    _trace(work / "in" / "b" / "t.jsonl", "b")
    (work / "in" / "b").chmod(0o311)  # may enter, may not list
    done = score("in", "--output", "out", cwd=work, prefix=AS_A_USER)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "unreadable: in/b: cannot list this folder: Permission denied" in done.stdout
    assert done.stdout.rstrip().endswith("FAIL")
    rows = [json.loads(line) for line in (work / "out" / "results.jsonl").read_text().splitlines()]
    assert [(r["file"], r["status"]) for r in rows] == [("in/a/t.jsonl", "passed"),
                                                       ("in/b", "unreadable")]
    summary = json.loads((work / "out" / "summary.json").read_text())
    assert summary["unreadable"]["count"] == 1


def test_a_linked_folder_is_read_once_and_a_loop_ends(work: Path) -> None:
    _trace(work / "in" / "a" / "t.jsonl", "a")
    _trace(work / "elsewhere" / "t.jsonl", "elsewhere")
    (work / "in" / "c").symlink_to(work / "elsewhere", target_is_directory=True)
    (work / "in" / "a" / "up").symlink_to(work / "in", target_is_directory=True)  # a loop
    done = score("in", "--output", "out", cwd=work)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [json.loads(line) for line in (work / "out" / "results.jsonl").read_text().splitlines()]
    assert [r["trace_id"] for r in rows] == ["a", "elsewhere"]

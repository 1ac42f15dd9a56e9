"""``openeval init``: the suite it writes passes ``run`` as written, in every example format,
its workflow uses only inputs the Action has, and it never overwrites a file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from openeval.adapters.registry import read_trace
from openeval.scaffold import INIT_FORMATS, init_files
from tests.builders import invoke

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("fmt", INIT_FORMATS)
def test_the_new_suite_passes_run_and_lint(tmp_path: Path, fmt: str) -> None:
    result = invoke(["init", str(tmp_path), "--format", fmt], 0)
    assert f"next: openeval run --suite {tmp_path / 'evals'}" in result.output
    case = tmp_path / "evals" / "example-case"
    trace_file = next(p for p in case.iterdir() if p.name not in ("testcase.json", "README.md"))
    assert read_trace(trace_file)[1] == fmt
    invoke(["run", "--suite", str(tmp_path / "evals"), "--quiet"], 0)
    invoke(["lint", str(tmp_path / "evals")], 0)


def test_the_workflow_uses_only_inputs_the_action_has() -> None:
    workflow = yaml.safe_load(init_files()[".github/workflows/openeval.yml"])
    action = yaml.safe_load((ROOT / "action.yml").read_text())
    step = next(s for s in workflow["jobs"]["openeval"]["steps"] if s.get("id") == "openeval")
    assert set(step["with"]) <= set(action["inputs"])
    assert step["with"]["suite"] == "evals"


@pytest.mark.parametrize("taken", ["evals/openeval.toml", ".github/workflows/openeval.yml",
                                   "evals/example-case/testcase.json"])
def test_nothing_is_written_when_any_file_exists(tmp_path: Path, taken: str) -> None:
    (tmp_path / taken).parent.mkdir(parents=True)
    (tmp_path / taken).write_text("mine")
    result = invoke(["init", str(tmp_path)], 2)
    assert f"{tmp_path / taken}: already exists" in result.output
    assert (tmp_path / taken).read_text() == "mine"
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert written == {taken}


def test_a_dangling_link_counts_as_taken(tmp_path: Path) -> None:
    (tmp_path / "evals").mkdir()
    (tmp_path / "evals" / "openeval.toml").symlink_to(tmp_path / "elsewhere")
    invoke(["init", str(tmp_path)], 2)
    assert not (tmp_path / "elsewhere").exists()

"""Which openeval.toml files a run applies: the ones above the suite folder too, inside a
repository (up to its root folder or a ``root = true`` file), never outside one; and nested
run settings that a run does not apply are named, not dropped without a word."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from openeval.runner import run_suite
from tests.builders import invoke

ROOT = Path(__file__).resolve().parents[2]
CASE = ROOT / "examples" / "quickstart" / "01-refund-order"

FAILING_CHECK = ('[[checks]]\ncheck = "regex_match"\nname = "says_refund"\n'
                 'must_match = "NEVER-SAID"\n')


def _repo(tmp_path: Path, *, marker: bool = True) -> Path:
    """``repo/evals/openeval.toml`` (a check every case fails, a gate) over
    ``repo/evals/billing/refund`` (a case that passes on its own)."""
    repo = tmp_path / "repo"
    if marker:
        (repo / ".git").mkdir(parents=True)
    shutil.copytree(CASE, repo / "evals" / "billing" / "refund")
    (repo / "evals" / "openeval.toml").write_text(FAILING_CHECK + "\n[gates]\nsays_refund = 1.0\n")
    return repo


def _names(suite_dir: Path) -> list[str]:
    (case,) = run_suite(suite_dir).cases
    return [c.name for c in case.checks]


def test_a_sub_suite_takes_the_files_above_it_in_a_repository(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    suite = run_suite(repo / "evals" / "billing")
    (case,) = suite.cases
    assert "says_refund" in [c.name for c in case.checks] and case.status == "failed"
    assert suite.gates == (("says_refund", 1.0),)
    assert suite.metadata["config"] == ["../openeval.toml"]


def test_outside_a_repository_nothing_above_applies(tmp_path: Path) -> None:
    repo = _repo(tmp_path, marker=False)
    assert "says_refund" not in _names(repo / "evals" / "billing")


def test_root_true_stops_the_search(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "evals" / "billing" / "openeval.toml").write_text("root = true\n")
    assert "says_refund" not in _names(repo / "evals" / "billing")


def test_nothing_above_the_repository_root_applies(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (tmp_path / "openeval.toml").write_text('metrics = ["divergence_score"]\n')
    assert "tool_selection_accuracy" in _names(repo / "evals" / "billing")


def test_a_broken_file_above_errors_every_case(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "evals" / "openeval.toml").write_text("metrics = [\n")
    (case,) = run_suite(repo / "evals" / "billing").cases
    assert case.status == "error" and "openeval.toml" in (case.error or "")


def test_a_link_above_leading_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    outside = tmp_path / "outside.toml"
    outside.write_text(FAILING_CHECK)
    (repo / "evals" / "openeval.toml").unlink()
    (repo / "evals" / "openeval.toml").symlink_to(outside)
    (case,) = run_suite(repo / "evals" / "billing").cases
    assert case.status == "error" and "outside the repository" in (case.error or "")


def test_nested_run_settings_not_applied_are_named(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "evals" / "openeval.toml").write_text("root = true\n")
    nested = repo / "evals" / "billing" / "openeval.toml"
    nested.write_text("fail_under = 0.5\n[gates]\ntool_selection_accuracy = 1.0\n")
    result = invoke(["run", "--suite", str(repo / "evals"), "--output", str(tmp_path / "out")],
                    0)
    warning = (f"openeval: warning: {nested.as_posix()}: fail_under, "
               "gates.tool_selection_accuracy not applied")
    assert warning in result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["metadata"]["ignored_settings"][0].startswith(nested.as_posix())


@pytest.mark.parametrize("value", ["1", '"yes"'])
def test_root_must_be_a_boolean(tmp_path: Path, value: str) -> None:
    repo = _repo(tmp_path)
    (repo / "evals" / "billing" / "openeval.toml").write_text(f"root = {value}\n")
    (case,) = run_suite(repo / "evals" / "billing").cases
    assert case.status == "error" and "root" in (case.error or "")

"""examples/scale stays true: its baseline/ and head/ folders are what the suite gives (head
with the pull request's trace in place), and expected-diff.md is what openeval diff says.

After changing the suite on purpose, rebuild them from the repository root with
``openeval run --suite examples/scale --output examples/scale/baseline``, the same in a copy
holding ``pull-request/`` for ``head/`` (as below), and
``openeval diff examples/scale/baseline examples/scale/head > examples/scale/expected-diff.md``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from openeval.report.diff import diff_markdown
from openeval.results.diff import diff_results
from openeval.results.files import read_results, write_results
from openeval.runner import run_suite

ROOT = Path(__file__).resolve().parents[1]
SCALE = ROOT / "examples" / "scale"


def same_files(written: Path, kept: Path) -> None:
    names = sorted(p.name for p in written.iterdir())
    assert names == sorted(p.name for p in kept.iterdir())
    for name in names:
        assert (written / name).read_bytes() == (kept / name).read_bytes(), name


def test_the_baseline_is_this_suite_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    monkeypatch.chdir(ROOT)
    suite = run_suite("examples/scale")
    assert suite.gate_passed
    same_files(write_results(suite, tmp_path / "out"), SCALE / "baseline")


def test_the_head_is_the_suite_with_the_pull_request_trace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = tmp_path / "examples" / "scale"
    shutil.copytree(SCALE, copy, ignore=shutil.ignore_patterns("baseline", "head",
                                                               "pull-request"))
    shutil.copytree(SCALE / "pull-request", copy, dirs_exist_ok=True)
    monkeypatch.chdir(tmp_path)
    suite = run_suite("examples/scale")
    assert not suite.gate_passed  # the wrong refund misses the argument_correctness gate
    same_files(write_results(suite, tmp_path / "out"), SCALE / "head")


def test_the_expected_diff_is_what_openeval_diff_says() -> None:
    diff = diff_results(read_results(SCALE / "baseline"), read_results(SCALE / "head"))
    assert [c.case_id for c in diff.regressions] == ["billing/refund-order"]
    assert diff_markdown(diff) == (SCALE / "expected-diff.md").read_text(encoding="utf-8")

"""``openeval report`` end to end: both formats, a file output, broken and empty inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from builders import record_digests
from conftest import ROOT, Invoke

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.report import render
from openeval.results.files import read_results, write_results
from openeval.runner import run_suite

SUITES = ROOT / "tests" / "data" / "suites"


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_results(run_suite(SUITES / "mixed"), tmp_path_factory.mktemp("results"))


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_report_renders_the_results_to_stdout(openeval: Invoke, results: Path, fmt: str) -> None:
    out = openeval("report", "--input", str(results), "--format", fmt)
    assert out.code == EXIT_OK, out.stderr
    assert out.stdout == render(read_results(results), fmt)


def test_report_writes_a_file(openeval: Invoke, results: Path, tmp_path: Path) -> None:
    target = tmp_path / "deep" / "report.json"
    out = openeval("report", "--input", str(results), "--format", "json", "--output", str(target))
    assert out.code == EXIT_OK and out.stdout == ""
    assert json.loads(target.read_text())["summary"]["errored_cases"] == 6


def test_malformed_result_file_exits_1_naming_it(
    openeval: Invoke, results: Path, tmp_path: Path
) -> None:
    broken = tmp_path / "broken"
    broken.mkdir()
    for path in results.iterdir():
        (broken / path.name).write_bytes(path.read_bytes())
    victim = json.loads((broken / "summary.json").read_text())["result_files"][3]
    (broken / victim).write_text('{"case_id": "x", "metrics": [}')
    record_digests(broken)  # past the commit record too: the parse error itself is named
    out = openeval("report", "--input", str(broken))
    assert out.code == EXIT_FAIL
    assert out.stderr.startswith(f"openeval: error: {broken / victim}: line 1 column ")
    assert "Traceback" not in out.stderr and out.stdout == ""


@pytest.mark.parametrize("make", [True, False], ids=["empty-folder", "missing-folder"])
def test_no_results_exits_1(openeval: Invoke, tmp_path: Path, make: bool) -> None:
    folder = tmp_path / "results"
    if make:
        folder.mkdir()
    out = openeval("report", "--input", str(folder))
    assert out.code == EXIT_FAIL
    assert out.stderr.startswith(f"openeval: error: {folder}: ")


def test_unknown_format_is_usage_error(openeval: Invoke, results: Path) -> None:
    out = openeval("report", "--input", str(results), "--format", "pdf")
    assert out.code == EXIT_USAGE
    assert "unknown report format 'pdf'; expected one of: markdown, json" in out.stderr


def test_report_reads_results_written_by_openeval_0_2_1(openeval: Invoke) -> None:
    legacy = ROOT / "tests" / "data" / "results" / "openeval_021"
    out = openeval("report", "--input", str(legacy), "--format", "markdown")
    assert out.code == EXIT_OK, out.stderr
    assert "| refund | ❌ failed |" in out.stdout
    assert "Correctly matched 1 of 2 expected arguments." in out.stdout

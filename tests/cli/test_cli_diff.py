"""``openeval diff`` and ``openeval run --baseline``: exit codes, formats, old and foreign
baselines (examples/scale: baseline/ is main, head/ a pull request that regressed one case)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, Invoke, _in_process

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE

SCALE = ROOT / "examples" / "scale"
BASE, HEAD = SCALE / "baseline", SCALE / "head"
RESULTS = ROOT / "tests" / "data" / "results"


def test_diff_prints_the_expected_markdown_and_fails(openeval: Invoke) -> None:
    out = openeval("diff", "examples/scale/baseline", "examples/scale/head")
    assert out.code == EXIT_FAIL, out.stderr
    assert out.stdout == (SCALE / "expected-diff.md").read_text()


DIFFS = [
    # id, base, head, options, exit code, words in stdout, words in stderr
    ("allow-regressions-only-reports", BASE, HEAD, ["--allow-regressions"], EXIT_OK,
     "got worse than the baseline", ""),
    ("nothing-got-worse", BASE, BASE, [], EXIT_OK, "nothing got worse than the baseline", ""),
    ("improvements-are-not-regressions", HEAD, BASE, [], EXIT_OK, "1 improved", ""),
    ("json", BASE, HEAD, ["--format", "json"], EXIT_FAIL, '"regressions": [\n    '
     '"billing/refund-order"\n  ]', ""),
    ("github", BASE, HEAD, ["--format", "github"], EXIT_FAIL,
     "::error file=examples/scale/billing/refund-order/testcase.json,title=OpenEval%3A "
     "billing/refund-order got worse than the baseline::passed → failed", ""),
    ("a-baseline-that-is-missing", SCALE / "nope", HEAD, [], EXIT_USAGE, "",
     "scale/nope: baseline: result folder does not exist"),
    ("a-baseline-of-another-suite", RESULTS / "openeval_v1", HEAD, [], EXIT_USAGE, "",
     "the baseline shares no case with this run: 0 of 3 cases matched"),
    ("a-baseline-from-openeval-0.2.1", RESULTS / "openeval_021", RESULTS / "openeval_021", [],
     EXIT_OK, "Matched **3** of 3 cases", ""),
    ("a-head-that-is-not-results", BASE, SCALE, [], EXIT_USAGE, "", "holds no result"),
    ("a-tolerance-out-of-range", BASE, HEAD, ["--tolerance", "2"], EXIT_USAGE, "",
     "2.0 is not in the range"),
]


@pytest.mark.parametrize(("base", "head", "options", "code", "out", "err"),
                         [d[1:] for d in DIFFS], ids=[d[0] for d in DIFFS])
def test_diff_outcomes(base: Path, head: Path, options: list[str], code: int, out: str,
                       err: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = _in_process("diff", str(base.relative_to(ROOT)), str(head.relative_to(ROOT)),
                         *options)
    assert result.code == code, result.stdout + result.stderr
    assert out in result.stdout
    assert err in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_diff_writes_to_a_file(tmp_path: Path) -> None:
    target = tmp_path / "comment" / "diff.md"
    result = _in_process("diff", str(BASE), str(HEAD), "--output", str(target))
    assert result.code == EXIT_FAIL and result.stdout == ""
    assert target.read_text().startswith("## ❌ OpenEval baseline: 1 case(s) got worse")


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """examples/scale with the pull request's trace in place (the refund amount is wrong)."""
    suite = tmp_path / "scale"
    shutil.copytree(SCALE, suite, ignore=shutil.ignore_patterns("baseline", "head",
                                                                "pull-request"))
    shutil.copytree(SCALE / "pull-request", suite, dirs_exist_ok=True)
    return suite


def test_run_with_a_baseline_prints_the_comparison_after_the_summary(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(SCALE), "--baseline", str(BASE))
    assert out.code == EXIT_OK, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert lines[-3].startswith("openeval: 3 case(s): 3 passed")
    assert lines[-2] == (f"openeval: baseline {BASE.as_posix()}: matched 3 of 3 cases; 0 "
                         "regressed, 0 improved, 0 still failing, 3 unchanged, 0 appeared, 0 "
                         "disappeared")
    assert lines[-1] == "openeval: baseline gate passed: nothing got worse than the baseline"


def test_run_fails_on_a_regression_even_when_its_own_gate_passes(
    pull_request: Path, tmp_path: Path
) -> None:
    # The configuration's [gates] line is higher: only the workflow's trust lets a flag lower it.
    lenient = ["--fail-under", "0", "--fail-under-metric", "argument_correctness=0",
               "--trust-config-gates"]
    report = tmp_path / "diff.md"
    out = _in_process("run", "--suite", str(pull_request), *lenient, "--baseline", str(BASE),
                      "--baseline-report", f"markdown={report}")
    assert out.code == EXIT_FAIL, out.stdout + out.stderr
    assert "gate passed" in out.stdout
    assert ("WORSE billing/refund-order: passed → failed; newly failing: argument_correctness, "
            "goal_completion_rate") in out.stdout
    assert out.stdout.splitlines()[-1] == (
        "openeval: baseline gate FAILED: 1 case(s) got worse than the baseline")
    assert "| billing/refund-order | ✅ passed | ❌ failed |" in report.read_text()
    allowed = _in_process("run", "--suite", str(pull_request), *lenient, "--baseline",
                          str(BASE), "--allow-regressions", "-q")
    assert allowed.code == EXIT_OK
    assert allowed.stdout.splitlines()[-1] == ("openeval: baseline gate passed "
                                               "(--allow-regressions): 1 case(s) got worse than "
                                               "the baseline")


@pytest.mark.parametrize(
    ("args", "words"),
    [(["--baseline", "no/such/folder"], "baseline: result folder does not exist"),
     (["--baseline-report", "markdown=x.md"], "--baseline-report needs --baseline DIR"),
     (["--baseline", str(BASE), "--baseline-report", "html"],
      "unknown comparison format 'html'; expected one of: markdown, json, github"),
     (["--baseline", str(RESULTS / "openeval_v1")], "the baseline shares no case")],
    ids=["missing", "report-without-baseline", "unknown-format", "another-suite"],
)
def test_run_refuses_a_bad_baseline_with_one_line(args: list[str], words: str,
                                                  tmp_path: Path) -> None:
    out = _in_process("run", "--suite", str(SCALE), "--output", str(tmp_path / "out"), *args)
    assert out.code == EXIT_USAGE, out.stdout + out.stderr
    assert out.stderr.count("\n") == 1 and words in out.stderr


def test_baseline_reports_are_the_same_bytes_as_openeval_diff(tmp_path: Path) -> None:
    results = tmp_path / "out"
    files = {fmt: tmp_path / f"diff.{fmt}" for fmt in ("markdown", "json", "github")}
    _in_process("run", "--suite", str(SCALE), "--output", str(results), "--baseline", str(BASE),
                *[a for fmt, path in files.items() for a in ("--baseline-report",
                                                             f"{fmt}={path}")])
    for fmt, path in files.items():
        alone = _in_process("diff", str(BASE), str(results), "--format", fmt)
        assert path.read_text() == alone.stdout, fmt
    assert json.loads(files["json"].read_text())["head"] == results.as_posix()

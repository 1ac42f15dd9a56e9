"""``openeval diff`` and ``run --baseline`` on cases that disappeared (``--allow-removed``) and
cases that became flaky (``--history``, ``--fail-on-new-flaky``), from real result folders."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from builders import case
from conftest import ROOT, _in_process

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.results.files import write_results
from openeval.results.records import CaseResult, SuiteResult

SCALE = ROOT / "examples" / "scale"


def results(folder: Path, *cases: CaseResult) -> str:
    write_results(SuiteResult(cases=cases), folder)
    return folder.as_posix()


def renamed(case_id: str, passed: bool) -> CaseResult:
    """A case of task ``refund`` at path ``case_id``."""
    return CaseResult(case_id, "refund", f"{case_id}/testcase.json", None, None,
                      case("x", passed).checks)


@pytest.fixture
def swapped(tmp_path: Path) -> tuple[str, str]:
    """The oldest way to get green: the failing refund case deleted, a passing one added
    with the same task id."""
    base = results(tmp_path / "base", renamed("billing/refund", False), case("steady", True))
    head = results(tmp_path / "head", renamed("billing/refund-v2", True), case("steady", True))
    return base, head


@pytest.mark.parametrize(("options", "code", "verdict"), [
    ([], EXIT_FAIL, "1 case(s) of the baseline disappeared"),
    (["--allow-removed"], EXIT_OK, "1 case(s) of the baseline disappeared"),
    (["--allow-regressions"], EXIT_FAIL, "1 case(s) of the baseline disappeared"),
])
def test_a_deleted_failing_case_is_not_an_improvement(
    swapped: tuple[str, str], options: list[str], code: int, verdict: str
) -> None:
    out = _in_process("diff", *swapped, *options)
    assert out.code == code, out.stdout + out.stderr
    assert out.stdout.startswith(f"## ❌ OpenEval baseline: {verdict}\n")
    assert "| billing/refund | ❌ failed | billing/refund/testcase.json |" in out.stdout
    assert "0 improved" in out.stdout and "1 appeared" in out.stdout


def flaky_runs(tmp_path: Path) -> list[str]:
    """Three runs of one case, oldest first: passed, failed, passed."""
    return [results(tmp_path / name, case("x", verdict), case("steady", True))
            for name, verdict in (("older", True), ("base", False), ("head", True))]


@pytest.mark.parametrize(("options", "code", "flaky"), [
    ([], EXIT_OK, False),
    (["--fail-on-new-flaky"], EXIT_OK, False),  # without history: one change is a fix
    (["--history", "{older}"], EXIT_OK, True),
    (["--history", "{older}", "--fail-on-new-flaky"], EXIT_FAIL, True),
])
def test_a_verdict_that_flips_back_is_flaky(
    tmp_path: Path, options: list[str], code: int, flaky: bool
) -> None:
    older, base, head = flaky_runs(tmp_path)
    given = [o.format(older=older) for o in options]
    out = _in_process("diff", base, head, "--format", "json", *given)
    assert out.code == code, out.stdout + out.stderr
    assert ('"new_flaky": [\n    "x"\n  ]' in out.stdout) is flaky
    if flaky:
        assert '"flaky": "verdict flipped 2 times over 3 runs"' in out.stdout


@pytest.mark.parametrize(("options", "code"),
                         [([], EXIT_OK), (["--fail-on-new-flaky"], EXIT_FAIL)])
def test_run_with_a_baseline_and_history_tells_a_newly_flaky_case(options: list[str], code: int
                                                                  ) -> None:
    # The refund case passed (baseline/), then failed (head/), and passes in this run again.
    out = _in_process("run", "--suite", str(SCALE), "--baseline", str(SCALE / "head"),
                      "--history", str(SCALE / "baseline"), *options)
    assert out.code == code, out.stdout + out.stderr
    assert ("FLAKY billing/refund-order: verdict flipped 2 times over 3 runs (new)"
            in out.stdout)
    verdict = "FAILED" if options else "passed"
    report = _in_process("diff", str(SCALE / "head"), str(SCALE / "baseline"), "--history",
                         str(SCALE / "baseline"))
    assert report.stdout.startswith("## ⚠️ OpenEval baseline: 1 case(s) newly flaky\n")
    assert out.stdout.splitlines()[-1] == (
        f"openeval: baseline gate {verdict}: 1 case(s) newly flaky")


@pytest.mark.parametrize(("options", "code", "verdict"), [
    ([], EXIT_FAIL, "FAILED"), (["--allow-removed"], EXIT_OK, "passed (--allow-removed)")])
def test_run_with_a_baseline_fails_when_a_case_was_deleted(
    tmp_path: Path, options: list[str], code: int, verdict: str
) -> None:
    suite = tmp_path / "scale"
    shutil.copytree(SCALE, suite, ignore=shutil.ignore_patterns("baseline", "head",
                                                                "pull-request"))
    shutil.rmtree(suite / "billing" / "invoice-lookup")
    out = _in_process("run", "--suite", str(suite), "--baseline", str(SCALE / "baseline"),
                      *options)
    assert out.code == code, out.stdout + out.stderr
    assert "GONE  billing/invoice-lookup: in the baseline (passed), not in this run" in out.stdout
    assert out.stdout.splitlines()[-1] == (
        f"openeval: baseline gate {verdict}: 1 case(s) of the baseline disappeared")


def test_history_needs_a_baseline_and_a_readable_folder(tmp_path: Path) -> None:
    out = _in_process("run", "--suite", str(SCALE), "--history", str(SCALE / "baseline"))
    assert out.code == EXIT_USAGE and "--history needs --baseline DIR" in out.stderr
    out = _in_process("diff", str(SCALE / "baseline"), str(SCALE / "head"), "--history",
                      str(tmp_path / "nope"))
    assert out.code == EXIT_USAGE
    assert "--history " in out.stderr and "result folder does not exist" in out.stderr

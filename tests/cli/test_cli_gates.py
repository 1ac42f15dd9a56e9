"""``openeval run`` gates: per-metric gates, the case floor and the trials rule, every verdict
path with its exit code (examples/scale holds fail_under 0.9 and two gates in openeval.toml)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from conftest import ROOT, Invoke, _in_process

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE

SCALE = "examples/scale"
GATE_FAIL = "tests/data/report/suites/gate_fail"  # 2 cases: refund passes, booking fails
SIMPLE = ROOT / "examples" / "simple_agent"

RUNS = [
    # id, arguments, exit code, words in stdout, words in stderr
    ("config-gates-pass", ["--suite", SCALE], EXIT_OK,
     "gate argument_correctness: pass rate 100.0%, needs 100.0% (examples/scale/openeval.toml:19 "
     "gates.argument_correctness): passed", ""),
    ("a-metric-gate-missed", ["--suite", SCALE, "--fail-under-metric", "output_contains=0.9"],
     EXIT_FAIL, "gate output_contains: pass rate 80.0%, needs 90.0% (--fail-under-metric "
     "output_contains=0.9): FAILED", ""),
    ("a-metric-gate-reached", ["--suite", SCALE, "--fail-under-metric", "output_contains=0.8"],
     EXIT_OK, "gate output_contains: 80.0% reaches 80.0% (--fail-under-metric "
     "output_contains=0.8)", ""),
    # A configuration may only tighten the gate: its higher line stands over the option's.
    ("a-lower-option-does-not-lower-the-config-gate",
     ["--suite", SCALE, "--fail-under-metric", "argument_correctness=0.5"], EXIT_OK,
     "gate argument_correctness: pass rate 100.0%, needs 100.0% (examples/scale/openeval.toml:19 "
     "gates.argument_correctness): passed", ""),
    ("the-option-wins-when-the-workflow-trusts-the-config",
     ["--suite", SCALE, "--fail-under-metric", "argument_correctness=0.5",
      "--trust-config-gates"], EXIT_OK,
     "gate argument_correctness: pass rate 100.0%, needs 50.0% (--fail-under-metric "
     "argument_correctness=0.5): passed", ""),
    ("a-gate-on-a-name-not-in-the-run", ["--suite", SCALE, "--fail-under-metric", "speed=0.5"],
     EXIT_USAGE, "", "--fail-under-metric speed=0.5: no metric or check named 'speed' in this "
     "run; expected one of: tool_selection_accuracy, argument_correctness, step_efficiency, "
     "goal_completion_rate, output_contains, step_budget"),
    ("a-gate-without-a-line", ["--suite", SCALE, "--fail-under-metric", "output_contains"],
     EXIT_USAGE, "", "--fail-under-metric output_contains: expected NAME=X"),
    ("a-gate-line-out-of-range", ["--suite", SCALE, "--fail-under-metric", "step_budget=1.5"],
     EXIT_USAGE, "", "a pass rate X from 0 to 1"),
    ("a-gate-given-twice", ["--suite", SCALE, "--fail-under-metric", "step_budget=0.5",
                            "--fail-under-metric", "step_budget=0.6"], EXIT_USAGE, "",
     "a gate on 'step_budget' is given twice"),
    ("case-floor-reached", ["--suite", GATE_FAIL, "--fail-under-cases", "0.5"], EXIT_OK,
     "case pass rate 50.0% reaches --fail-under-cases 0.5", ""),
    ("case-floor-missed", ["--suite", GATE_FAIL, "--fail-under-cases", "0.6"], EXIT_FAIL,
     "case pass rate 50.0% is under --fail-under-cases 0.6", ""),
    ("trials-rule-all-fails-the-flaky-case",
     ["--suite", SCALE, "--trials-rule", "all", "--fail-under-cases", "1"], EXIT_FAIL,
     "FAIL  support/weather-two-cities (2 of 3 trials passed, rule all, flaky)", ""),
    ("trials-rule-pass-at-k", ["--suite", SCALE, "--trials-rule", "pass_at_k=2"], EXIT_OK,
     "(2 of 3 trials passed, rule pass_at_k=2, flaky)", ""),
    ("an-unknown-trials-rule", ["--suite", SCALE, "--trials-rule", "most"], EXIT_USAGE, "",
     "--trials-rule: unknown trials rule 'most'"),
    ("a-trials-rule-needs-a-suite",
     ["--trace", str(SIMPLE / "trace.json"), "--testcase", str(SIMPLE / "testcase.json"),
      "--trials-rule", "all"], EXIT_USAGE, "", "--trials-rule applies to cases with trials"),
    ("single-case-gate",
     ["--trace", str(SIMPLE / "trace.json"), "--testcase", str(SIMPLE / "testcase.json"),
      "--fail-under-metric", "step_budget=1"], EXIT_OK,
     "gate step_budget: pass rate 100.0%, needs 100.0% (--fail-under-metric step_budget=1): "
     "passed", ""),
    ("single-case-gate-on-an-unknown-name",
     ["--trace", str(SIMPLE / "trace.json"), "--testcase", str(SIMPLE / "testcase.json"),
      "--fail-under-metric", "speed=1"], EXIT_USAGE, "", "no metric or check named 'speed'"),
]


@pytest.mark.parametrize(("args", "code", "out", "err"), [r[1:] for r in RUNS],
                         ids=[r[0] for r in RUNS])
def test_gate_verdicts_and_exit_codes(args: list[str], code: int, out: str, err: str,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = _in_process("run", *args)
    assert result.code == code, result.stdout + result.stderr
    assert out in result.stdout
    assert err in result.stderr
    if code == EXIT_USAGE:
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_the_quiet_summary_line_says_which_gate_failed(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(ROOT / SCALE), "-q",
                   "--fail-under-metric", "output_contains=0.9")
    assert out.code == EXIT_FAIL
    assert out.stdout.count("\n") == 1
    line = out.stdout.rstrip()
    assert ("gate FAILED: gate output_contains: 80.0% is under 90.0% (--fail-under-metric "
            "output_contains=0.9); ") in line
    # The configuration's fail_under would loosen the default gate: the line says it was not.
    assert line.endswith("examples/scale/openeval.toml:15: fail_under 0.9 not applied: it would "
                         "replace the default gate (every case passes) with 0.9, and a "
                         "configuration may only tighten the gate (--trust-config-gates lets "
                         "it)")


def test_a_config_gate_on_an_unknown_name_names_the_file_and_line(
    openeval: Invoke, tmp_path: Path
) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(ROOT / GATE_FAIL, suite)
    (suite / "openeval.toml").write_text("fail_under = 0.0\n[gates]\nspeed = 0.5\n")
    out = openeval("run", "--suite", str(suite))
    assert out.code == EXIT_USAGE
    assert out.stderr.startswith(f"openeval: error: {suite}/openeval.toml:3: gates.speed: no "
                                 "metric or check named 'speed' in this run; expected one of:")


def test_an_errored_case_fails_the_gate_however_lenient(openeval: Invoke, tmp_path: Path
                                                        ) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(ROOT / GATE_FAIL, suite)
    (suite / "booking" / "trace.json").write_text("{")
    out = openeval("run", "--suite", str(suite), "--fail-under", "0", "--fail-under-cases", "0",
                   "--fail-under-metric", "tool_selection_accuracy=0")
    assert out.code == EXIT_FAIL
    assert out.stdout.rstrip().endswith("gate FAILED: 1 case(s) errored")

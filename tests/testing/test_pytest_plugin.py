"""The pytest plugin, run as users run it: pytest in a fresh process on a copy of a suite with
passing, failing, errored and n.a. cases, beside an ordinary test file.

Each run disables plugin autoloading and loads ours with ``-p``, so it tests this checkout
whatever is installed (the ``pytest11`` entry point loads the same module once installed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from openeval.testing import assert_case

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "data" / "testing" / "suite"

OUTCOMES = {
    "chat-na": "skipped",
    "no-trace": "error",
    "refund-crash": "error",
    "refund-ok": "passed",
    "refund-too-big": "failed",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A project folder: the suite, one ordinary test file, and an ini file of its own."""
    shutil.copytree(SUITE, tmp_path / "evals")
    (tmp_path / "test_unit.py").write_text("def test_unit():\n    assert 1 + 1 == 2\n")
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    return tmp_path


def _pytest(project: Path, *args: str, allow_code: bool = True
            ) -> subprocess.CompletedProcess[str]:
    """Run pytest in ``project``; the suite's code checks run (``--openeval-allow-code``)
    unless ``allow_code`` is False."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "openeval.testing.pytest_plugin",
         "-p", "no:cacheprovider", "-rA", *(["--openeval-allow-code"] if allow_code else []),
         *args],
        cwd=project, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def _outcomes(stdout: str) -> dict[str, str]:
    """Test id -> outcome, from the ``-rA`` short summary (``PASSED path::id``)."""
    words = {"PASSED": "passed", "FAILED": "failed", "ERROR": "error", "SKIPPED": "skipped"}
    found: dict[str, str] = {}
    for line in stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word in words:
            if word == "SKIPPED":  # SKIPPED [1] evals/chat-na/testcase.json:1: reason
                rest = rest.split(" ", 1)[1].split(":", 1)[0].split("/")[-2]
            found[rest.split(" - ")[0].rsplit("::", 1)[-1]] = words[word]
    return found


def test_each_case_is_one_test_named_by_its_case_id(project: Path) -> None:
    done = _pytest(project, "--openeval", "evals", "--junitxml", "junit.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    assert _outcomes(done.stdout) == {**OUTCOMES, "test_unit": "passed"}
    assert "1 failed, 2 passed, 1 skipped, 2 errors" in done.stdout.splitlines()[-1]
    assert "Traceback" not in done.stdout and done.stderr == ""
    assert "PASSED evals/refund-ok/testcase.json::refund-ok" in done.stdout
    assert "openeval: 5 case(s) in the enabled suites" in done.stdout


def test_a_failure_lists_each_failed_check_as_assert_case_does(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    done = _pytest(project, "--openeval", "evals", "-k", "refund-too-big or refund-crash")
    monkeypatch.chdir(ROOT)  # assert_case shows paths relative to the working folder
    assert done.returncode == 1
    for case in ("refund-too-big", "refund-crash"):
        with pytest.raises(AssertionError) as caught:
            assert_case(SUITE / case / "trace.json", SUITE / case / "testcase.json")
        for line in str(caught.value).splitlines():
            # The same line, with the path as the subprocess saw it (relative to its folder).
            assert line.replace(SUITE.relative_to(ROOT).as_posix(), "evals") in done.stdout
    assert "refund_within_limit: fail, score false: refunded 250, above the limit of 100" in (
        done.stdout
    )
    assert ("refund_within_limit: error: evals/checks/rules.py:5: refund_within_limit raised "
            "KeyError: 'amount'") in done.stdout


def test_k_and_m_select_cases_like_any_test(project: Path) -> None:
    done = _pytest(project, "--openeval", "evals", "-k", "refund and not crash")
    assert _outcomes(done.stdout) == {"refund-ok": "passed", "refund-too-big": "failed"}
    assert "4 deselected" in done.stdout
    only_cases = _pytest(project, "--openeval", "evals", "-m", "openeval")
    assert _outcomes(only_cases.stdout) == OUTCOMES
    no_cases = _pytest(project, "--openeval", "evals", "-m", "not openeval")
    assert _outcomes(no_cases.stdout) == {"test_unit": "passed"}
    assert no_cases.returncode == 0


def test_junit_is_pytest_own_with_each_verdict_as_a_property(project: Path) -> None:
    _pytest(project, "--openeval", "evals", "--junitxml", "junit.xml")
    cases = {c.get("name"): c for c in ET.parse(project / "junit.xml").iter("testcase")}
    assert set(cases) == {*OUTCOMES, "test_unit"}
    tags = {name: [child.tag for child in case if child.tag != "properties"]
            for name, case in cases.items()}
    assert tags == {"chat-na": ["skipped"], "no-trace": ["error"], "refund-crash": ["error"],
                    "refund-ok": [], "refund-too-big": ["failure"], "test_unit": []}
    properties = {p.get("name"): p.get("value") for p in cases["refund-too-big"].iter("property")}
    assert properties == {"openeval.tool_selection_accuracy": "pass",
                          "openeval.refund_within_limit": "fail"}
    assert cases["refund-ok"].get("classname") == "evals.refund-ok.testcase.json"


def test_without_a_suite_the_plugin_changes_nothing(project: Path) -> None:
    done = _pytest(project)
    assert _outcomes(done.stdout) == {"test_unit": "passed"}
    assert "openeval" not in done.stdout


def test_the_ini_setting_adds_suites_to_the_default_paths_only(project: Path) -> None:
    (project / "pytest.ini").write_text("[pytest]\nopeneval_suites = evals\n")
    assert _outcomes(_pytest(project).stdout) == {**OUTCOMES, "test_unit": "passed"}
    assert _outcomes(_pytest(project, "test_unit.py").stdout) == {"test_unit": "passed"}


def test_a_suite_folder_without_cases_is_a_usage_error(project: Path) -> None:
    done = _pytest(project, "--openeval", "nowhere")
    assert done.returncode == 4
    assert done.stderr.strip().startswith("ERROR: --openeval: ")
    assert "nowhere: suite folder does not exist" in done.stderr

"""``pytest --openeval DIR`` is ``openeval run --suite DIR``: the same cases from the suite's
own discovery, the same configuration, the same verdicts, and a session that cannot go green
without verdicts. Both run as users run them, in fresh processes, on a suite shaped the way a
pull request can shape one (tests/data/testing/hostile_suite.json)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = json.loads((ROOT / "tests" / "data" / "testing" / "hostile_suite.json").read_text())
PYTEST_STATUS = {"passed": "passed", "failed": "failed", "error": "error", "n.a.": "skipped"}


def _build(root: Path, layout: dict[str, Any]) -> Path:
    for name, content in layout.get("files", {}).items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content),
                        encoding="utf-8")
    for name, target in layout.get("links", {}).items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(target)
    for name in layout.get("fifos", []):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(root / name)
    for name in layout.get("folders", []):
        (root / name).mkdir(parents=True)
    return root


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def _run(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", "run", *args], cwd=project,
                          env=_env(), capture_output=True, text=True, timeout=120, check=False)


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "openeval.testing.pytest_plugin",
         "-p", "no:cacheprovider", "-rA", *args],
        cwd=project, env=_env(), capture_output=True, text=True, timeout=120, check=False,
    )


def _run_statuses(out: Path) -> dict[str, str]:
    found = {}
    for path in out.glob("*.result.json"):
        case = json.loads(path.read_text(encoding="utf-8"))
        found[case["case_id"]] = case["status"]
    return found


def _junit_statuses(path: Path) -> dict[str, str]:
    found = {}
    for case in ET.parse(path).iter("testcase"):
        tags = [child.tag for child in case if child.tag != "properties"]
        found[case.get("name", "")] = {"failure": "failed", "error": "error",
                                       "skipped": "skipped"}.get(tags[0] if tags else "",
                                                                "passed")
    return found


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    _build(tmp_path / "evals", HOSTILE)
    return tmp_path


def test_every_case_run_judges_pytest_judges_alike(project: Path) -> None:
    ran = _run(project, "--suite", "evals", "--output", "out", "-q")
    assert ran.returncode == 1, ran.stdout + ran.stderr
    by_run = _run_statuses(project / "out")
    assert by_run == HOSTILE["verdicts"]
    done = _pytest(project, "--openeval", "evals", "--junitxml", "junit.xml")
    assert done.returncode == 1, done.stdout + done.stderr
    by_pytest = _junit_statuses(project / "junit.xml")
    assert by_pytest == {case: PYTEST_STATUS[status] for case, status in by_run.items()}
    assert "Traceback" not in done.stdout and done.stderr == ""


def test_an_errored_case_says_why_as_run_does(project: Path) -> None:
    done = _pytest(project, "--openeval", "evals", "-k", "fifo or folder or links")
    assert ("case not scored: evals/fifo/testcase.json: is a named pipe (FIFO), not a regular "
            "file; expected a JSON file") in done.stdout
    assert "case not scored: evals/folder/testcase.json: is a folder" in done.stdout
    # b's test case is a's file, judged on b's own trace: not a's pass.
    assert "FAILED evals/links-to-passes/testcase.json::links-to-passes" in done.stdout


def test_a_suite_that_judged_nothing_fails_the_session(tmp_path: Path) -> None:
    _build(tmp_path / "evals", {"files": {
        "chat/testcase.json": {"task_id": "chat", "metrics": []},
        "chat/trace.json": {"task_id": "chat", "steps": [], "final_output": "hi"},
    }})
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    assert _run(tmp_path, "--suite", "evals", "-q").returncode == 1
    done = _pytest(tmp_path, "--openeval", "evals")
    assert done.returncode == 1, done.stdout
    assert "openeval: nothing was judged in suite evals" in done.stdout


def test_cases_a_conftest_skips_have_no_verdict_and_fail_the_session(project: Path) -> None:
    # A pull request's conftest.py can mark every case skipped: green with no verdict.
    (project / "conftest.py").write_text(
        "import pytest\n\n\ndef pytest_collection_modifyitems(items):\n"
        "    for item in items:\n        item.add_marker(pytest.mark.skip(reason='later'))\n"
    )
    done = _pytest(project, "--openeval", "evals")
    assert done.returncode == 1, done.stdout
    assert f"openeval: {len(HOSTILE['verdicts'])} selected case(s) got no verdict" in done.stdout


def test_a_check_that_exits_the_process_is_one_errored_case(tmp_path: Path) -> None:
    _build(tmp_path / "evals", {"files": {
        "quits/testcase.json": {"task_id": "quits", "metrics": [],
                                "checks": [{"code": "quit.py"}]},
        "quits/quit.py": "import os\n\n\ndef evaluate():\n    os._exit(0)\n",
        "quits/trace.json": {"task_id": "quits", "steps": [], "final_output": "x"},
    }})
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    done = _pytest(tmp_path, "--openeval", "evals", "--openeval-allow-code",
                   "--junitxml", "junit.xml")
    assert done.returncode == 1, done.stdout
    assert _junit_statuses(tmp_path / "junit.xml") == {"quits": "error"}
    assert "the process running it exited with code 0" in done.stdout
    refused = _pytest(tmp_path, "--openeval", "evals")
    assert refused.returncode == 1
    assert ("checks[0].code: runs the code in quit.py; code checks run only when the run is "
            "started with --allow-code (pytest: --openeval-allow-code)") in refused.stdout

"""The CI recipes under examples/ci do what they say: each runs here, on a copy of a passing and
a failing suite, with this checkout's ``openeval`` first on PATH.

The GitLab job's ``script`` lines run one after the other in bash with ``-e`` (a failing line
ends the job, as on a GitLab runner); its ``before_script`` (the install) is not run, since
this checkout is the OpenEval under test. The shell recipe runs as a CI system would call it.
Both must leave the files their CI keeps: the JUnit file, the Markdown report and the results.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from junitparser import JUnitXml
from ruamel.yaml import YAML

from openeval.results.files import read_results

ROOT = Path(__file__).resolve().parents[1]
RECIPES = ROOT / "examples" / "ci"
SUITES = ROOT / "tests" / "data" / "report" / "suites"


@dataclass(frozen=True)
class Job:
    code: int
    log: str
    workspace: Path


def _workspace(tmp_path: Path, suite: str) -> tuple[Path, dict[str, str]]:
    """Return a job's folder holding ``evals`` (a copy of ``suite``) and its environment, with
    an ``openeval`` command that runs this checkout first on PATH."""
    workspace = tmp_path / "job"
    shutil.copytree(SUITES / suite, workspace / "evals")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "openeval"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m openeval "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": str(ROOT)}
    env.pop("OPENEVAL_SUITE", None)
    env.pop("OPENEVAL_OUTPUT", None)
    return workspace, env


def _gitlab_job() -> dict[str, Any]:
    document = YAML(typ="safe", pure=True).load(
        (RECIPES / "gitlab-ci.yml").read_text(encoding="utf-8"))
    return dict(document["openeval"])


def run_gitlab_script(tmp_path: Path, suite: str) -> Job:
    workspace, env = _workspace(tmp_path, suite)
    log = ""
    for line in _gitlab_job()["script"]:
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", line],
                              cwd=workspace, env=env, capture_output=True, text=True,
                              check=False)
        log += done.stdout + done.stderr
        if done.returncode != 0:
            return Job(done.returncode, log, workspace)
    return Job(0, log, workspace)


def run_shell_recipe(tmp_path: Path, suite: str) -> Job:
    workspace, env = _workspace(tmp_path, suite)
    done = subprocess.run([str(RECIPES / "openeval-ci.sh")], cwd=workspace, env=env,
                          capture_output=True, text=True, check=False)
    return Job(done.returncode, done.stdout + done.stderr, workspace)


def report_of(workspace: Path, fmt: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "openeval", "report", "--input", "openeval-results", "--format",
         fmt], cwd=workspace, capture_output=True, text=True, check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout


RUNNERS = {"gitlab": run_gitlab_script, "shell": run_shell_recipe}


@pytest.mark.slow
@pytest.mark.parametrize("recipe", sorted(RUNNERS))
@pytest.mark.parametrize(("suite", "code", "failures"), [("gate_pass", 0, 0),
                                                         ("gate_fail", 1, 1)])
def test_the_recipe_gates_and_leaves_the_junit_file_and_the_report(
    tmp_path: Path, recipe: str, suite: str, code: int, failures: int
) -> None:
    job = RUNNERS[recipe](tmp_path, suite)
    assert job.code == code, job.log
    results = read_results(job.workspace / "openeval-results")
    assert len(results.cases) == 2
    junit = JUnitXml.fromfile(str(job.workspace / "openeval-junit.xml"))
    assert sum(s.tests for s in junit) == 2
    assert sum(s.failures for s in junit) >= failures
    assert (job.workspace / "openeval-report.md").read_text(encoding="utf-8") == report_of(
        job.workspace, "markdown")


def test_gitlab_keeps_what_the_script_writes_even_when_the_gate_fails(tmp_path: Path) -> None:
    job = _gitlab_job()
    artifacts = job["artifacts"]
    assert artifacts["when"] == "always"
    done = run_gitlab_script(tmp_path, "gate_fail")
    assert done.code == 1
    for path in [*artifacts["paths"], artifacts["reports"]["junit"]]:
        assert (done.workspace / path).exists(), path
    assert "openeval-core[all] @ git+https://" in " ".join(job["before_script"])


def test_the_readme_shows_the_gitlab_job_as_the_example_file_holds_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", readme, re.DOTALL)
              if b.startswith("openeval:\n  image:")]
    assert len(blocks) == 1
    shown = YAML(typ="safe", pure=True).load(blocks[0])
    assert shown == {"openeval": _gitlab_job()}

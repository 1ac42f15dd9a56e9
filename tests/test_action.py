"""The GitHub Action (action.yml) and the dogfood workflow, checked offline.

Schemas: both files validate against the GitHub Actions / Workflows JSON Schemas shipped with
check-jsonschema. Behaviour: :class:`LocalRunner` plays the part of GitHub's runner for a
composite action. It resolves the ``${{ inputs.* }}`` expressions of each step's ``env:``
(the only place action.yml uses them), runs every ``run:`` script with
``bash --noprofile --norc -eo pipefail`` (what ``shell: bash`` means on GitHub), gives each step
its own ``$GITHUB_OUTPUT`` file and the job one ``$GITHUB_STEP_SUMMARY``, and stops at the first
failing step. The ``uses: actions/setup-python`` step is the only one skipped: a session venv
stands in for it, and the action's real install step installs OpenEval into that venv from this
checkout, offline, through pip's own environment settings (no index, no dependencies, no build
isolation; the dependencies come from the test venv through a ``.pth`` file).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from github_api_stand_in import GitHubApiStandIn
from ruamel.yaml import YAML

from openeval.ci.github_action import (
    HTML_REPORT_NAME,
    OUTPUT_NAMES,
    ActionInputs,
    complete_summary,
    file_identity,
    format_outputs,
    html_note,
    step_exit_code,
)
from openeval.ci.lint_step import lint_argv, lint_enabled, summary_block
from openeval.ci.pr_comment import marker
from openeval.jsonio import read_json_file

ROOT = Path(__file__).resolve().parents[1]
ACTION = ROOT / "action.yml"
WORKFLOW = ROOT / ".github" / "workflows" / "openeval.yml"
SUITES = ROOT / "tests" / "data" / "report" / "suites"


def load_yaml(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


def all_steps(doc: Any) -> list[dict[str, Any]]:
    """Return the steps of an action (``runs.steps``) or of every job of a workflow."""
    if "runs" in doc:
        return list(doc["runs"]["steps"])
    return [step for job in doc["jobs"].values() for step in job["steps"]]


# --- static checks ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "schema"),
    [(ACTION, "vendor.github-actions"), (WORKFLOW, "vendor.github-workflows")],
    ids=["action", "workflow"],
)
def test_file_validates_against_the_github_schema(path: Path, schema: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", schema, str(path)],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("path", [ACTION, WORKFLOW], ids=["action", "workflow"])
def test_no_expression_inside_a_run_script(path: Path) -> None:
    scripts = [step["run"] for step in all_steps(load_yaml(path)) if "run" in step]
    assert scripts, "no run: step found"
    for script in scripts:
        assert "${{" not in script, script


def test_every_input_reaches_a_step_and_every_output_is_wired() -> None:
    doc = load_yaml(ACTION)
    used: set[str] = set()
    for step in doc["runs"]["steps"]:
        for value in [*step.get("env", {}).values(), *step.get("with", {}).values()]:
            used.update(re.findall(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", str(value)))
    assert used == set(doc["inputs"])
    assert doc["inputs"]["suite"]["required"] is True
    assert tuple(doc["outputs"]) == OUTPUT_NAMES
    for name, spec in doc["outputs"].items():
        assert spec["value"] == f"${{{{ steps.evaluate.outputs.{name} }}}}"


def test_workflow_checks_out_then_uses_the_local_action() -> None:
    steps = all_steps(load_yaml(WORKFLOW))
    assert steps[0]["uses"].startswith("actions/checkout@")
    local = [step for step in steps if step.get("uses") == "./"]
    assert local and all(Path(ROOT, step["with"]["suite"]).is_dir() or
                         step["with"]["suite"].startswith("examples") for step in local)


# --- the run step's pieces ---------------------------------------------------------------


def parse_output_file(text: str) -> dict[str, str]:
    """Read a ``$GITHUB_OUTPUT`` file: ``name=value`` and ``name<<DELIM`` ... ``DELIM``."""
    found: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            found[name] = "\n".join(body)
        else:
            name, _, value = line.partition("=")
            found[name] = value
    return found


@pytest.mark.parametrize(
    "outputs",
    [
        {"pass-rate": "0.75", "cases": "4", "results": "openeval-results"},
        {"results": "odd\nname=evil\nsecond"},
        {"pass-rate": "", "results": "a=b"},
    ],
)
def test_output_file_syntax_round_trips(outputs: dict[str, str]) -> None:
    assert parse_output_file(format_outputs(outputs)) == outputs


@pytest.mark.parametrize(
    ("args", "argv_tail"),
    [
        ("", []),
        ("--junit 'my results/j.xml' --quiet", ["--junit", "my results/j.xml", "--quiet"]),
        ('--format "$(touch x)"', ["--format", "$(touch x)"]),
        ("--agent-spec pkg.mod:agent  ", ["--agent-spec", "pkg.mod:agent"]),
    ],
)
def test_args_are_split_by_shlex_without_expansion(args: str, argv_tail: list[str]) -> None:
    inputs = ActionInputs(suite="s", output="o", args=args)
    assert inputs.run_argv() == ["run", "--suite", "s", "--output", "o", *argv_tail]


@pytest.mark.parametrize(("given", "flag"), [("", []), ("false", []), ("true", ["--allow-code"]),
                                             ("True", ["--allow-code"])])
def test_code_checks_run_only_when_the_workflow_input_says_so(given: str, flag: list[str]
                                                              ) -> None:
    inputs = ActionInputs.from_env({"OPENEVAL_SUITE": "s", "OPENEVAL_ALLOW_CODE": given})
    assert inputs.run_argv() == ["run", "--suite", "s", "--output", "openeval-results", *flag]


@pytest.mark.parametrize(("given", "on"), [("", False), ("false", False), ("true", True),
                                           ("TRUE", True), (" true ", True)])
def test_the_lint_input_is_a_bool(given: str, on: bool) -> None:
    assert lint_enabled(given) is on


@pytest.mark.parametrize("given", ["yes", "1", "on"])
def test_a_lint_input_that_is_no_bool_is_refused(given: str) -> None:
    with pytest.raises(ValueError, match="the lint input must be true or false"):
        lint_enabled(given)


@pytest.mark.parametrize(("allow_code", "argv"),
                         [("", ["lint", "--", "-odd"]),
                          ("true", ["lint", "--allow-code", "--", "-odd"])])
def test_lint_reads_the_suite_as_a_folder_and_code_only_when_allowed(
    allow_code: str, argv: list[str]
) -> None:
    assert lint_argv("-odd", allow_code) == argv


def test_a_case_name_cannot_close_the_lint_summarys_fence() -> None:
    block = summary_block("evals/a````b/testcase.json\n  zero-pass-line: x\n")
    assert block.startswith("### openeval lint\n\n`````text\n")
    assert block.endswith("\n`````\n\n")


@pytest.mark.parametrize(
    ("path", "span"),
    [("out/report.html", "`out/report.html`"), ("a`b/report.html", "`` a`b/report.html ``")],
)
def test_html_note_quotes_the_path_as_code(path: str, span: str) -> None:
    assert f"The HTML report is {span} in the results folder" in html_note(path)


def test_a_summary_the_run_did_not_replace_is_not_its_verdict(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text('{"schema_version": 2, "cases": 2, "pass_rate": 1.0, "gate_passed": true, '
                    '"result_files": []}', encoding="utf-8")
    before = file_identity(path)
    assert complete_summary(path, before) is None
    replacement = tmp_path / ".summary.json.tmp"
    replacement.write_bytes(path.read_bytes())
    os.replace(replacement, path)
    assert complete_summary(path, before) is not None


@pytest.mark.parametrize(
    ("text", "run_code", "step_code"),
    [
        (None, 0, 1),
        ("", 0, 1),
        ('{"cases": 2, "pass_rate": 1.0', 0, 1),
        ('{"cases": 2, "pass_rate": 1.0}', 0, 1),
        ("[]", 0, 1),
        ('{"schema_version": 2, "cases": 2, "pass_rate": 1.0, "gate_passed": true, '
         '"result_files": []}', 0, 0),
        ('{"schema_version": 2, "cases": 2, "pass_rate": 0.5, "gate_passed": false, '
         '"result_files": []}', 1, 1),
        (None, 1, 1),
        (None, 2, 2),
    ],
    ids=["missing", "empty", "cut-short", "keys-missing", "not-an-object", "complete-pass",
         "complete-fail", "missing-fail", "missing-usage"],
)
def test_no_complete_summary_never_passes_the_step(
    tmp_path: Path, text: str | None, run_code: int, step_code: int
) -> None:
    path = tmp_path / "summary.json"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    assert step_exit_code(run_code, complete_summary(path)) == step_code


# --- the action, run as GitHub's runner would (slow: a venv and a run per test; CI runs them) ---

_INPUT_EXPR = re.compile(r"^\$\{\{\s*inputs\.([\w-]+)\s*\}\}$")
_STEP_OUTPUT_EXPR = re.compile(r"^\$\{\{\s*steps\.([\w-]+)\.outputs\.([\w-]+)\s*\}\}$")
_INPUT_EQUALS = re.compile(r"^inputs\.([\w-]+)\s*==\s*'([^']*)'$")
# What the runner gives an input whose default is an expression of its own context.
_CONTEXT_DEFAULTS = {"${{ github.token }}": "token-of-the-job"}


@dataclass
class ActionRun:
    code: int
    outputs: dict[str, str]
    summary: str
    stdout: str
    stderr: str
    step_outputs: dict[str, dict[str, str]]


class LocalRunner:
    """Runs action.yml's steps the way GitHub's runner does, in ``workspace``.

    After a failing step only the steps whose ``if:`` holds ``!cancelled()`` still run, and the
    action's exit code is the first failing step's. ``if:`` conditions may join ``!cancelled()``
    and ``inputs.NAME == 'value'`` (compared ignoring case, as GitHub does) with ``&&``.
    """

    def __init__(self, python_bin: Path, workspace: Path) -> None:
        self.action = load_yaml(ACTION)
        self.python_bin = python_bin
        self.workspace = workspace

    def _input(self, inputs: dict[str, str], name: str) -> str:
        declared = self.action["inputs"]
        default = str(declared[name].get("default", ""))
        return inputs.get(name, _CONTEXT_DEFAULTS.get(default, default))

    def _condition(self, condition: str | None, inputs: dict[str, str], failed: bool) -> bool:
        if condition is None:
            return not failed
        text = condition.strip()
        assert text.startswith("${{") and text.endswith("}}"), condition
        terms = [term.strip() for term in text[3:-2].split("&&")]
        if "!cancelled()" not in terms and failed:
            return False
        for term in terms:
            if term == "!cancelled()":
                continue
            match = _INPUT_EQUALS.match(term)
            assert match, f"condition the local runner cannot evaluate: {term!r}"
            if self._input(inputs, match.group(1)).lower() != match.group(2).lower():
                return False
        return True

    def _env(self, inputs: dict[str, str], step: dict[str, Any], out: Path, summary: Path,
             outputs_by_step: dict[str, dict[str, str]], context: dict[str, str]
             ) -> dict[str, str]:
        declared = self.action["inputs"]
        unknown = set(inputs) - set(declared)
        assert not unknown, f"not an input of action.yml: {unknown}"
        temp = self.workspace / "runner-temp"
        temp.mkdir(exist_ok=True)
        env = {
            "PATH": f"{self.python_bin}{os.pathsep}{os.environ['PATH']}",
            "HOME": os.environ.get("HOME", str(self.workspace)),
            "LANG": "C.UTF-8",
            "GITHUB_ACTION_PATH": str(ROOT),
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(out),
            "GITHUB_STEP_SUMMARY": str(summary),
            "RUNNER_TEMP": str(temp),
            # An offline install: everything the package needs is already importable.
            "PIP_NO_INDEX": "1",
            "PIP_NO_DEPS": "1",
            "PIP_NO_BUILD_ISOLATION": "0",
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            **context,
        }
        for key, raw in step.get("env", {}).items():
            match = _INPUT_EXPR.match(str(raw))
            if match:
                env[key] = self._input(inputs, match.group(1))
                continue
            match = _STEP_OUTPUT_EXPR.match(str(raw))
            assert match, f"env {key} is not a plain input or step output expression: {raw!r}"
            env[key] = outputs_by_step.get(match.group(1), {}).get(match.group(2), "")
        return env

    def run(self, inputs: dict[str, str], *, steps: str = "evaluate",
            context: dict[str, str] | None = None) -> ActionRun:
        """Run the install step (``steps="install"``) or the steps after it; ``context`` adds
        the runner's own variables (``GITHUB_EVENT_NAME``, ``GITHUB_API_URL``, ...)."""
        summary = self.workspace / "step_summary.md"
        summary.touch()
        outputs_by_step: dict[str, dict[str, str]] = {}
        stdout = stderr = ""
        code = 0
        run_steps = [s for s in self.action["runs"]["steps"] if "run" in s]
        assert [s["name"] for s in run_steps] == ["Install OpenEval", "Lint the suite",
                                                  "Evaluate", "Comment on the pull request"]
        for index, step in enumerate(self.action["runs"]["steps"]):
            if "uses" in step:
                assert step["uses"].startswith("actions/setup-python@")
                continue
            if (step["name"] == "Install OpenEval") != (steps == "install"):
                continue
            if not self._condition(step.get("if"), inputs, failed=code != 0):
                continue
            out = self.workspace / f"github_output_{index}"
            out.write_text("", encoding="utf-8")
            script = self.workspace / f"step_{index}.sh"
            script.write_text(step["run"], encoding="utf-8")
            assert step["shell"] == "bash"
            done = subprocess.run(
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                cwd=self.workspace,
                env=self._env(inputs, step, out, summary, outputs_by_step, context or {}),
                capture_output=True, text=True, check=False,
            )
            stdout += done.stdout
            stderr += done.stderr
            outputs_by_step[step.get("id", str(index))] = parse_output_file(
                out.read_text(encoding="utf-8"))
            code = code or done.returncode
        outputs: dict[str, str] = {}
        for name, spec in self.action["outputs"].items():
            match = _STEP_OUTPUT_EXPR.match(spec["value"])
            assert match
            outputs[name] = outputs_by_step.get(match.group(1), {}).get(match.group(2), "")
        return ActionRun(code, outputs, summary.read_text(encoding="utf-8"), stdout, stderr,
                         outputs_by_step)


@pytest.fixture(scope="session")
def action_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv (setup-python's stand-in) with OpenEval put in by the action's install step."""
    home = tmp_path_factory.mktemp("action-venv")
    venv.create(home / "venv", with_pip=False)
    bin_dir = home / "venv" / ("Scripts" if os.name == "nt" else "bin")
    site = subprocess.run(
        [str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    ours = sysconfig.get_path("purelib")
    # Plain path lines only: the test venv's editable OpenEval (a .pth of its own) stays out.
    Path(site, "zz_test_deps.pth").write_text(ours + "\n", encoding="utf-8")
    workspace = home / "workspace"
    workspace.mkdir()
    done = LocalRunner(bin_dir, workspace).run({"suite": "unused"}, steps="install")
    assert done.code == 0, done.stdout + done.stderr
    where = subprocess.run(
        [str(bin_dir / "python"), "-I", "-c", "import openeval; print(openeval.__file__)"],
        capture_output=True, text=True, check=True, cwd=workspace,
    ).stdout.strip()
    assert Path(where).is_relative_to(Path(site)), where
    return bin_dir


@pytest.fixture
def runner(action_python: Path, tmp_path: Path) -> LocalRunner:
    return LocalRunner(action_python, tmp_path)


def cli_report(workspace: Path, results: str, fmt: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "report", "--input", results, "--format", fmt],
        cwd=workspace, capture_output=True, text=True, check=True,
    )
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("suite", "inputs", "code", "counts", "severity"),
    [
        ("gate_pass", {}, 0, ("2", "0", "0"), None),
        ("gate_fail", {}, 1, ("2", "1", "0"), "error"),
        ("gate_fail", {"fail-under": "0.5"}, 0, ("2", "1", "0"), "warning"),
        ("gate_fail", {"fail-under": "0.95"}, 1, ("2", "1", "0"), "error"),
        ("gate_pass", {"output": "my results", "args": "--quiet"}, 0, ("2", "0", "0"), None),
    ],
    ids=["pass", "fail", "fail-under-passes", "fail-under-fails", "output-with-space"],
)
def test_action_gates_and_reports(
    runner: LocalRunner,
    suite: str,
    inputs: dict[str, str],
    code: int,
    counts: tuple[str, str, str],
    severity: str | None,
) -> None:
    shutil.copytree(SUITES / suite, runner.workspace / "evals")
    done = runner.run({"suite": "evals", **inputs})
    assert done.code == code, done.stderr
    results = inputs.get("output", "openeval-results")
    summary = read_json_file(runner.workspace / results / "summary.json")
    rate = summary["pass_rate"]
    assert done.outputs == {
        "pass-rate": repr(rate), "cases": counts[0], "failed": counts[1],
        "errored": counts[2], "results": results, "regressions": "",
    }
    # The job summary is the Markdown report and where the HTML report is; the log carries
    # the annotations. The HTML report is the one `openeval report` renders from the results.
    html = f"{results}/{HTML_REPORT_NAME}"
    assert done.summary == cli_report(runner.workspace, results, "markdown") + html_note(html)
    page = (runner.workspace / html).read_text(encoding="utf-8")
    assert page == cli_report(runner.workspace, results, "html")
    annotations = cli_report(runner.workspace, results, "github")
    assert annotations in done.stdout
    case_lines = [line for line in annotations.splitlines() if " file=" in line]
    if severity is None:
        assert case_lines == []
    else:
        (line,) = case_lines
        head = f"::{severity} file=evals/booking/testcase.json,title=OpenEval%3A booking failed::"
        assert line.startswith(head)


SCALE = ROOT / "examples" / "scale"


def _scale_suite(workspace: Path, *, pull_request: bool) -> None:
    """Put examples/scale into ``workspace/evals`` (with the pull request's regressing trace
    when asked) and main's results into ``workspace/main-results``."""
    shutil.copytree(SCALE, workspace / "evals",
                    ignore=shutil.ignore_patterns("baseline", "head", "pull-request"))
    if pull_request:
        shutil.copytree(SCALE / "pull-request", workspace / "evals", dirs_exist_ok=True)
    shutil.copytree(SCALE / "baseline", workspace / "main-results")


# The pull request also misses the suite's own argument_correctness gate; lifting it leaves the
# regression against main as the one reason left to fail.
# examples/scale's [gates] line is higher: only the workflow's trust lets the flag lower it.
LENIENT = {"fail-under": "0",
           "args": "--fail-under-metric argument_correctness=0 --trust-config-gates"}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pull_request", "inputs", "code", "regressions"),
    [(True, LENIENT, 1, "1"), (False, {}, 0, "0"),
     (True, {**LENIENT, "args": LENIENT["args"] + " --allow-regressions"}, 0, "1")],
    ids=["regression", "nothing-worse", "allow-regressions"],
)
def test_baseline_input_compares_with_main_in_the_summary_and_the_gate(
    runner: LocalRunner, pull_request: bool, inputs: dict[str, str], code: int, regressions: str
) -> None:
    _scale_suite(runner.workspace, pull_request=pull_request)
    done = runner.run({"suite": "evals", "baseline": "main-results", **inputs})
    assert done.code == code, done.stdout + done.stderr
    assert done.outputs["regressions"] == regressions
    report = cli_report(runner.workspace, "openeval-results", "markdown")
    diff = subprocess.run(
        [sys.executable, "-m", "openeval", "diff", "main-results", "openeval-results",
         "--allow-regressions"],
        cwd=runner.workspace, capture_output=True, text=True, check=True,
    ).stdout
    # The run's report, where its HTML page is, then the comparison, in one step summary.
    note = html_note("openeval-results/report.html")
    assert done.summary == report + note + "\n" + diff
    if regressions == "1":
        severity = "warning" if "--allow-regressions" in inputs["args"] else "error"
        assert (f"::{severity} file=evals/billing/refund-order/testcase.json,title=OpenEval%3A "
                "billing/refund-order got worse than the baseline::passed → failed") in (
            done.stdout)


@pytest.mark.slow
def test_a_baseline_folder_not_there_yet_is_a_warning_not_a_failure(runner: LocalRunner) -> None:
    _scale_suite(runner.workspace, pull_request=False)
    done = runner.run({"suite": "evals", "baseline": "no-results-from-main-yet"})
    assert done.code == 0, done.stdout + done.stderr
    assert ("::warning title=OpenEval baseline::baseline folder no-results-from-main-yet not "
            "found") in done.stdout
    assert done.outputs["regressions"] == ""
    assert done.summary == cli_report(runner.workspace, "openeval-results", "markdown") + (
        html_note("openeval-results/report.html")
    )


@pytest.mark.slow
def test_a_baseline_of_another_suite_stops_the_step(runner: LocalRunner) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / "evals")
    shutil.copytree(ROOT / "tests" / "data" / "results" / "openeval_v1",
                    runner.workspace / "main-results")
    done = runner.run({"suite": "evals", "baseline": "main-results"})
    assert done.code == 2
    assert "the baseline shares no case with this run" in done.stderr
    assert "`openeval run` stopped with exit code 2" in done.summary


@pytest.mark.slow
@pytest.mark.parametrize(
    "folder",
    ["suite $(touch pwned)", "it's \"quoted\" `touch pwned` ; touch pwned", "$HOME & x"],
)
def test_suite_path_is_passed_through_literally(runner: LocalRunner, folder: str) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / folder)
    done = runner.run({"suite": folder})
    assert done.code == 0, done.stdout + done.stderr
    assert done.outputs["cases"] == "2"
    assert not (runner.workspace / "pwned").exists()
    assert not (ROOT / "pwned").exists()
    summary = read_json_file(runner.workspace / "openeval-results" / "summary.json")
    assert summary["metadata"]["suite"] == folder
    assert "::notice title=OpenEval::pass rate 100.0%25" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("inputs", "message"),
    [
        ({"suite": "evals", "args": "--format '$(touch pwned)'"}, ""),
        ({"suite": "evals", "args": "--junit 'unclosed"}, "bad action input"),
        ({"suite": "no-such-folder"}, ""),
        ({"suite": "evals", "fail-under": "$(touch pwned)"}, ""),
        ({"suite": "evals", "comment": "yes"}, "the comment input must be true or false"),
    ],
    ids=["args-substitution", "args-bad-quotes", "missing-suite", "fail-under-substitution",
         "comment-not-a-bool"],
)
def test_bad_input_stops_with_usage_code_and_runs_nothing(
    runner: LocalRunner, inputs: dict[str, str], message: str
) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / "evals")
    done = runner.run(inputs)
    assert done.code == 2, done.stdout + done.stderr
    if message:
        assert message in done.stdout
    else:
        assert "`openeval run` stopped with exit code 2" in done.summary
    assert not (runner.workspace / "pwned").exists()
    assert done.outputs["pass-rate"] == ""
    assert done.outputs["results"] == "openeval-results"
    assert not (runner.workspace / "openeval-results" / "summary.json").exists()


LINT_SUITES = ROOT / "tests" / "data" / "suite" / "lint"


@pytest.mark.slow
def test_lint_input_runs_lint_before_the_suite(runner: LocalRunner) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / "evals")
    done = runner.run({"suite": "evals", "lint": "true"})
    assert done.code == 0, done.stdout + done.stderr
    assert "2 cases linted, 0 flagged, 0 findings" in done.stdout
    assert "::notice title=OpenEval lint::no case flagged" in done.stdout
    lint = summary_block("2 cases linted, 0 flagged, 0 findings\n")
    assert done.summary == lint + cli_report(runner.workspace, "openeval-results",
                                             "markdown") + html_note(
        "openeval-results/report.html")
    assert done.outputs["cases"] == "2"


@pytest.mark.slow
@pytest.mark.parametrize(("lint", "code"), [("true", 1), ("false", 0), ("", 0)])
def test_a_flagged_case_fails_the_step_only_with_the_lint_input(
    runner: LocalRunner, lint: str, code: int
) -> None:
    # A pass line of 0 on argument_correctness: the run passes, lint flags the case.
    shutil.copytree(LINT_SUITES / "zero-pass-line", runner.workspace / "evals" / "refund")
    inputs = {"suite": "evals", **({"lint": lint} if lint else {})}
    done = runner.run(inputs)
    assert done.code == code, done.stdout + done.stderr
    ran = (runner.workspace / "openeval-results" / "summary.json").exists()
    if lint == "true":
        assert "zero-pass-line: thresholds.argument_correctness" in done.stdout
        assert ("::error title=OpenEval lint::a case no agent can fail was flagged (see the "
                "findings above); the suite was not run") in done.stdout
        assert "zero-pass-line" in done.summary
        assert not ran and done.outputs["pass-rate"] == ""
    else:
        assert "linted" not in done.stdout and "openeval lint" not in done.summary
        assert ran and done.outputs["cases"] == "1"


@pytest.mark.slow
def test_a_lint_input_that_is_no_bool_stops_the_step(runner: LocalRunner) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / "evals")
    done = runner.run({"suite": "evals", "lint": "yes"})
    assert done.code == 2
    assert ("::error title=OpenEval lint::bad action input: the lint input must be true or "
            "false, not 'yes'") in done.stdout
    assert not (runner.workspace / "openeval-results" / "summary.json").exists()


@pytest.mark.slow
def test_a_run_that_stops_leaves_no_old_html_report(runner: LocalRunner) -> None:
    stale = runner.workspace / "openeval-results" / HTML_REPORT_NAME
    stale.parent.mkdir()
    stale.write_text("the previous run's page", encoding="utf-8")
    done = runner.run({"suite": "no-such-folder"})
    assert done.code == 2, done.stdout + done.stderr
    assert not stale.exists()
    assert "The HTML report is" not in done.summary


@pytest.mark.slow
@pytest.mark.parametrize("extras", ["all] @ file:///etc", "all\nfixtura", "$(touch pwned)"])
def test_install_step_refuses_odd_extras(action_python: Path, tmp_path: Path, extras: str
                                         ) -> None:
    done = LocalRunner(action_python, tmp_path).run({"suite": "x", "extras": extras},
                                                    steps="install")
    assert done.code == 2
    assert "::error title=OpenEval::the extras input" in done.stdout
    assert not (tmp_path / "pwned").exists()


@pytest.mark.slow
def test_dogfood_workflow_steps_pass_on_this_repository(runner: LocalRunner) -> None:
    """Each ``uses: ./`` step of the workflow, with its own inputs, passes on examples/."""
    shutil.copytree(ROOT / "examples", runner.workspace / "examples")
    local = [step for step in all_steps(load_yaml(WORKFLOW)) if step.get("uses") == "./"]
    assert len(local) == 2
    for step in local:
        inputs = {key: str(value) for key, value in step["with"].items()}
        done = runner.run(inputs)
        assert done.code == 0, f"{step['name']}: {done.stdout}{done.stderr}"
        assert done.outputs["errored"] == "0"
        assert int(done.outputs["cases"]) > 0
        assert (runner.workspace / done.outputs["results"] / "summary.json").is_file()
    assert (runner.workspace / "openeval-junit.xml").is_file()


EXITS_QUIETLY = """import os


def leave(tool_calls, params):
    os._exit(0)
"""


@pytest.mark.slow
def test_a_run_that_dies_with_exit_0_fails_the_step(runner: LocalRunner) -> None:
    """A check ending the process with ``os._exit(0)`` leaves no verdict: the step fails and
    says so, whatever exit code ``openeval run`` died with."""
    evals = runner.workspace / "evals"
    shutil.copytree(SUITES / "gate_pass", evals)
    (evals / "exits.py").write_text(EXITS_QUIETLY, encoding="utf-8")
    case = evals / "refund" / "testcase.json"
    document = read_json_file(case)
    document["checks"] = [*document.get("checks", []), {"code": "../exits.py:leave"}]
    case.write_text(json.dumps(document), encoding="utf-8")
    # A summary.json committed with the pull request must not stand in for this run's.
    committed = runner.workspace / "openeval-results" / "summary.json"
    committed.parent.mkdir()
    stale = ('{"schema_version": 2, "cases": 2, "pass_rate": 1.0, "gate_passed": true, '
             '"result_files": []}')
    committed.write_text(stale, encoding="utf-8")
    done = runner.run({"suite": "evals"})
    assert done.code != 0, done.stdout + done.stderr
    rewritten = committed.is_file() and committed.read_text(encoding="utf-8") != stale
    if rewritten:  # the check's worker died alone, and the run finished
        assert read_json_file(committed)["gate_passed"] is False
    elif "`openeval run` stopped with exit code 2" in done.summary:
        assert done.code == 2  # code checks refused without an opt-in: a usage error
    else:  # the run died with exit 0 and wrote nothing: the step still fails, and says why
        assert done.code == 1
        assert ("`openeval run` exited with code 0 but wrote no complete "
                "openeval-results/summary.json") in done.summary
        assert "::error title=OpenEval::openeval run exited with code 0" in done.stdout
        assert done.outputs["pass-rate"] == ""


# --- the pull-request comment, against a stand-in for GitHub's API on 127.0.0.1 ------------

REPO = "acme/agents"


@pytest.fixture
def api() -> Iterator[GitHubApiStandIn]:
    stand_in = GitHubApiStandIn()
    stand_in.start()
    yield stand_in
    stand_in.stop()


def pull_request_context(workspace: Path, api_url: str, *, event: str = "pull_request",
                         head_repo: str = REPO, number: int = 7) -> dict[str, str]:
    """The variables GitHub's runner sets for a job of ``event`` on pull request ``number``."""
    payload = {"number": number, "pull_request": {
        "number": number, "head": {"repo": {"full_name": head_repo}},
        "base": {"repo": {"full_name": REPO}}}}
    path = workspace / "event.json"
    path.write_text(json.dumps(payload), encoding="utf-8")
    return {"GITHUB_EVENT_NAME": event, "GITHUB_EVENT_PATH": str(path),
            "GITHUB_REPOSITORY": REPO, "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ID": "4242",
            "GITHUB_RUN_ATTEMPT": "1"}


COMMENTING = {"comment": "true", "github-token": "t0ken-of-the-job"}


@pytest.mark.slow
def test_the_comment_is_posted_once_then_edited_in_place(runner: LocalRunner,
                                                         api: GitHubApiStandIn) -> None:
    _scale_suite(runner.workspace, pull_request=True)
    # A person's comment that quotes the marker is never the one edited.
    quoted = api.add_comment(7, marker("evals") + "\nlook at this", {"login": "someone",
                                                                     "type": "User"})
    context = pull_request_context(runner.workspace, api.url)
    inputs = {"suite": "evals", "baseline": "main-results", **LENIENT, **COMMENTING}

    first = runner.run(inputs, context=context)
    assert first.code == 1, first.stdout + first.stderr  # the regression fails the gate
    ours = [c for c in api.on(7) if c["id"] != quoted]
    assert len(ours) == 1
    assert "::notice title=OpenEval comment::posted the comment on pull request #7" in (
        first.stdout)
    body = ours[0]["body"]
    assert body.startswith(marker("evals") + "\n### ❌ OpenEval: the gate failed\n")
    assert "**1** case(s) got worse than the baseline:" in body
    row = next(line for line in body.splitlines() if "billing/refund-order" in line)
    assert row == ("| ` billing/refund-order ` | ` passed → failed ` | ` refund_order (expected "
                   "call 2): args differ; amount: expected 42.5, got 47.4 ` | ` get_order → "
                   "refund_order ` | ` get_order → refund_order ` |")
    assert ("[The full report is in the job summary]"
            "(https://github.com/acme/agents/actions/runs/4242/attempts/1).") in body
    assert all(r.authorization == "Bearer t0ken-of-the-job" for r in api.requests)

    # The pull request is fixed: the same comment now says the gate passed.
    shutil.copytree(SCALE / "billing", runner.workspace / "evals" / "billing",
                    dirs_exist_ok=True)
    second = runner.run(inputs, context=context)
    assert second.code == 0, second.stdout + second.stderr
    assert [c["id"] for c in api.on(7) if c["id"] != quoted] == [ours[0]["id"]]
    assert api.comments[ours[0]["id"]]["body"].startswith(
        marker("evals") + "\n### ✅ OpenEval: the gate passed\n")
    assert "Nothing got worse than the baseline." in api.comments[ours[0]["id"]]["body"]
    assert api.comments[quoted]["body"] == marker("evals") + "\nlook at this"
    assert [r.method for r in api.requests if r.method != "GET"] == ["POST", "PATCH"]
    assert "updated the comment on pull request #7" in second.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("event", "head_repo", "notice"),
    [("pull_request", "a-fork/agents", "a pull request from a fork gets a read-only token"),
     ("push", REPO, "not a pull request (event push), so no comment is posted")],
    ids=["fork", "push"],
)
def test_no_comment_where_there_is_no_pull_request_to_write_to(
    runner: LocalRunner, api: GitHubApiStandIn, event: str, head_repo: str, notice: str
) -> None:
    shutil.copytree(SUITES / "gate_pass", runner.workspace / "evals")
    context = pull_request_context(runner.workspace, api.url, event=event, head_repo=head_repo)
    done = runner.run({"suite": "evals", **COMMENTING}, context=context)
    assert done.code == 0, done.stdout + done.stderr
    (line,) = [line for line in done.stdout.splitlines() if "OpenEval comment" in line]
    assert line.startswith(f"::notice title=OpenEval comment::{notice}")
    assert api.requests == []


@pytest.mark.slow
@pytest.mark.parametrize(("suite", "code"), [("gate_pass", 0), ("gate_fail", 1)])
def test_an_api_error_is_a_warning_and_the_gate_still_decides(
    runner: LocalRunner, api: GitHubApiStandIn, suite: str, code: int
) -> None:
    shutil.copytree(SUITES / suite, runner.workspace / "evals")
    api.refuse_with = 403
    done = runner.run({"suite": "evals", **COMMENTING},
                      context=pull_request_context(runner.workspace, api.url))
    assert done.code == code, done.stdout + done.stderr
    assert ("::warning title=OpenEval comment::no comment posted: GET /repos/acme/agents/issues/"
            "7/comments?per_page=100&page=1: HTTP 403 Resource not accessible by integration"
            ) in done.stdout
    assert api.comments == {}


@pytest.mark.slow
def test_without_the_comment_input_the_comment_step_does_not_run(
    runner: LocalRunner, api: GitHubApiStandIn
) -> None:
    shutil.copytree(SUITES / "gate_fail", runner.workspace / "evals")
    done = runner.run({"suite": "evals"}, context=pull_request_context(runner.workspace,
                                                                       api.url))
    assert done.code == 1
    assert "comment-file" not in done.step_outputs["evaluate"]
    assert set(done.step_outputs) == {"lint", "evaluate"}  # the comment step never ran
    assert api.requests == []


def test_only_the_comment_step_receives_the_token() -> None:
    steps = load_yaml(ACTION)["runs"]["steps"]
    holding = [step["name"] for step in steps
               if "inputs.github-token" in json.dumps(step.get("env", {}))]
    assert holding == ["Comment on the pull request"]
    (comment,) = [step for step in steps if step["name"] == "Comment on the pull request"]
    assert comment["run"].strip() == "python -I -m openeval.ci.pr_comment"


def _action_table() -> Any:
    spec = importlib.util.spec_from_file_location("action_table", ROOT / ".ci" / "action_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_documents_every_input_and_output_as_action_yml_does() -> None:
    table = _action_table()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert table.table_in(readme) == table.render(load_yaml(ACTION)), (
        "README.md's table of the action's inputs and outputs is not action.yml's: run "
        "`python .ci/action_table.py` to regenerate it")
    rows = [line for line in table.table_in(readme).splitlines() if line.startswith("| in")]
    assert len(rows) == len(load_yaml(ACTION)["inputs"])


def test_the_action_is_ready_for_the_marketplace() -> None:
    action = load_yaml(ACTION)
    assert action["name"] and action["description"] and action["author"]
    assert set(action["branding"]) == {"icon", "color"}

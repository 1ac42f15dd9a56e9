"""The run step of OpenEval's GitHub Action (``action.yml``), as a testable program.

GitHub passes the action's inputs as environment variables (never spliced into shell text, see
proposals/0020-github-action.md) and this program:

1. runs ``openeval run`` on the suite, its output going straight to the job log, rendering the
   Markdown and ``github`` reports in the same pass (``--report FORMAT=PATH``: the results are
   never read back), and the HTML report into the results folder as ``report.html`` (a
   previous run's copy is removed first, so the folder never holds a stale page);
2. appends the Markdown report to ``$GITHUB_STEP_SUMMARY``, then a line naming the HTML report;
3. prints the ``github`` report (annotations) to stdout, where the runner picks it up;
4. writes the step outputs to ``$GITHUB_OUTPUT``, read from ``summary.json`` alone;
5. exits with ``openeval run``'s own exit code, so the step fails exactly when the gate does;
   and whenever ``summary.json`` is missing or incomplete it fails, whatever that code was. A
   run that dies silently with exit 0 (user code calling ``os._exit(0)``, say) wrote no
   verdict, and no verdict is never a pass. A ``summary.json`` left in the output folder by an
   earlier run (or committed in a pull request) counts only if this run replaced it (proposal
   0121).

With the ``comment`` input set to ``true`` it also renders the pull-request comment
(:mod:`openeval.ci.pr_comment`) into a file under ``$RUNNER_TEMP`` and names it in the
``comment-file`` step output; the action's next step, the only one holding the token, posts it.
This step never sees the token, and it is the one that runs the suite's code.

With the ``baseline`` input (the results folder of an earlier run, e.g. main's, downloaded as
an artifact) ``openeval run --baseline`` also compares the run with it in the same pass: the
comparison's Markdown follows the report in the step summary, its annotations follow the run's,
the ``regressions`` output counts the cases that got worse, and the step fails when any did.
A baseline folder that does not exist (the first run, before main has results) is a warning,
and the run goes on without a comparison (proposals/0060).

The ``args`` input is split with :func:`shlex.split` (POSIX quoting rules, no expansion of
``$VAR``, ``$(...)`` or globs) and each word is handed to ``openeval run`` as one argument; no
shell ever sees it. Like the CLI, this is an entry point, so it prints.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.ci.pr_comment import comment_body, enabled, run_url
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_USAGE
from openeval.errors import OpenEvalError
from openeval.report.github import command
from openeval.results.files import read_results
from openeval.results.records import SuiteResult

OUTPUT_NAMES = ("pass-rate", "cases", "failed", "errored", "results", "regressions")
"""The action's outputs, in the order they are written."""

HTML_REPORT_NAME = "report.html"
"""The HTML report's file name inside the results folder."""

SUMMARY_NAME = "summary.json"
"""The file ``openeval run`` writes last, once every case has its verdict."""

SUMMARY_KEYS = frozenset({"schema_version", "cases", "pass_rate", "gate_passed",
                          "result_files"})
"""Keys every ``summary.json`` of a finished run holds; one without them is not a verdict."""

# The CLI runs in its own interpreter (-I: the workspace folder is not put on sys.path, so a
# user's own ``openeval/`` folder cannot shadow the installed package).
_CLI = (sys.executable, "-I", "-c", "from openeval.cli import main; main(prog_name='openeval')")


@dataclass(frozen=True)
class ActionInputs:
    """The action's inputs, as the environment hands them over (empty string = not given)."""

    suite: str
    output: str
    fail_under: str = ""
    metrics: str = ""
    args: str = ""
    baseline: str = ""
    comment: str = ""
    allow_code: str = ""
    """``true`` passes ``--allow-code``: the workflow's opt-in (proposals/0160)."""

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ActionInputs:
        """Read the ``OPENEVAL_*`` variables that ``action.yml`` sets from its inputs."""
        return cls(
            suite=env.get("OPENEVAL_SUITE", ""),
            output=env.get("OPENEVAL_OUTPUT", "") or "openeval-results",
            fail_under=env.get("OPENEVAL_FAIL_UNDER", "").strip(),
            metrics=env.get("OPENEVAL_METRICS", "").strip(),
            args=env.get("OPENEVAL_ARGS", ""),
            baseline=env.get("OPENEVAL_BASELINE", "").strip(),
            comment=env.get("OPENEVAL_COMMENT", ""),
            allow_code=env.get("OPENEVAL_ALLOW_CODE", "").strip(),
        )

    def run_argv(self) -> list[str]:
        """Return the ``openeval run`` arguments; raise ValueError on unbalanced quotes."""
        argv = ["run", "--suite", self.suite, "--output", self.output]
        if self.fail_under:
            argv += ["--fail-under", self.fail_under]
        if self.allow_code.lower() == "true":
            argv += ["--allow-code"]
        if self.metrics:
            argv += ["--metrics", self.metrics]
        if self.baseline:
            argv += ["--baseline", self.baseline]
        return argv + shlex.split(self.args)


def outputs_from_summary(summary: Mapping[str, Any], results: str) -> dict[str, str]:
    """Return the step outputs read from ``summary.json``; pass-rate is empty when null."""

    def count(key: str) -> str:
        value = summary.get(key)
        # A list of cases would also be a fair shape for "cases"; count it either way.
        return str(len(value)) if isinstance(value, list) else str(value)

    rate = summary.get("pass_rate")
    return {
        "pass-rate": "" if rate is None else json.dumps(rate),
        "cases": count("cases"),
        "failed": count("failed_cases"),
        "errored": count("errored_cases"),
        "results": results,
    }


def format_outputs(outputs: Mapping[str, str]) -> str:
    """Return ``outputs`` in the ``$GITHUB_OUTPUT`` file syntax.

    A value holding a line break uses the ``name<<DELIMITER`` form with a random delimiter, so
    no value can end its own entry early and set another output.
    """
    lines: list[str] = []
    for name, value in outputs.items():
        if "\n" in value or "\r" in value:
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            lines += [f"{name}<<{delimiter}", value, delimiter]
        else:
            lines.append(f"{name}={value}")
    return "".join(line + "\n" for line in lines)


def html_note(path: str) -> str:
    """Return the job-summary paragraph saying where the HTML report of the run is."""
    # A code span's fence must be longer than any run of backticks inside it.
    longest = max((len(run) for run in re.findall("`+", path)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if longest else ""
    return (
        f"\nThe HTML report is {fence}{pad}{path}{pad}{fence} in the results folder: keep the "
        "folder with actions/upload-artifact, then download the artifact, unzip it and open the "
        "file in a browser (no server or network needed).\n"
    )


def file_identity(path: Path) -> tuple[int, int, int] | None:
    """Return what tells one version of a file from another (device, inode, modification time),
    or None when there is no file. ``openeval run`` writes ``summary.json`` beside it and renames
    it over the old one, so a summary it wrote never has the identity of the one before."""
    try:
        found = path.lstat()
    except OSError:
        return None
    return (found.st_dev, found.st_ino, found.st_mtime_ns)


def complete_summary(path: Path, before: tuple[int, int, int] | None = None
                     ) -> dict[str, Any] | None:
    """Return ``summary.json``'s object when a finished run wrote it, else None (missing, the
    very file that was there before the run (``before``), unreadable, not an object, or without
    the keys of a finished run)."""
    if before is not None and file_identity(path) == before:
        return None
    try:
        document = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(document, dict) or not document.keys() >= SUMMARY_KEYS:
        return None
    return document


def step_exit_code(run_code: int, summary: Mapping[str, Any] | None) -> int:
    """Return the step's exit code: ``openeval run``'s, except that a run without a complete
    summary never passes (exit 0 with nothing written becomes a failure)."""
    if summary is None and run_code == 0:
        return EXIT_FAIL
    return run_code


def regressions_from_diff(document: Mapping[str, Any]) -> str:
    """Return the ``regressions`` output: how many cases got worse than the baseline."""
    found = document.get("regressions")
    return str(len(found)) if isinstance(found, list) else ""


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(text)


def _cli(argv: Sequence[str]) -> int:
    sys.stdout.flush()  # keep our lines and the child's in order in the log
    return subprocess.run([*_CLI, *argv], check=False).returncode


def _read_report(path: Path, fmt: str) -> str | None:
    """Return the report ``openeval run`` rendered into ``path``; None (after a warning) when
    it is missing."""
    try:
        return path.read_text(encoding="utf-8")
    except OSError:
        print(command("warning", f"openeval run wrote no {fmt} report", title="OpenEval"))
        return None


def _baseline_reports(files: Mapping[str, Path], env: Mapping[str, str]
                      ) -> tuple[str, dict[str, Any] | None]:
    """Append the comparison's Markdown to the step summary, print its annotations, and
    return the ``regressions`` output and the comparison's JSON (None when unreadable)."""
    markdown = _read_report(files["markdown"], "baseline comparison")
    if markdown is not None:
        _append(env.get("GITHUB_STEP_SUMMARY"), "\n" + markdown)
    annotations = _read_report(files["github"], "baseline annotations")
    if annotations is not None:
        sys.stdout.write(annotations)
    text = _read_report(files["json"], "baseline JSON")
    if text is None:
        return "", None
    try:
        document = json.loads(text)
        return regressions_from_diff(document), document
    except (ValueError, AttributeError) as exc:
        print(command("warning", f"baseline comparison unreadable: {exc}", title="OpenEval"))
        return "", None


def _write_comment(inputs: ActionInputs, code: int, summary: Mapping[str, Any] | None,
                   diff: Mapping[str, Any] | None, env: Mapping[str, str]) -> str:
    """Render the pull-request comment into a file of its own; return the file's path."""
    head: SuiteResult | None = None
    if summary is not None:
        try:
            head = read_results(inputs.output)
        except OpenEvalError:
            head = None  # the comment then gives the counts alone
    body = comment_body(key=inputs.suite, step_code=code, summary=summary, diff=diff,
                        head=head, run_url=run_url(env))
    folder = Path(env.get("RUNNER_TEMP") or tempfile.gettempdir())
    path = folder / f"openeval-comment-{uuid.uuid4().hex}.md"
    path.write_text(body, encoding="utf-8")
    return str(path)


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the action's step; return ``openeval run``'s exit code (2 for bad inputs)."""
    env = os.environ if env is None else env
    inputs = ActionInputs.from_env(env)
    outputs = dict.fromkeys(OUTPUT_NAMES, "") | {"results": inputs.output}
    try:
        if not inputs.suite:
            raise ValueError("the suite input is empty; give the folder of test cases")
        comment = enabled(inputs.comment)
        if inputs.baseline and not Path(inputs.baseline).is_dir():
            print(command("warning", f"baseline folder {inputs.baseline} not found (no results "
                          "from the base branch yet?); the run is not compared with one",
                          title="OpenEval baseline"))
            inputs = dataclasses.replace(inputs, baseline="")
        argv = inputs.run_argv()
    except ValueError as exc:
        print(command("error", f"bad action input: {exc}", title="OpenEval"))
        _append(env.get("GITHUB_OUTPUT"), format_outputs(outputs))
        return EXIT_USAGE

    summary_file = Path(inputs.output) / SUMMARY_NAME
    diff: dict[str, Any] | None = None
    with tempfile.TemporaryDirectory(prefix="openeval-action-") as scratch:
        markdown_file = Path(scratch) / "summary.md"
        github_file = Path(scratch) / "annotations.txt"
        html_file = Path(inputs.output) / HTML_REPORT_NAME
        with contextlib.suppress(OSError):  # not removable: openeval run will say why
            html_file.unlink(missing_ok=True)
        # Left in place, since openeval run reads it to clear the case files it lists.
        earlier_summary = file_identity(summary_file)
        argv += ["--report", f"markdown={markdown_file}", "--report", f"github={github_file}",
                 "--report", f"html={html_file}"]
        diff_files = {fmt: Path(scratch) / f"baseline.{fmt}" for fmt in ("markdown", "json",
                                                                          "github")}
        if inputs.baseline:
            for fmt, path in diff_files.items():
                argv += ["--baseline-report", f"{fmt}={path}"]
        run_code = _cli(argv)
        summary = (complete_summary(summary_file, earlier_summary)
                   if run_code in (0, EXIT_FAIL) else None)
        if summary is not None:
            outputs = outputs_from_summary(summary, inputs.output)
            markdown = _read_report(markdown_file, "markdown")
            if markdown is not None:
                _append(env.get("GITHUB_STEP_SUMMARY"), markdown)
            if html_file.is_file():
                _append(env.get("GITHUB_STEP_SUMMARY"), html_note(str(html_file)))
            annotations = _read_report(github_file, "github")
            if annotations is not None:
                sys.stdout.write(annotations)
            if inputs.baseline:
                outputs["regressions"], diff = _baseline_reports(diff_files, env)
    code = step_exit_code(run_code, summary)
    if summary is None:
        why = (f"stopped with exit code {run_code} before writing results; its error is in "
               "the job log")
        if run_code in (0, EXIT_FAIL):
            why = (f"exited with code {run_code} but wrote no complete {summary_file}, so "
                   "there is no verdict: the run died before it finished")
            print(command("error", f"openeval run {why}", title="OpenEval"))
        _append(env.get("GITHUB_STEP_SUMMARY"), f"### OpenEval\n\n❌ `openeval run` {why}.\n")
    if comment:
        try:
            outputs["comment-file"] = _write_comment(inputs, code, summary, diff, env)
        except OSError as exc:
            print(command("warning", f"the pull-request comment could not be written: {exc}",
                          title="OpenEval"))
    _append(env.get("GITHUB_OUTPUT"), format_outputs(outputs))
    sys.stdout.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())

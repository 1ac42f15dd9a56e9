"""The lint step of OpenEval's GitHub Action (``action.yml``), as a testable program.

With the ``lint`` input ``true`` it runs ``openeval lint`` (proposals/0170-lint.md) on the
``suite`` folder before the suite runs, its findings going to the job log and, in a fenced
block, to ``$GITHUB_STEP_SUMMARY``. It exits with lint's own code: 1 when a case is flagged (an
error annotation says so, and the Evaluate step after it does not run: a suite holding a case
no agent can fail has no verdict worth gating on), 2 when a case cannot be read. With the input
``false`` or empty it does nothing; anything else is a bad input (exit 2), never a silent skip.
The ``allow-code`` input passes ``--allow-code`` as it does to ``openeval run``, since lint
scores each case as the run would. Inputs arrive as environment variables only
(proposals/0201-lint-in-the-action.md). Like the CLI, this is an entry point, so it prints.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.report.github import command

_TITLE = "OpenEval lint"

# As for the run step: -I keeps a workspace folder named openeval/ off sys.path.
_CLI = (sys.executable, "-I", "-c", "from openeval.cli import main; main(prog_name='openeval')")


def lint_enabled(value: str) -> bool:
    """Return the ``lint`` input as a bool; raise ValueError unless ``true`` or ``false``."""
    text = value.strip().lower()
    if text not in ("", "true", "false"):
        raise ValueError(f"the lint input must be true or false, not {value!r}")
    return text == "true"


def lint_argv(suite: str, allow_code: str) -> list[str]:
    """Return the ``openeval lint`` arguments for ``suite`` (``--`` first, so a folder whose
    name starts with ``-`` is a folder)."""
    flags = ["--allow-code"] if allow_code.strip().lower() == "true" else []
    return ["lint", *flags, "--", suite]


def summary_block(text: str) -> str:
    """Return lint's printed findings as a Markdown section with a fenced block whose fence is
    longer than any backtick run in ``text`` (a case name cannot close it)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"### openeval lint\n\n{fence}text\n{text.rstrip()}\n{fence}\n\n"


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the step; return lint's exit code (0 when the input is off, 2 for bad inputs)."""
    env = os.environ if env is None else env
    try:
        if not lint_enabled(env.get("OPENEVAL_LINT", "")):
            return EXIT_OK
        suite = env.get("OPENEVAL_SUITE", "")
        if not suite:
            raise ValueError("the suite input is empty; give the folder of test cases")
    except ValueError as exc:
        print(command("error", f"bad action input: {exc}", title=_TITLE))
        return EXIT_USAGE
    sys.stdout.flush()
    done = subprocess.run([*_CLI, *lint_argv(suite, env.get("OPENEVAL_ALLOW_CODE", ""))],
                          capture_output=True, text=True, check=False)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    path = env.get("GITHUB_STEP_SUMMARY")
    if path:
        with open(path, "a", encoding="utf-8") as handle:
            handle.write(summary_block(done.stdout + done.stderr))
    if done.returncode == EXIT_OK:
        print(command("notice", "no case flagged", title=_TITLE))
    elif done.returncode == EXIT_FAIL:
        print(command("error", "a case no agent can fail was flagged (see the findings "
                      "above); the suite was not run", title=_TITLE))
    else:
        print(command("error", f"openeval lint stopped with exit code {done.returncode}; "
                      "the suite was not run", title=_TITLE))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())

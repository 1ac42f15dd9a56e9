"""The ``openeval`` command line: one click group, one module per command family.

Only this package prints or exits. A command's module is imported when that command runs (or
its own ``--help`` is asked for), and heavy modules (rich, jsonschema, adapters) inside the
commands (proposals/0181). The group itself (:mod:`openeval.cli.group`, which imports click)
is imported on the first call too: ``openeval --help`` at a full-width terminal prints
:data:`GROUP_HELP`, the group's own page, without importing click (proposals/0230).
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing for `--help`
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, NoReturn

    import click

COMMANDS: dict[str, tuple[str, str]] = {
    "config": ("openeval.cli.config",
               "Print the settings a run of the suite uses, and where each came from."),
    "convert": ("openeval.cli.trace",
                "Write TRACE as OpenEval trace JSON (sorted keys, same bytes every time)."),
    "diff": ("openeval.cli.diff",
             "Compare the results in HEAD with the baseline results in BASE."),
    "init": ("openeval.cli.init",
             "Set up FOLDER (default: here) with evals/ (openeval.toml and one example case) "
             "and .github/workflows/openeval.yml. Never overwrites a file."),
    "inspect": ("openeval.cli.trace",
                "Print the normalised steps of TRACE as a table (plain text when not on a "
                "terminal), each user message as a row before the turn that answers it."),
    "lint": ("openeval.cli.lint",
             "Score each case against an empty and a do-nothing trace, and mutate its recorded "
             "trace, to find the cases no agent can fail."),
    "record": ("openeval.cli.record",
               "Receive OpenTelemetry traces over OTLP/HTTP (JSON or protobuf) and write each "
               "finished trace as a file a suite can use. Point an agent at it with "
               "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318."),
    "report": ("openeval.cli.report", "Render the results in --input as a report."),
    "run": ("openeval.cli.run",
            "Score one case (--trace + --testcase) or a suite (--suite DIR)."),
    "score": ("openeval.cli.score",
              "Score every trace in TRACES (files, folders, globs; many traces per file)."),
    "snapshot": ("openeval.cli.trace",
                 "Draft a test case from a known-good TRACE: its tool calls, final state and "
                 "step count."),
}
"""Each command: the module defining it (under the command's name) and the first paragraph of
its help, which the group's ``--help`` shows without importing the module (a test holds the
two equal)."""



GROUP_HELP = """\
Usage: openeval [OPTIONS] COMMAND [ARGS]...

  Evaluate AI-agent trajectories deterministically, without an LLM judge.

Options:
  --version   Show the version and exit.
  -h, --help  Show this message and exit.

Commands:
  config    Print the settings a run of the suite uses, and where each...
  convert   Write TRACE as OpenEval trace JSON (sorted keys, same bytes...
  diff      Compare the results in HEAD with the baseline results in BASE.
  init      Set up FOLDER (default: here) with evals/ (openeval.toml and...
  inspect   Print the normalised steps of TRACE as a table (plain text...
  lint      Score each case against an empty and a do-nothing trace, and...
  record    Receive OpenTelemetry traces over OTLP/HTTP (JSON or...
  report    Render the results in --input as a report.
  run       Score one case (--trace + --testcase) or a suite (--suite DIR).
  score     Score every trace in TRACES (files, folders, globs; many...
  snapshot  Draft a test case from a known-good TRACE: its tool calls,...
"""
"""What ``openeval --help`` prints at a terminal of 80 columns or more (click's page is the
same at every such width); a test holds it equal to the group's own."""

_FULL_WIDTH = 80
"""Columns from which click lays the help out at its widest (78 characters)."""


def _columns() -> int:
    """Return the terminal width click would read (``shutil.get_terminal_size``'s rule:
    ``COLUMNS``, else the terminal of standard output, else 80), without importing shutil."""
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    stdout = sys.__stdout__
    if stdout is None:
        return _FULL_WIDTH
    try:
        return os.get_terminal_size(stdout.fileno()).columns or _FULL_WIDTH
    except (AttributeError, ValueError, OSError):
        return _FULL_WIDTH


def _program_name() -> str:
    """Return the program name click would show: the started script's file name."""
    return os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""


class _Main:
    """Stands for the click group (:mod:`openeval.cli.group`): calling it runs the command
    line; any other use (``CliRunner().invoke(main, ...)``, ``main.commands``) loads the group
    and is the group's."""

    def _group(self) -> click.Group:
        from openeval.cli.group import group

        return group

    def __getattr__(self, name: str) -> Any:
        return getattr(self._group(), name)

    def __call__(self, args: Sequence[str] | None = None, prog_name: str | None = None,
                 **extra: Any) -> NoReturn:
        asked = sys.argv[1:] if args is None else list(args)
        shown = prog_name if prog_name is not None else _program_name()
        if (not extra and asked in (["--help"], ["-h"]) and shown == "openeval"
                and sys.stdout is not None and _columns() >= _FULL_WIDTH):
            raise SystemExit(_print_help())
        self._group().main(args, prog_name, **extra)
        raise AssertionError("click's main always exits")  # pragma: no cover


def _print_help() -> int:
    try:
        sys.stdout.write(GROUP_HELP)
        sys.stdout.flush()
    except OSError as exc:
        from openeval.cli.group import output_failed

        return output_failed(exc)
    return 0


main = _Main()
"""The ``openeval`` command line (the console script's entry point)."""

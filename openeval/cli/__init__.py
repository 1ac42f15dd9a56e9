"""The ``openeval`` command line: one click group, one module per command family.

Only this package prints or exits. A command's module is imported when that command runs (or
its own ``--help`` is asked for), and heavy modules (rich, jsonschema, adapters) inside the
commands, so ``openeval --help`` costs little more than importing click (proposals/0181).
"""

from __future__ import annotations

import os
import sys
from gettext import gettext
from typing import Any, NoReturn

import click

from openeval.cli.exit_codes import EXIT_USAGE
from openeval.version import __version__

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


class _Main(click.Group):
    """The command group, with standard streams that never end a run in a traceback, and
    its commands imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            import importlib

            module = importlib.import_module(COMMANDS[cmd_name][0])
            self.add_command(getattr(module, cmd_name), cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # click's own, with a stand-in per command not imported yet: its help's first
        # paragraph is all the listing reads.
        commands = [
            (name, self.commands.get(name) or click.Command(name, help=COMMANDS[name][1]))
            for name in self.list_commands(ctx)
        ]
        shown = [(name, c) for name, c in commands if not c.hidden]
        if not shown:
            return
        limit = formatter.width - 6 - max(len(name) for name, _ in shown)
        with formatter.section(gettext("Commands")):  # as click words it
            formatter.write_dl([(name, c.get_short_help_str(limit)) for name, c in shown])

    def main(self, *args: Any, **kwargs: Any) -> NoReturn:
        if sys.stdout is None:  # started with its standard output closed
            raise SystemExit(_output_failed(OSError(0, "standard output is closed")))
        for stream in (sys.stdout, sys.stderr):
            # A locale without UTF-8 must not turn a task id into UnicodeEncodeError.
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        code: Any = 0
        try:
            super().main(*args, **kwargs)
        except SystemExit as exc:
            code = exc.code
        except OSError as exc:  # stdout or stderr went away (ENOSPC, a closed pipe ...)
            code = _output_failed(exc)
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError as exc:
            code = _output_failed(exc)
        raise SystemExit(code)


def _output_failed(exc: OSError) -> int:
    """Say once, on stderr, that output could not be written; return the exit code."""
    reason = exc.strerror or type(exc).__name__
    try:
        sys.stderr.write(f"openeval: error: cannot write the output: {reason}\n")
        sys.stderr.flush()
    except (OSError, AttributeError):
        pass
    # Python flushes stdout again at exit; point it at nothing so that flush cannot fail.
    sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - lives until the interpreter exits
    return EXIT_USAGE


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openeval")
def main() -> None:
    """Evaluate AI-agent trajectories deterministically, without an LLM judge."""

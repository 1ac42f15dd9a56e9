"""The ``openeval`` click group: commands imported on first use, standard streams that never
end a run in a traceback. :data:`openeval.cli.main` stands for it until it is needed."""

from __future__ import annotations

import os
import sys
from gettext import gettext
from typing import Any, NoReturn

import click

from openeval.cli import COMMANDS
from openeval.cli.exit_codes import EXIT_USAGE
from openeval.version import __version__


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
            raise SystemExit(output_failed(OSError(0, "standard output is closed")))
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
            code = output_failed(exc)
        try:
            if sys.stdout is not None:
                sys.stdout.flush()
        except OSError as exc:
            code = output_failed(exc)
        raise SystemExit(code)


def output_failed(exc: OSError) -> int:
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


@click.group("main", cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openeval")
def group() -> None:
    """Evaluate AI-agent trajectories deterministically, without an LLM judge."""

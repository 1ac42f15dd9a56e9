"""The ``openeval`` command line: one click group, one module per command family.

Only this package prints or exits. Heavy modules (rich, jsonschema, adapters) are imported
inside the commands, so ``openeval --help`` costs little more than importing click.
"""

from __future__ import annotations

import os
import sys
from typing import Any, NoReturn

import click

from openeval.cli.config import config
from openeval.cli.diff import diff
from openeval.cli.exit_codes import EXIT_USAGE
from openeval.cli.init import init
from openeval.cli.lint import lint
from openeval.cli.record import record
from openeval.cli.report import report
from openeval.cli.run import run
from openeval.cli.score import score
from openeval.cli.trace import convert, inspect, snapshot
from openeval.version import __version__


class _Main(click.Group):
    """The command group, with standard streams that never end a run in a traceback."""

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


main.add_command(run)
main.add_command(report)
main.add_command(diff)
main.add_command(config)
main.add_command(convert)
main.add_command(inspect)
main.add_command(snapshot)
main.add_command(score)
main.add_command(lint)
main.add_command(init)
main.add_command(record)

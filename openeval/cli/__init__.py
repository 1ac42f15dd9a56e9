"""The ``openeval`` command line: one click group, one module per command family.

Only this package prints or exits. Heavy modules (rich, jsonschema, adapters) are imported
inside the commands, so ``openeval --help`` costs little more than importing click.
"""

from __future__ import annotations

import click

from openeval.cli.report import report
from openeval.cli.run import run
from openeval.cli.trace import convert, inspect, snapshot
from openeval.version import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="openeval")
def main() -> None:
    """Evaluate AI-agent trajectories deterministically, without an LLM judge."""


main.add_command(run)
main.add_command(report)
main.add_command(convert)
main.add_command(inspect)
main.add_command(snapshot)

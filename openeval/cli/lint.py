"""``openeval lint [SUITE|TESTCASE ...] [--format text|json]``: flag the cases that cannot fail.

Exit 0 when no case is flagged, 1 when one is, 2 when an input cannot be read (a case that
cannot be read is not a case that passed lint). The checks themselves live in
:mod:`openeval.suite.lint`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Literal

import click

from openeval.cli import options
from openeval.cli._common import command, one_line
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions


@command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--output-format", "--format", "output_format",
              type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="How to print the findings.")
@options.read_limits_and_code
def lint(paths: tuple[Path, ...], output_format: Literal["text", "json"],
         load: LoadOptions) -> None:
    """Score each case against an empty and a do-nothing trace, and mutate its recorded
    trace, to find the cases no agent can fail.

    PATHS are suite folders (read with their openeval.toml, as `run --suite` reads them) or
    test case files.
    """
    from openeval.suite.lint import group_by_case, lint_paths, summary_line

    report = lint_paths(paths, options=load)
    if output_format == "json":
        from openeval.jsonio import dump_json

        click.echo(dump_json(report.to_dict()).decode("utf-8"), nl=False)
    else:
        for case, findings in group_by_case(report.findings).items():
            click.echo(one_line(case))
            for finding in findings:
                where = f" {finding.where}:" if finding.where else ""
                click.echo(one_line(f"  {finding.kind}:{where} {finding.message}"))
        for case, error in report.unreadable:
            click.echo(one_line(f"{case}: unreadable: {error}"), err=True)
        click.echo(summary_line(report))
    if report.unreadable:
        raise SystemExit(EXIT_USAGE)
    raise SystemExit(EXIT_FAIL if report.findings else EXIT_OK)

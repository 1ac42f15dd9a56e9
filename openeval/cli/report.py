"""``openeval report``: render the result files of a run in any registered report format."""

from __future__ import annotations

from pathlib import Path

import click

from openeval.cli import options
from openeval.cli._common import command, write_text
from openeval.errors import ResultFileError


@command(failing=(ResultFileError,))
@click.option("--input", "input_dir", required=True, type=click.Path(path_type=Path),
              help="Folder written by `openeval run --output-dir`.")
@click.option("--report-format", "--format", "report_format", default="markdown",
              show_default=True, metavar="NAME", help="Report format: markdown, json, junit, "
              "github, or any registered one.")
@options.output_file("Write the report to this file instead of stdout.")
def report(input_dir: Path, report_format: str, output_path: Path | None) -> None:
    """Render the results in --input as a report.

    Exit 0 when the report was written, 1 when a result file is malformed or the folder holds
    none, 2 on bad usage.
    """
    from openeval.report import get_reporter
    from openeval.results.files import read_results

    reporter = get_reporter(report_format)
    suite = read_results(input_dir)
    text = reporter.render(suite)
    if output_path is None:
        click.echo(text, nl=False)
        return
    write_text(output_path, text)

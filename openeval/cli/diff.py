"""``openeval diff BASE HEAD``: what got worse from one run's results to another's.

BASE and HEAD are result folders (``openeval run --output``, any version OpenEval reads,
openeval-core 0.2.1's included). The comparison prints as Markdown for a pull-request comment,
as JSON, or as GitHub annotations on the test case files of the cases that got worse.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from openeval.cli import options
from openeval.cli._common import command, write_text
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK

if TYPE_CHECKING:
    from openeval.results.diff import BaselinePolicy


@command()
@click.argument("base_dir", metavar="BASE", type=click.Path(path_type=Path))
@click.argument("head_dir", metavar="HEAD", type=click.Path(path_type=Path))
@click.option("--diff-format", "--format", "diff_format",
              type=click.Choice(["markdown", "json", "github"]), default="markdown",
              show_default=True,
              help="markdown for a pull-request comment, json for tools, github for "
                   "annotations on the test cases that got worse.")
@options.output_file("Write the comparison to this file instead of stdout.")
@options.tolerance
@options.grouped("policy", options.baseline_policy, options.allow_regressions,
                 options.allow_removed, options.fail_on_new_flaky)
@options.history
def diff(
    base_dir: Path,
    head_dir: Path,
    diff_format: str,
    output_path: Path | None,
    tolerance: float,
    policy: BaselinePolicy,
    history_dirs: tuple[Path, ...],
) -> None:
    """Compare the results in HEAD with the baseline results in BASE.

    Lists the cases that regressed (passed, now failed or errored), improved, still fail,
    appeared or disappeared; the flaky ones; the pass rate of each metric and check; and
    scores that dropped by more than --tolerance although their verdict held. Cases pair by
    their path in the suite (by task id only for results without case paths). Exit 0 when
    nothing got worse and no case disappeared (or with --allow-regressions, --allow-removed),
    and, with --fail-on-new-flaky, no case is newly flaky; 1 otherwise; 2 on bad usage, a
    folder that cannot be read, or two runs that share no case.
    """
    from openeval.cli.gates import compare, read_baseline, read_history
    from openeval.report.diff import DIFF_FORMATS, render_diff
    from openeval.results.files import read_results

    chosen = next(f for f in DIFF_FORMATS if f == diff_format)  # click checked the choice
    base = read_baseline(base_dir)
    head = read_results(head_dir)
    found = compare(base, head, tolerance, read_history(history_dirs))
    failing = policy.fails(found)
    text = render_diff(found, chosen, base=base_dir.as_posix(), head=head_dir.as_posix(),
                       failing=failing or not policy.allow_regressions)
    if output_path is None:
        click.echo(text, nl=False)
    else:
        write_text(output_path, text)
    raise SystemExit(EXIT_FAIL if failing else EXIT_OK)

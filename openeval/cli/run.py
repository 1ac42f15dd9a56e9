"""``openeval run``: score one case or a whole suite, and gate on the result (CONTRACT §4)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.errors import OpenEvalError, SuiteError

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.results import SuiteResult


def fail(error: OpenEvalError, code: int) -> NoReturn:
    """Print ``error`` as one line on stderr and exit with ``code``."""
    # One line, always: CI log parsers and the GitHub Action read the first line only.
    message = " ".join(str(error).split("\n"))
    click.echo(f"openeval: error: {message}", err=True)
    raise SystemExit(code)


def parse_metric_names(value: str | None) -> list[str] | None:
    """Return the names in a ``--metrics a,b`` value, or None when the option was not given."""
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise SuiteError("--metrics needs at least one metric name")
    return names


@click.command()
@click.option("--trace", "trace_path", type=click.Path(path_type=Path),
              help="Trace file of a single case (any supported format).")
@click.option("--testcase", "testcase_path", type=click.Path(path_type=Path),
              help="Test case file of a single case.")
@click.option("--suite", "suite_dir", type=click.Path(path_type=Path),
              help="Folder of cases to run (case folders, or testcases/ + traces/).")
@click.option("--output", "output_dir", type=click.Path(path_type=Path),
              help="Write one result file per case and summary.json into this folder.")
@click.option("--fail-under", type=click.FloatRange(0.0, 1.0),
              help="Pass the gate when the pass rate is at least this (0-1), even if some "
                   "metrics failed. An errored case still fails it.")
@click.option("--metrics", "metrics_option", metavar="A,B",
              help="Run only these metrics (comma-separated names).")
@click.option("--format", "trace_format", metavar="NAME",
              help="Read every trace with this adapter instead of detecting the format.")
@click.option("--agent-spec", metavar="MODULE:ATTR",
              help="The current agent, to compute Fixtura drift verdicts.")
@click.option("--max-decompressed-bytes", type=click.IntRange(min=1),
              help="Largest decompressed size accepted from a compressed trace.")
@click.option("--max-line-bytes", type=click.IntRange(min=1),
              help="Longest line accepted in a JSON Lines trace.")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path),
              help="Also write a JUnit XML report to this file.")
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def run(
    trace_path: Path | None,
    testcase_path: Path | None,
    suite_dir: Path | None,
    output_dir: Path | None,
    fail_under: float | None,
    metrics_option: str | None,
    trace_format: str | None,
    agent_spec: str | None,
    max_decompressed_bytes: int | None,
    max_line_bytes: int | None,
    junit_path: Path | None,
    quiet: bool,
) -> None:
    """Score one case (--trace + --testcase) or a suite (--suite DIR).

    Exit 0 when the gate passes, 1 when a metric failed, a case errored or the pass rate is
    under --fail-under, 2 on bad usage or (single case) a file that cannot be read.
    """
    if suite_dir is not None and (trace_path is not None or testcase_path is not None):
        raise click.UsageError("give either --suite, or --trace with --testcase, not both")
    from openeval.adapters.base import LoadOptions

    defaults = LoadOptions()
    options = LoadOptions(
        agent_spec=agent_spec,
        max_decompressed_bytes=max_decompressed_bytes or defaults.max_decompressed_bytes,
        max_line_bytes=max_line_bytes or defaults.max_line_bytes,
    )
    try:
        metric_names = parse_metric_names(metrics_option)
        if trace_format is not None:
            from openeval.adapters.registry import get_adapter

            get_adapter(trace_format)
        if suite_dir is not None:
            suite = _run_suite(suite_dir, metric_names, trace_format, options, fail_under, quiet)
        elif testcase_path is not None:
            suite = _run_single(
                testcase_path, trace_path, metric_names, trace_format, options, fail_under, quiet
            )
        else:
            raise click.UsageError("give --suite DIR, or --trace FILE with --testcase FILE")
        _write_outputs(suite, output_dir, junit_path)
    except OpenEvalError as exc:
        fail(exc, EXIT_USAGE)
    raise SystemExit(EXIT_OK if suite.gate_passed else EXIT_FAIL)


def _run_suite(
    suite_dir: Path,
    metric_names: list[str] | None,
    trace_format: str | None,
    options: LoadOptions,
    fail_under: float | None,
    quiet: bool,
) -> SuiteResult:
    from openeval.cli.console import print_suite, progress_bar
    from openeval.runner import run_suite

    with progress_bar(not quiet) as progress:
        suite = run_suite(
            suite_dir, metrics=metric_names, format=trace_format, options=options,
            fail_under=fail_under, progress=progress,
        )
    print_suite(suite, quiet=quiet)
    return suite


def _run_single(
    testcase_path: Path,
    trace_path: Path | None,
    metric_names: list[str] | None,
    trace_format: str | None,
    options: LoadOptions,
    fail_under: float | None,
    quiet: bool,
) -> SuiteResult:
    from openeval.cli.console import print_case, summary_line
    from openeval.results import SuiteResult
    from openeval.runner import evaluate_case, select_metrics

    case = evaluate_case(
        testcase_path, trace_path, metrics=select_metrics(metric_names), format=trace_format,
        options=options,
    )
    suite = SuiteResult(cases=(case,), fail_under=fail_under, metadata={})
    print_case(case, quiet=quiet)
    click.echo(summary_line(suite))
    return suite


def _write_outputs(suite: SuiteResult, output_dir: Path | None, junit_path: Path | None) -> None:
    if output_dir is not None:
        from openeval.result_files import write_results

        write_results(suite, output_dir)
    if junit_path is not None:
        from openeval.cli.report import write_text
        from openeval.report import render

        write_text(junit_path, render(suite, "junit"))

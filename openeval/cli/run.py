"""``openeval run``: score one case or a whole suite, and gate on the result (CONTRACT §4)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from openeval.cli import options
from openeval.cli._common import fail
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.errors import OpenEvalError, SuiteError

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.results.records import SuiteResult


def parse_metric_names(value: str | None) -> list[str] | None:
    """Return the names in a ``--metrics a,b`` value, or None when the option was not given."""
    if value is None:
        return None
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise SuiteError("--metrics needs at least one metric name")
    return names


def parse_reports(values: tuple[str, ...]) -> list[tuple[str, Path | None]]:
    """Return ``(format, path)`` for each ``--report FORMAT[=PATH]``; path None is stdout.

    Raises SuiteError naming an unknown format and listing the valid ones.
    """
    from openeval.report import get_reporter

    reports: list[tuple[str, Path | None]] = []
    for value in values:
        name, sep, path = value.partition("=")
        get_reporter(name)
        if sep and not path:
            raise SuiteError(f"--report {value}: give a file after '=' (or leave out '=')")
        reports.append((name, Path(path) if path and path != "-" else None))
    return reports


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
@options.trace_format
@options.read_limits
@click.option("--report", "report_options", multiple=True, metavar="FORMAT[=PATH]",
              help="Also render the results in FORMAT (markdown, json, junit, github, ...), "
                   "into PATH or onto stdout after the summary. Repeatable.")
@click.option("--junit", "junit_path", type=click.Path(path_type=Path),
              help="Also write a JUnit XML report to this file (same as --report junit=FILE).")
@click.option("--allow-outside-suite", is_flag=True,
              help="Read traces outside the suite folder too. Off by default: in a pull "
                   "request the test cases are the author's, and a 'trace' key or a link must "
                   "not reach other files on the runner.")
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
    report_options: tuple[str, ...],
    junit_path: Path | None,
    allow_outside_suite: bool,
    quiet: bool,
) -> None:
    """Score one case (--trace + --testcase) or a suite (--suite DIR).

    Exit 0 when the gate passes, 1 when a metric failed, a case errored or the pass rate is
    under --fail-under, 2 on bad usage or (single case) a file that cannot be read.
    """
    if suite_dir is not None and (trace_path is not None or testcase_path is not None):
        raise click.UsageError("give either --suite, or --trace with --testcase, not both")
    if suite_dir is None and testcase_path is None:
        raise click.UsageError("give --suite DIR, or --trace FILE with --testcase FILE")
    load = options.load_options(agent_spec, max_decompressed_bytes, max_line_bytes)
    try:
        metric_names = parse_metric_names(metrics_option)
        reports = parse_reports(report_options)
        if junit_path is not None:
            reports.append(("junit", junit_path))
        if trace_format is not None:
            from openeval.adapters.registry import get_adapter

            get_adapter(trace_format)
        if output_dir is not None:
            from openeval.results.files import prepare_output

            # Before the first case is scored: an interrupted run leaves no old verdict behind.
            prepare_output(output_dir)
        if suite_dir is not None:
            suite = _run_suite(
                suite_dir, metric_names, trace_format, load, fail_under, quiet,
                allow_outside_suite,
            )
        else:
            assert testcase_path is not None  # checked above; narrows the type for mypy
            suite = _run_single(
                testcase_path, trace_path, metric_names, trace_format, load, fail_under, quiet,
                allow_outside_suite,
            )
        _write_outputs(suite, output_dir, reports)
    except OpenEvalError as exc:
        fail(exc, EXIT_USAGE)
    raise SystemExit(EXIT_OK if suite.gate_passed else EXIT_FAIL)


def _run_suite(
    suite_dir: Path,
    metric_names: list[str] | None,
    trace_format: str | None,
    load: LoadOptions,
    fail_under: float | None,
    quiet: bool,
    allow_outside: bool,
) -> SuiteResult:
    from openeval.cli.console import print_suite, progress_bar
    from openeval.runner import run_suite

    with progress_bar(not quiet) as progress:
        suite = run_suite(
            suite_dir, metrics=metric_names, format=trace_format, options=load,
            fail_under=fail_under, progress=progress, allow_outside=allow_outside,
        )
    print_suite(suite, quiet=quiet)
    return suite


def _run_single(
    testcase_path: Path,
    trace_path: Path | None,
    metric_names: list[str] | None,
    trace_format: str | None,
    load: LoadOptions,
    fail_under: float | None,
    quiet: bool,
    allow_outside: bool,
) -> SuiteResult:
    from openeval.cli.console import print_case, summary_line
    from openeval.results.records import SuiteResult
    from openeval.runner import check_metric_selection
    from openeval.suite.evaluate import RunPlan, evaluate_case

    check_metric_selection(metric_names)
    case = evaluate_case(
        testcase_path, trace_path,
        plan=RunPlan.of(metric_names, trace_format, load, allow_outside=allow_outside),
    )
    suite = SuiteResult(cases=(case,), fail_under=fail_under, metadata={})
    print_case(case, quiet=quiet)
    click.echo(summary_line(suite))
    return suite


def _write_outputs(
    suite: SuiteResult, output_dir: Path | None, reports: list[tuple[str, Path | None]]
) -> None:
    from openeval.cli._common import write_text
    from openeval.report import render

    if output_dir is not None:
        from openeval.results.files import write_results

        write_results(suite, output_dir)
    for name, path in reports:
        text = render(suite, name)
        if path is None:
            click.echo(text, nl=False)
        else:
            write_text(path, text)

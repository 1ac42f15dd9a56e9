"""``openeval run``: score one case or a whole suite, and gate on the result
(docs/semantics.md#exit-codes).

Besides the pass-rate floor, the gate holds per-metric gates and a case-pass-rate floor, and
with ``--baseline`` the run is compared with an earlier one (proposals/0060).

A run that cannot finish ends in one line and a non-zero exit, never a traceback, and leaves
no verdict behind (proposals/0060, "When a process dies"): a worker process that died is
EXIT_FAIL; SIGINT (Ctrl-C) or SIGTERM stops the workers and exits 128 + the signal's number,
as shells do. ``--output`` folders are locked while a run writes them.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NoReturn

import click

from openeval.cli import options
from openeval.cli._common import command, one_line
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_SIGNAL_BASE
from openeval.errors import RunAborted, SuiteError

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.report.diff import DiffFormat
    from openeval.results.diff import ResultDiff
    from openeval.results.gates import GateRule
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


@dataclass(frozen=True)
class _Target:
    """What to score: one case (a test case, maybe its trace) or a suite folder."""

    trace_path: Path | None
    testcase_path: Path | None
    suite_dir: Path | None


def _target(trace_path: Path | None, testcase_path: Path | None, suite_dir: Path | None
            ) -> _Target:
    if suite_dir is not None and (trace_path is not None or testcase_path is not None):
        raise click.UsageError("give either --suite, or --trace with --testcase, not both")
    if suite_dir is None and testcase_path is None:
        raise click.UsageError("give --suite DIR, or --trace FILE with --testcase FILE")
    return _Target(trace_path, testcase_path, suite_dir)


def _reports(report_options: tuple[str, ...], junit_path: Path | None, html_path: Path | None
             ) -> list[tuple[str, Path | None]]:
    reports = parse_reports(report_options)
    if junit_path is not None:
        reports.append(("junit", junit_path))
    if html_path is not None:
        reports.append(("html", html_path))
    return reports


@command()
@options.grouped(
    "target", _target,
    click.option("--trace", "trace_path", type=click.Path(path_type=Path),
                 help="Trace file of a single case (any supported format)."),
    click.option("--testcase", "testcase_path", type=click.Path(path_type=Path),
                 help="Test case file of a single case."),
    click.option("--suite", "suite_dir", type=click.Path(path_type=Path),
                 help="Folder of cases to run (case folders, or testcases/ + traces/)."),
)
@options.output_dir("one result file per case and summary.json")
@click.option("--fail-under", type=click.FloatRange(0.0, 1.0),
              help="Pass the gate when the pass rate is at least this (0-1), even if some "
                   "metrics failed. An errored case still fails it.")
@click.option("--metrics", "metric_names", metavar="A,B",
              help="Run only these metrics (comma-separated names).")
@options.trace_format
@options.read_limits_and_code
@options.grouped(
    "reports", _reports,
    click.option("--report", "report_options", multiple=True, metavar="FORMAT[=PATH]",
                 help="Also render the results in FORMAT (markdown, json, junit, github, "
                      "html, ...), into PATH or onto stdout after the summary. Repeatable."),
    click.option("--junit", "junit_path", type=click.Path(path_type=Path),
                 help="Also write a JUnit XML report to this file (same as --report "
                      "junit=FILE)."),
    click.option("--html", "html_path", type=click.Path(path_type=Path),
                 help="Also write the HTML report to this file (same as --report html=FILE). "
                      "Keeps each trace's first steps in the results, as --keep-steps does."),
)
@click.option("--allow-outside-suite", is_flag=True,
              help="Read traces outside the suite folder too. Off by default: in a pull "
                   "request the test cases are the author's, and a 'trace' key or a link must "
                   "not reach other files on the runner.")
@click.option("--keep-steps", is_flag=True,
              help="Keep a bounded excerpt of each trace (its first 200 steps, final and "
                   "expected output) in the results, for the HTML report's step timeline and "
                   "output diff. On whenever an HTML report is written.")
@options.gate_flags("[gates] in openeval.toml may only raise it.")
@options.fail_under_cases
@options.trials_rule
@options.trust_config_gates
@options.baseline_options
@click.option("--workers", type=click.IntRange(min=1), metavar="N",
              help="Score a suite in N worker processes (default: one per CPU, up to 8, for "
                   "suites of 500 cases or more on 4 CPUs or more; else 1).")
@options.quiet
def run(
    target: _Target,
    output_dir: Path | None,
    fail_under: float | None,
    metric_names: str | None,
    trace_format: str | None,
    load: LoadOptions,
    reports: list[tuple[str, Path | None]],
    allow_outside_suite: bool,
    keep_steps: bool,
    gates: list[GateRule],
    fail_under_cases: float | None,
    trials_rule: str | None,
    trust_config_gates: bool,
    baseline: options.Baseline,
    workers: int | None,
    quiet: bool,
) -> None:
    """Score one case (--trace + --testcase) or a suite (--suite DIR).

    Exit 0 when the gate passes, 1 when a metric failed, a case errored, the pass rate is
    under --fail-under (or the case pass rate under --fail-under-cases), a per-metric gate
    failed, a case got worse than --baseline, or a worker process died; 2 on bad usage, an
    unreadable baseline, an output folder another run is writing, or (single case) a file that
    cannot be read; 130 or 143 when stopped by SIGINT or SIGTERM.
    """
    from openeval.scoring.collector import relaxed_collector

    with ExitStack() as held:
        held.enter_context(_signals_stop_the_run())
        # Around the writing too: the results stay alive until the last file is written.
        held.enter_context(relaxed_collector())
        try:
            from openeval.cli.gates import parse_diff_reports, read_baseline, read_history
            from openeval.runner import check_trials_rule

            metrics = parse_metric_names(metric_names)
            check_trials_rule(trials_rule)
            if target.suite_dir is None and trials_rule is not None:
                raise SuiteError("--trials-rule applies to cases with trials, found in a --suite")
            # Without --baseline-report there is no format to check: the comparison formats
            # (and the plugins that may add some) are not looked up.
            diff_reports = parse_diff_reports(baseline.reports) if baseline.reports else []
            if diff_reports and baseline.folder is None:
                raise SuiteError("--baseline-report needs --baseline DIR to compare with")
            if baseline.history and baseline.folder is None:
                raise SuiteError("--history needs --baseline DIR to compare with")
            # Read before any case is scored: a bad baseline stops the run at once.
            earlier = read_baseline(baseline.folder) if baseline.folder is not None else None
            history = read_history(baseline.history)
            if trace_format is not None:
                from openeval.adapters.registry import get_adapter

                get_adapter(trace_format)
            if output_dir is not None:
                from openeval.results.files import output_folder_lock, prepare_output

                # Held until the last file is written: a second run into it is refused.
                held.enter_context(output_folder_lock(output_dir))
                # Before the first case is scored: an interrupted run leaves no old verdict.
                prepare_output(output_dir)
            floors = _Floors(fail_under, fail_under_cases, tuple(gates), trust_config_gates)
            # The HTML case view draws the step timeline and the output diff from the excerpt.
            keep = keep_steps or any(name == "html" for name, _ in reports)
            if target.suite_dir is not None:
                suite = _run_suite(
                    target.suite_dir, metrics, trace_format, load, floors, quiet,
                    allow_outside_suite, trials_rule, workers, keep,
                )
            else:
                assert target.testcase_path is not None  # _target checked it
                suite = _run_single(
                    target.testcase_path, target.trace_path, metrics, trace_format, load,
                    floors, quiet, allow_outside_suite, keep,
                )
            for line in suite.metadata.get("ignored_settings", ()):
                click.echo(one_line(f"openeval: warning: {line}"), err=True)
            _write_outputs(suite, output_dir, reports)
            diff = None
            if earlier is not None and baseline.folder is not None:
                diff = _compare_with_baseline(
                    earlier, suite, baseline, history, output_dir, diff_reports, quiet,
                )
        except RunAborted as exc:
            raise RunAborted(_no_verdict(exc.message, output_dir)) from None
        except KeyboardInterrupt as exc:
            _stopped(exc, output_dir)
    regressed = diff is not None and baseline.policy.fails(diff)
    raise SystemExit(EXIT_OK if suite.gate_passed and not regressed else EXIT_FAIL)


class RunStopped(KeyboardInterrupt):
    """Raised in the main thread when a signal asks the run to stop.

    A KeyboardInterrupt, so that it passes every place that lets Ctrl-C through (user code is
    guarded against everything else, and one check's crash never stops a case).
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


_STOPPING_SIGNALS = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextmanager
def _signals_stop_the_run() -> Iterator[None]:
    """While the block runs, SIGINT, SIGTERM and SIGHUP raise RunStopped: the run unwinds (the
    engine stops its workers), where SIGTERM used to kill this process alone."""
    if threading.current_thread() is not threading.main_thread():  # handlers need the main one
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        # Once only: a second signal must not interrupt the stopping of the workers.
        for each in _STOPPING_SIGNALS:
            signal.signal(each, signal.SIG_IGN)
        raise RunStopped(signum)

    previous = {each: signal.signal(each, stop) for each in _STOPPING_SIGNALS}
    try:
        yield
    finally:
        for each, handler in previous.items():
            signal.signal(each, handler)


def _no_verdict(reason: str, output_dir: Path | None) -> str:
    where = f" (no summary.json in {output_dir.as_posix()})" if output_dir is not None else ""
    return f"{reason}; this run wrote no verdict{where}"


def _stopped(interrupt: KeyboardInterrupt, output_dir: Path | None) -> NoReturn:
    signum = interrupt.signum if isinstance(interrupt, RunStopped) else signal.SIGINT
    name = signal.Signals(signum).name
    message = _no_verdict(f"stopped by {name} before the run finished", output_dir)
    click.echo(f"openeval: error: {one_line(message)}", err=True)
    raise SystemExit(EXIT_SIGNAL_BASE + signum)


@dataclass(frozen=True)
class _Floors:
    """The gate's settings given on the command line."""

    fail_under: float | None
    fail_under_cases: float | None
    gates: tuple[GateRule, ...]
    trust_config: bool = False
    """``--trust-config-gates``: the configuration's gate lines may loosen these."""


def _compare_with_baseline(
    earlier: SuiteResult,
    suite: SuiteResult,
    baseline: options.Baseline,
    history: list[SuiteResult],
    output_dir: Path | None,
    reports: list[tuple[DiffFormat, Path | None]],
    quiet: bool,
) -> ResultDiff:
    from openeval.cli.console import print_diff
    from openeval.cli.gates import compare, write_diff_reports

    assert baseline.folder is not None  # the caller compares only with a baseline
    diff = compare(earlier, suite, baseline.tolerance, history)
    policy = baseline.policy
    print_diff(diff, baseline.folder.as_posix(), policy=policy, quiet=quiet)
    head = output_dir.as_posix() if output_dir is not None else None
    write_diff_reports(diff, reports, base=baseline.folder.as_posix(), head=head,
                       failing=policy.fails(diff) or not policy.allow_regressions)
    return diff


def _run_suite(
    suite_dir: Path,
    metric_names: list[str] | None,
    trace_format: str | None,
    load: LoadOptions,
    floors: _Floors,
    quiet: bool,
    allow_outside: bool,
    trials_rule: str | None,
    workers: int | None,
    keep_steps: bool,
) -> SuiteResult:
    from openeval.cli.console import print_suite, progress_bar
    from openeval.runner import run_suite

    with progress_bar(not quiet) as progress:
        suite = run_suite(
            suite_dir, metrics=metric_names, format=trace_format, options=load,
            fail_under=floors.fail_under, progress=progress, allow_outside=allow_outside,
            gates=floors.gates, fail_under_cases=floors.fail_under_cases,
            trials_rule=trials_rule, workers=workers, keep_steps=keep_steps,
            trust_config_gates=floors.trust_config,
        )
    print_suite(suite, quiet=quiet)
    return suite


def _run_single(
    testcase_path: Path,
    trace_path: Path | None,
    metric_names: list[str] | None,
    trace_format: str | None,
    load: LoadOptions,
    floors: _Floors,
    quiet: bool,
    allow_outside: bool,
    keep_steps: bool,
) -> SuiteResult:
    from openeval.cli.console import print_case, print_gates, summary_line
    from openeval.results.records import SuiteResult
    from openeval.runner import check_gate_names, check_metric_selection
    from openeval.suite.evaluate import RunPlan, evaluate_case

    check_metric_selection(metric_names)
    case = evaluate_case(
        testcase_path, trace_path,
        plan=RunPlan.of(metric_names, trace_format, load, allow_outside=allow_outside,
                        keep_steps=keep_steps),
    )
    suite = SuiteResult(
        cases=(case,), fail_under=floors.fail_under, metadata={},
        gates=tuple((name, line) for name, line, _ in floors.gates),
        fail_under_cases=floors.fail_under_cases,
    )
    check_gate_names(suite, {name: given for name, _, given in floors.gates})
    print_case(case, quiet=quiet)
    print_gates(suite, quiet=quiet)
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

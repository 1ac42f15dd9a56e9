"""``openeval score``: run reference-free checks over every production trace, streamed.

The pipeline is :func:`openeval.production.score_to_folder` (inputs, plan, engine, result files,
gate); this command parses its flags, draws the progress bar and prints the per-check table,
the gates and the summary line (proposals/0080-production-scoring.md,
proposals/0090-pipeline-layout.md):

- exit 0 when something was scored, every line was read, no check errored, and either no
  trace failed or, with ``--fail-under-metric NAME=X``, every named check's pass rate reaches
  its line (failures of checks with no gate are then reported, not gated);
- exit 1 otherwise: a broken pipeline (an unreadable line, an errored check) never passes;
- exit 2 on bad usage: a checks file that configures nothing, a glob matching nothing, a
  gate on a check the plan does not run, an output folder that cannot be written, the Ray
  engine without Ray.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from openeval.cli import options
from openeval.cli._common import command, one_line
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK
from openeval.printable import printable

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.production.pipeline import ScoreOutcome
    from openeval.results.gates import GateRule

RESULTS_NAME = "results.jsonl"
_PROGRESS_EVERY = 0.25
"""Seconds between two redraws of the progress bar."""


@command()
@click.argument("traces", nargs=-1, required=True, metavar="TRACES...")
@click.option("--checks", "checks_path", type=click.Path(path_type=Path),
              help="Checks to run: TOML with [[checks]] tables or JSON {\"checks\": [...]}, "
                   "the same entries as a test case's checks. Default: PII, refusal, tool "
                   "loop, failed steps, tool-call validity, token/latency budget.")
@options.output_dir("results.jsonl (one row per trace) and summary.json")
@click.option("--results-name", default=RESULTS_NAME, show_default=True, metavar="NAME",
              help="File name of the rows in --output-dir; ending in .zst writes it "
                   "zstd-compressed (results.jsonl.zst).")
@click.option("--sample", type=click.IntRange(min=1), metavar="N",
              help="Score only N traces: those with the smallest hash of their trace id (the "
                   "same N on every run and engine). The others are counted, not scored. "
                   "Whoever picks the trace ids can steer which are picked: with untrusted "
                   "ids, score every trace.")
@options.gate_flags("With gates, failures of other checks do not fail the run.")
@click.option("--engine", default="local", show_default=True, metavar="NAME",
              help="Score in this process (local), on Ray Data (ray), or on a registered "
                   "engine.")
@click.option("--address", metavar="ADDR",
              help="Ray cluster to connect to (--engine ray); default: start a local one.")
@options.trace_format
@options.read_limits_and_code
@options.quiet
def score(
    traces: tuple[str, ...],
    checks_path: Path | None,
    output_dir: Path | None,
    results_name: str,
    sample: int | None,
    gates: list[GateRule],
    engine: str,
    address: str | None,
    trace_format: str | None,
    load: LoadOptions,
    quiet: bool,
) -> None:
    """Score every trace in TRACES (files, folders, globs; many traces per file).

    Exit 0 when every line was read, no check errored, and no trace failed (or every
    --fail-under-metric gate holds); 1 otherwise; 2 on bad usage.
    """
    if address is not None and engine != "ray":
        raise click.UsageError("--address applies to --engine ray")
    from openeval.production.pipeline import score_to_folder
    from openeval.scoring.collector import relaxed_collector

    started = time.monotonic()
    with _progress(not quiet) as advance, relaxed_collector():
        outcome = score_to_folder(
            traces, checks=checks_path, output=output_dir, results_name=results_name,
            gates=gates, sample=sample, engine=engine, address=address,
            trace_format=trace_format, options=load, progress=advance,
        )
    _print_summary(outcome, time.monotonic() - started, quiet)
    raise SystemExit(EXIT_OK if outcome.passed else EXIT_FAIL)


@contextmanager
def _progress(enabled: bool) -> Iterator[Callable[[int], None] | None]:
    """Yield a callback drawing traces done and traces/s on stderr, or None (not a terminal)."""
    import sys

    if not enabled or not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn

    started = time.monotonic()
    last = [0.0]
    with Progress(SpinnerColumn(), TextColumn("scoring {task.completed} traces"),
                  TextColumn("{task.fields[rate]} traces/s"),
                  console=Console(stderr=True), transient=True, auto_refresh=False) as bar:
        task = bar.add_task("traces", total=None, rate="-")

        def advance(done: int) -> None:
            now = time.monotonic()
            if now - last[0] >= _PROGRESS_EVERY:
                last[0] = now
                rate = done / (now - started) if now > started else 0.0
                bar.update(task, completed=done, rate=f"{rate:,.0f}")
                bar.refresh()

        yield advance


def _print_summary(outcome: ScoreOutcome, elapsed: float, quiet: bool) -> None:
    """Print the per-check table, the gates and one summary line. Every name and text from
    the checks file or the traces is escaped: none can forge a CI workflow command."""
    from openeval.results.summary import percent

    summary = outcome.summary
    if not quiet:
        names = [printable(name) for name in outcome.plan.names]
        width = max((len(name) for name in names), default=5)
        for name, shown in zip(outcome.plan.names, names, strict=True):
            counts = summary.checks.get(name)
            if counts is None:
                continue
            click.echo(
                f"  {shown:<{width}}  {percent(counts.pass_rate):>6}  pass {counts.passed}  "
                f"fail {counts.failed}  error {counts.errored}  n.a. {counts.not_applicable}")
        for text in summary.first_unreadable[:5]:
            click.echo(f"  unreadable: {one_line(text)}")
    for rule, gate in outcome.verdict.gates:
        if not quiet or not gate.passed:
            click.echo(one_line(
                f"gate {rule.given}: {percent(gate.figure)} {'>=' if gate.passed else '<'} "
                f"{rule.line:.0%} {'(held)' if gate.passed else '(FAILED)'}"))
    rate = f", {summary.rows / elapsed:,.0f} traces/s" if elapsed > 0 and summary.rows else ""
    statuses = summary.statuses
    click.echo(
        f"openeval score: {summary.scored} scored ({statuses['passed']} passed, "
        f"{statuses['failed']} failed, {statuses['error']} errored, {statuses['n.a.']} n.a.), "
        f"{summary.not_sampled} not sampled, {summary.unreadable} unreadable in "
        f"{elapsed:.1f}s{rate}: {'PASS' if outcome.passed else 'FAIL'}")

"""``openeval score``: run reference-free checks over every production trace, streamed.

Reads files, folders and globs of traces (many per file), scores each with the checks file's
checks (or the default ones), writes ``results.jsonl`` (one row per input trace or unreadable
line, in input order) and then ``summary.json``, and gates like ``run`` (CONTRACT §4, §10;
proposals/0080-production-scoring.md):

- exit 0 when something was scored, every line was read, no check errored, and either no
  trace failed or, with ``--fail-under-check NAME=X``, every named check's pass rate reaches
  its line (failures of checks with no gate are then reported, not gated);
- exit 1 otherwise: a broken pipeline (an unreadable line, an errored check) never passes;
- exit 2 on bad usage: a checks file that configures nothing, a glob matching nothing, a
  gate on a check the plan does not run, an output folder that cannot be written, the Ray
  engine without Ray.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import click

from openeval.cli import options
from openeval.cli._common import fail, one_line
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.errors import MissingDependencyError, OpenEvalError, SuiteError

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.production.plan import ScorePlan
    from openeval.production.summary import ScoreSummary
    from openeval.runner import Gate

RESULTS_NAME = "results.jsonl"
SUMMARY_NAME = "summary.json"
_PROGRESS_EVERY = 0.25
"""Seconds between two redraws of the progress bar."""


@click.command()
@click.argument("traces", nargs=-1, required=True, metavar="TRACES...")
@click.option("--checks", "checks_path", type=click.Path(path_type=Path),
              help="Checks to run: TOML with [[checks]] tables or JSON {\"checks\": [...]}, "
                   "the same entries as a test case's checks. Default: PII, refusal, tool "
                   "loop, failed steps, tool-call validity, token/latency budget.")
@click.option("--output", "output_dir", type=click.Path(path_type=Path),
              help="Write results.jsonl (one row per trace) and summary.json into this folder.")
@click.option("--results-name", default=RESULTS_NAME, show_default=True, metavar="NAME",
              help="File name of the rows in --output; ending in .zst writes it "
                   "zstd-compressed (results.jsonl.zst).")
@click.option("--sample", type=click.IntRange(min=1), metavar="N",
              help="Score only N traces: those with the smallest hash of their trace id (the "
                   "same N on every run and engine). The others are counted, not scored.")
@click.option("--fail-under-check", "fail_under_check", multiple=True, metavar="NAME=X",
              help="Gate on one check: its pass rate over the traces must reach X (0-1). "
                   "Repeatable. With gates, failures of other checks do not fail the run.")
@click.option("--engine", type=click.Choice(["local", "ray"]), default="local",
              show_default=True, help="Score in this process, or on Ray Data.")
@click.option("--address", metavar="ADDR",
              help="Ray cluster to connect to (--engine ray); default: start a local one.")
@options.trace_format
@options.read_limits
@options.code_options
@click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
def score(
    traces: tuple[str, ...],
    checks_path: Path | None,
    output_dir: Path | None,
    results_name: str,
    sample: int | None,
    fail_under_check: tuple[str, ...],
    engine: str,
    address: str | None,
    trace_format: str | None,
    agent_spec: str | None,
    max_decompressed_bytes: int | None,
    max_line_bytes: int | None,
    allow_code: bool,
    allow_code_modules: tuple[str, ...],
    quiet: bool,
) -> None:
    """Score every trace in TRACES (files, folders, globs; many traces per file).

    Exit 0 when every line was read, no check errored, and no trace failed (or every
    --fail-under-check gate holds); 1 otherwise; 2 on bad usage.
    """
    if address is not None and engine != "ray":
        raise click.UsageError("--address applies to --engine ray")
    load = options.load_options(agent_spec, max_decompressed_bytes, max_line_bytes, allow_code,
                                allow_code_modules)
    try:
        from openeval.cli.gates import parse_gates
        from openeval.production.plan import load_checks
        from openeval.production.records import expand_inputs

        gates = parse_gates(fail_under_check, flag="--fail-under-check")
        # Check files only from inside the working folder (the checkout), links resolved.
        plan = load_checks(checks_path, code_policy=load.code.confined_to(os.getcwd()))
        _check_gate_names(gates, plan)
        if trace_format is not None:
            from openeval.adapters.registry import get_adapter

            get_adapter(trace_format)
        _check_results_name(results_name)
        files = expand_inputs(list(traces))
        rows = _rows(engine, files, plan, sample, address, trace_format, load)
        started = time.monotonic()
        summary = _score_into(rows, output_dir, results_name, not quiet)
        elapsed = time.monotonic() - started
    except OpenEvalError as exc:
        fail(exc, EXIT_USAGE)
    passed = _print_summary(summary, plan, gates, elapsed, quiet)
    raise SystemExit(EXIT_OK if passed else EXIT_FAIL)


def _check_gate_names(gates: list[Gate], plan: ScorePlan) -> None:
    from openeval.registry import unknown_name

    for name, _, given in gates:
        if name not in plan.names:
            raise SuiteError(f"{given}: " + unknown_name("check", name, plan.names))


def _check_results_name(name: str) -> None:
    if not name or "/" in name or "\\" in name or name.startswith(".") or name == SUMMARY_NAME:
        raise SuiteError(f"--results-name {name!r}: expected a plain file name such as "
                         f"{RESULTS_NAME} or {RESULTS_NAME}.zst")


def _rows(
    engine: str,
    files: list[Path],
    plan: ScorePlan,
    sample: int | None,
    address: str | None,
    trace_format: str | None,
    load: LoadOptions,
) -> Iterator[dict[str, Any]]:
    """Return the rows of the run, lazily, from the engine asked for."""
    if engine == "ray":
        return _ray_rows(files, plan, sample, address, trace_format, load)
    from openeval.production.engine import local_rows

    return local_rows(files, plan, sample=sample, trace_format=trace_format, options=load)


def _ray_rows(
    files: list[Path],
    plan: ScorePlan,
    sample: int | None,
    address: str | None,
    trace_format: str | None,
    load: LoadOptions,
) -> Iterator[dict[str, Any]]:
    from importlib import import_module

    try:
        module = import_module("openeval.distributed.ray")
    except ModuleNotFoundError as exc:
        if exc.name == "ray" or (exc.name or "").startswith("ray."):
            raise MissingDependencyError(
                '--engine ray needs Ray: pip install "openeval-core[ray]"') from None
        raise SuiteError("--engine ray: this build of OpenEval has no Ray engine "
                         f"({exc.name} is missing)") from None
    extra: dict[str, Any] = {}
    if trace_format is not None:
        extra["trace_format"] = trace_format
    if load != type(load)():
        extra["options"] = load
    rows: Iterator[dict[str, Any]] = module.score_rows(
        files, plan, address=address, sample=sample, **extra)
    return rows


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


def _score_into(
    rows: Iterator[dict[str, Any]], output_dir: Path | None, results_name: str,
    show_progress: bool,
) -> ScoreSummary:
    """Count every row, writing it to ``output_dir/results_name`` as it comes; then write
    ``summary.json``. Each file is written beside its place and renamed over it, summary
    last: a summary present means its results file is complete."""
    from openeval.production.rows import row_line
    from openeval.production.summary import ScoreSummary

    summary = ScoreSummary()
    with ExitStack() as held:
        if output_dir is not None:
            from openeval.results.files import output_folder_lock

            # Held until summary.json is written: a second run into the folder is refused.
            held.enter_context(output_folder_lock(output_dir))
        with _progress(show_progress) as advance, _results_writer(output_dir, results_name) as out:
            for done, row in enumerate(rows, 1):
                summary.add(row)
                if out is not None:
                    out(row_line(row))
                if advance is not None:
                    advance(done)
        if output_dir is not None:
            _write_summary(output_dir / SUMMARY_NAME, summary)
    return summary


@contextmanager
def _results_writer(
    output_dir: Path | None, name: str
) -> Iterator[Callable[[bytes], None] | None]:
    if output_dir is None:
        yield None
        return
    final = _prepare(output_dir, name)
    temporary = final.with_name(f".{final.name}.tmp")
    try:
        with _open_results(temporary, name.lower().endswith(".zst")) as stream:

            def write(data: bytes) -> None:
                stream.write(data)

            yield write
        os.replace(temporary, final)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise OpenEvalError(f"cannot write results: {exc.strerror}",
                            source=exc.filename or final) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextmanager
def _open_results(path: Path, compressed: bool) -> Iterator[IO[bytes]]:
    from openeval.results.files import open_new_file

    with open_new_file(path) as raw:
        if not compressed:
            yield raw
            return
        try:
            import zstandard
        except ImportError:
            raise MissingDependencyError(
                f'writing {path.name[1:-4]} needs zstandard: pip install '
                '"openeval-core[fixtura]"') from None
        with zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False) as stream:
            yield stream


def _prepare(output_dir: Path, name: str) -> Path:
    """Make the folder and remove the previous run's summary first, so an interrupted run
    never leaves an old summary reading as current; return the results file's path."""
    from openeval.results.files import refuse_linked_folder

    refuse_linked_folder(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / SUMMARY_NAME).unlink(missing_ok=True)
    except OSError as exc:
        raise OpenEvalError(f"cannot prepare the results folder: {exc.strerror}",
                            source=exc.filename or output_dir) from None
    return output_dir / name


def _write_summary(path: Path, summary: ScoreSummary) -> None:
    from openeval.jsonio import dump_json
    from openeval.results.files import write_whole

    try:
        write_whole(path, dump_json(summary.to_json()))
    except OSError as exc:
        raise OpenEvalError(f"cannot write: {exc.strerror}", source=path) from None


def _print_summary(
    summary: ScoreSummary, plan: ScorePlan, gates: list[Gate], elapsed: float, quiet: bool
) -> bool:
    """Print the per-check table, the gates and one summary line; return whether it passed."""
    from openeval.results.summary import percent

    held = True
    if not quiet:
        width = max((len(name) for name in plan.names), default=5)
        for name in plan.names:
            counts = summary.checks.get(name)
            if counts is None:
                continue
            click.echo(
                f"  {name:<{width}}  {percent(counts.pass_rate):>6}  pass {counts.passed}  "
                f"fail {counts.failed}  error {counts.errored}  n.a. {counts.not_applicable}")
        for text in summary.first_unreadable[:5]:
            click.echo(f"  unreadable: {one_line(text)}")
    for name, line, given in gates:
        found = summary.pass_rate(name)
        ok = found is not None and found >= line
        held = held and ok
        if not quiet or not ok:
            click.echo(f"gate {given}: {percent(found)} {'>=' if ok else '<'} {line:.0%} "
                       f"{'(held)' if ok else '(FAILED)'}")
    if gates:
        passed = held and summary.unreadable == 0 and summary.statuses["error"] == 0
    else:
        passed = summary.clean
    passed = passed and summary.scored > 0
    rate = f", {summary.rows / elapsed:,.0f} traces/s" if elapsed > 0 and summary.rows else ""
    statuses = summary.statuses
    click.echo(
        f"openeval score: {summary.scored} scored ({statuses['passed']} passed, "
        f"{statuses['failed']} failed, {statuses['error']} errored, {statuses['n.a.']} n.a.), "
        f"{summary.not_sampled} not sampled, {summary.unreadable} unreadable in "
        f"{elapsed:.1f}s{rate}: {'PASS' if passed else 'FAIL'}")
    return passed

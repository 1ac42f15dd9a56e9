"""Running a suite: discover its cases, score them on an engine, return one :class:`SuiteResult`.

This module is the front door; the rooms behind it are :mod:`openeval.suite.discover` (which
cases a folder holds), :mod:`openeval.suite.config` (the settings its ``openeval.toml`` files
share out), :mod:`openeval.suite.evaluate` (one case end to end),
:mod:`openeval.scoring` (the pure scorer) and :mod:`openeval.suite.engines` (where cases are
scored).
Every case found appears in the result: a case whose files cannot be read is an errored
:class:`CaseResult` holding the reason, and a check that crashes is an errored check result.
Nothing here prints: the CLI passes a ``progress`` callback to draw its bar.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openeval.compat.legacy import run_eval, with_021_form
from openeval.errors import SuiteError
from openeval.registry import unknown_name
from openeval.results.gates import GateRule
from openeval.results.records import CaseResult, SuiteResult
from openeval.suite.discover import CaseSpec, discover, display_path, is_trace_name
from openeval.suite.evaluate import RunPlan, evaluate_case, run_case

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.suite.config import SuiteConfig
    from openeval.suite.engines.base import Engine

Progress = Callable[[int, int, CaseResult], None]
"""Called after each case with ``(cases done, cases in total, the case's result)``."""


def check_metric_selection(names: Sequence[str] | None) -> None:
    """Return None when every name in ``names`` is a registered metric.

    Raises SuiteError naming an unknown metric and listing the valid ones.
    """
    if names is None:
        return
    from openeval.metrics.registry import metric_names

    known = metric_names()
    for name in names:
        if name not in known:
            raise SuiteError(unknown_name("metric", name, known))


def check_trials_rule(rule: str | None) -> None:
    """Return None when ``rule`` is None or a valid trials rule; raise SuiteError otherwise."""
    if rule is None:
        return
    from openeval.results.trials import TrialsRule

    try:
        TrialsRule.parse(rule)
    except ValueError as exc:
        raise SuiteError(f"--trials-rule: {exc}") from None


Gate = GateRule
"""The old name of :class:`openeval.results.gates.GateRule`, a per-metric gate as the run
receives it: name, line, and where it was given (for errors). A plain ``(name, line, given)``
tuple still works."""


def check_gate_names(suite: SuiteResult, where: Mapping[str, str]) -> None:
    """Return None when every gate of ``suite`` names a metric or check of the run.

    Raises SuiteError naming the gate, where it was given (``where``: name -> origin) and the
    valid names. A run in which nothing was scored names nothing, so its gates are left to
    fail (the errored cases already fail the run, with their reasons).
    """
    summary = suite.summary
    if not summary.per_check:
        return
    for name in summary.unknown_gates():
        raise SuiteError(
            f"{where.get(name, 'gate')}: no metric or check named {name!r} in this run; "
            f"expected one of: {', '.join(summary.per_check)}"
        )


def ignored_run_settings(config: SuiteConfig) -> list[str]:
    """Return one line per configuration file below the suite root whose run settings
    (``fail_under``, ``fail_under_cases``, gates) this run does not apply, naming them: they
    apply only when that folder is the suite being run."""
    by_file: dict[str, list[str]] = {}
    for key, _, origin in config.ignored():
        by_file.setdefault(origin.source, []).append(key)
    return [f"{source}: {', '.join(keys)} not applied: run settings apply only from the suite "
            "root's configuration (run that folder as the suite to use them)"
            for source, keys in sorted(by_file.items())]


@with_021_form
def run_suite(
    suite_dir: str | Path,
    /,
    *,
    metrics: Sequence[str] | None = None,
    format: str | None = None,
    options: LoadOptions | None = None,
    fail_under: float | None = None,
    progress: Progress | None = None,
    workers: int | None = None,
    engine: Engine | None = None,
    allow_outside: bool = False,
    gates: Sequence[Gate] = (),
    fail_under_cases: float | None = None,
    trials_rule: str | None = None,
    keep_steps: bool = False,
    trust_config_gates: bool = False,
) -> SuiteResult:
    """Return the results of every case under ``suite_dir``, in sorted path order.

    ``metrics`` narrows the registered metrics by name (None for all); ``format`` forces a
    trace adapter. ``engine`` scores the cases (default: a pool of ``workers`` processes when
    given, else a pool only where it pays (see
    :func:`~openeval.suite.engines.local.pool_size`), else this process); the result is the
    same either way. Traces are read only inside ``suite_dir`` (links resolved) unless
    ``allow_outside``.

    The suite's configuration files (``openeval.toml``, proposals/0060) give every case its
    defaults and the run its ``fail_under``, ``fail_under_cases`` and gates; the arguments win
    over them (``gates``, ``(name, line, where given)``, name by name). ``trials_rule`` judges
    every case with trials. ``keep_steps`` keeps a bounded excerpt of each trace in its result
    (the HTML report's step timeline and output diff).

    A configuration may only tighten the gate the arguments give (``openeval.suite.gates``,
    proposals/0162-config-gates-only-tighten.md): a ``fail_under`` when the arguments give none
    (the default "every case passes"), or a line lower than the argument's, is not applied and
    the gate's reason says so, unless ``trust_config_gates``. Raises SuiteError when the folder
    holds no case, a metric name or the trials rule is unknown, or a gate names no metric or
    check of the run.

    ``run_suite(path, [metric objects])``, the openeval-core 0.2.1 form, still works (see
    :func:`openeval.compat.legacy.with_021_form`): it warns (DeprecationWarning) and returns
    0.2.1's ``{task_id: {"task_id", "metrics"}}`` dict.
    """
    from openeval.suite.config import load_suite_config
    from openeval.suite.discover import SuiteTree
    from openeval.suite.engines.local import default_engine

    check_metric_selection(metrics)
    check_trials_rule(trials_rule)
    if format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(format)
    tree = SuiteTree.walk(suite_dir)  # one walk for the cases and the configuration files
    specs = discover(suite_dir, tree=tree)
    config = load_suite_config(suite_dir, tree=tree)
    from openeval.suite.gates import merge_gates

    merged = merge_gates(config.run_settings(), fail_under=fail_under,
                         fail_under_cases=fail_under_cases, gates=gates,
                         trusted=trust_config_gates)
    fail_under, fail_under_cases = merged.fail_under, merged.fail_under_cases
    lines, where = merged.lines, merged.where
    plan = RunPlan.of(metrics, format, options, confine_to=suite_dir, allow_outside=allow_outside,
                      config=config, trials_rule=trials_rule, keep_steps=keep_steps)
    chosen = engine or default_engine(len(specs), workers)
    cases: list[CaseResult] = []
    for case in chosen.run(plan, specs):
        cases.append(case)
        if progress is not None:
            progress(len(cases), len(specs), case)
    # Read as UTF-8 whatever the locale, as case ids are: the summary is the same everywhere.
    metadata: dict[str, Any] = {"suite": display_path(Path(suite_dir))}
    if metrics is not None:
        metadata["metrics"] = list(metrics)
    if format is not None:
        metadata["format"] = format
    if config.files:
        metadata["config"] = [Path(os.path.relpath(f, suite_dir)).as_posix()
                              for f in config.files]
    ignored = ignored_run_settings(config)
    if ignored:
        metadata["ignored_settings"] = ignored
    if trials_rule is not None:
        metadata["trials_rule"] = trials_rule
    # Recorded so that `openeval report` and `diff` word the gate as the run did.
    if merged.sources:
        metadata["gate_sources"] = dict(merged.sources)
    if merged.notes:
        metadata["gate_notes"] = list(merged.notes)
    suite = SuiteResult(
        cases=tuple(cases), fail_under=fail_under, metadata=metadata,
        gates=tuple(lines.items()), fail_under_cases=fail_under_cases,
        gate_sources=merged.sources, gate_notes=merged.notes,
    )
    check_gate_names(suite, where)
    return suite


__all__ = [
    "CaseSpec",
    "Gate",
    "Progress",
    "RunPlan",
    "check_gate_names",
    "check_metric_selection",
    "check_trials_rule",
    "discover",
    "evaluate_case",
    "is_trace_name",
    "run_case",
    "run_eval",
    "run_suite",
]

"""The rules for what a test case or a configuration names, written once.

A name that matches nothing, and a value that configures nothing, must be an error naming
where it is written, never a setting that silently does nothing: a typo would otherwise turn a
check off and the case green. Three readers apply these rules, each raising its own error kind
with the same words: :mod:`openeval.testcase_file` (a test case file), the suite configuration
(:mod:`openeval.suite.config`, each ``openeval.toml``) and :func:`openeval.scoring.compile_plan`
(the case as it will run, configuration merged in). The rules
(proposals/0101-one-validation-rule.md):

1. every name in ``metrics`` and ``thresholds`` is a registered metric;
2. a threshold configures a metric that runs and has a pass line (``fixture_freshness`` is a
   verdict without one);
3. an expectation (``expected_tool_calls``, ``expected_final_state``, ... see
   :data:`EXPECTATION_READERS`) is read by a metric that runs: ``metrics = ["divergence_score"]``
   beside ``expected_tool_calls`` would otherwise drop every expected call without a word.
   A case with its own code checks, or with a metric or check that is not built in, is left
   alone here: that code may read any key.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from openeval.errors import OpenEvalError
from openeval.registry import unknown_name

ErrorAt = Callable[[str, str], OpenEvalError]
"""Build the caller's error from a message and the JSON path (or key) it is about."""

EXPECTATION_READERS: dict[str, tuple[str, ...]] = {
    "expected_tool_calls": ("tool_selection_accuracy", "argument_correctness", "step_efficiency",
                            "trajectory_match"),
    "expected_final_state": ("goal_completion_rate",),
    "expected_output_contains": ("output_contains",),
    "max_steps": ("step_budget",),
    "timeout_seconds": ("step_budget",),
    "optimal_steps": ("step_efficiency",),
    "trajectory": ("trajectory_match",),
    "state": ("state_diff",),
    "turns": ("turn_expectations",),
}
"""Each expectation key of a test case and the built-in metrics that read it. (A check entry
reads its own settings and ``expected_output``, which no metric reads, so that key is not
here.)"""

def check_metric_names(
    selected: Sequence[str] | None, thresholds: Iterable[str], *, error: ErrorAt
) -> None:
    """Raise ``error`` at the first name of ``metrics``/``thresholds`` breaking rule 1 or 2.

    ``selected`` is the ``metrics`` list as written (None: every metric runs); the locations
    are ``metrics[i]`` and ``thresholds.NAME``.
    """
    from openeval.metrics.registry import metric_class, metric_names

    registered = metric_names()
    for i, name in enumerate(selected or ()):
        if name not in registered:
            raise error(unknown_name("metric", name, registered), f"metrics[{i}]")
    for name in thresholds:
        where = f"thresholds.{name}"
        if name not in registered:
            raise error(unknown_name("metric", name, registered), where)
        if selected is not None and name not in selected:
            raise error(f"configures nothing: the 'metrics' list leaves out {name!r}; add it "
                        "there or remove this threshold", where)
        if metric_class(name).default_threshold is None:
            raise error(f"configures nothing: {name} is a verdict with no pass line; remove "
                        "this threshold", where)


def unread_expectations(
    values: Mapping[str, Any], selected: Sequence[str] | None,
    checks: Sequence[Mapping[str, Any]] = (),
) -> list[str]:
    """Return the expectation keys set in ``values`` that no metric of ``selected`` reads.

    ``values`` maps test case keys to their values (a document, or a test case's fields); a
    key counts as set when its value is neither None nor empty. Returns [] when ``selected`` is
    None (every metric runs), or when a check entry or metric is code OpenEval cannot see
    into (rule 3).
    """
    if selected is None or _runs_foreign_code(selected, checks):
        return []
    chosen = set(selected)
    return [
        key for key, readers in EXPECTATION_READERS.items()
        if values.get(key) not in (None, [], {}) and not chosen.intersection(readers)
    ]


def check_expectations(
    values: Mapping[str, Any], selected: Sequence[str] | None,
    checks: Sequence[Mapping[str, Any]] = (), *, error: ErrorAt,
) -> None:
    """Raise ``error`` at the first expectation no selected metric reads (rule 3)."""
    for key in unread_expectations(values, selected, checks):
        readers = ", ".join(EXPECTATION_READERS[key])
        raise error(f"configures nothing: no metric in 'metrics' reads {key!r} (read by "
                    f"{readers}); add one of them to 'metrics' or remove this key", key)


def _runs_foreign_code(selected: Sequence[str], checks: Sequence[Mapping[str, Any]]) -> bool:
    from openeval.checks.registry import CHECK_NAMES
    from openeval.metrics.registry import BUILTIN_METRICS

    if any(name not in BUILTIN_METRICS for name in selected):
        return True
    return any("code" in entry or entry.get("check") not in CHECK_NAMES for entry in checks
               if isinstance(entry, Mapping))


def check_turn_checks(turns: Any, *, source: Any = None) -> None:
    """Raise TestCaseError at ``turns[n].checks[i]`` (the setting appended when one is at
    fault) for a turn's check entry naming an unknown check or setting, a value of the wrong
    type, or settings no trace can satisfy: the same rules as the case's own ``checks``. The
    entries' shape is already checked (:func:`openeval.matching.validate.check_turns`)."""
    from openeval.checks.registry import compile_settings, probe_settings
    from openeval.metrics.turns import CHECK_ENTRY_KEYS
    from openeval.models import EvalTestCase

    if not isinstance(turns, list):
        return
    empty = EvalTestCase(task_id="")
    for n, entry in enumerate(turns):
        if not isinstance(entry, Mapping):
            continue
        for i, check in enumerate(entry.get("checks") or []):
            where = f"turns[{n}].checks[{i}]"
            kind = check["check"]
            settings = {k: v for k, v in check.items() if k not in CHECK_ENTRY_KEYS}
            arguments = compile_settings(kind, settings, source=source, location=where)
            probe_settings(kind, arguments, empty, source=source, location=where)

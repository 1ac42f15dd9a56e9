"""A test case compiled, once, into the plan of check instances that score it.

:func:`compile_plan` turns an :class:`~openeval.models.EvalTestCase` into a :class:`CasePlan`:
one :class:`~openeval.results.records.CheckSpec` per metric the case runs (its ``metrics`` key,
narrowed by the run's own selection), then one per entry of its ``checks`` list. Everything
that could configure nothing is refused here, naming the JSON path, so a typo never silently
disables a check:

- a ``thresholds`` key for a metric the case does not run, or for a verdict-style metric
  (``fixture_freshness``) that has no pass line;
- a check entry naming an unknown check, an unknown setting, or a setting of the wrong type;
- two check entries showing under the same name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.errors import OpenEvalError, TestCaseError
from openeval.models import EvalTestCase
from openeval.registry import check_settings, unknown_name
from openeval.results.records import CheckSpec

ENTRY_KEYS = ("check", "code", "name", "threshold")
"""The keys of a check entry that are not settings of the check."""


@dataclass(frozen=True)
class CasePlan:
    """What to run on a case's trace: the test case and its check instances, in order."""

    test_case: EvalTestCase
    checks: tuple[CheckSpec, ...]
    denied_when: tuple[re.Pattern[str], ...] = ()
    """The case's denial rule, compiled (see :mod:`openeval.scoring.denials`)."""


def compile_plan(
    test_case: EvalTestCase,
    *,
    metrics: Sequence[str] | None = None,
    source: str | Path | None = None,
) -> CasePlan:
    """Return the plan of ``test_case``; ``metrics`` narrows the run to these metric names.

    Raises TestCaseError naming ``source`` and the JSON path of anything that configures
    nothing or names something unknown (see the module docstring).
    """
    from openeval.metrics.registry import metric_class, metric_names

    registered = metric_names()
    case_metrics = registered if test_case.metrics is None else list(test_case.metrics)
    for i, name in enumerate(case_metrics):
        if name not in registered:
            raise TestCaseError(
                unknown_name("metric", name, registered), source=source, location=f"metrics[{i}]"
            )
    for name in test_case.thresholds:
        where = f"thresholds.{name}"
        if name not in registered:
            raise TestCaseError(unknown_name("metric", name, registered), source=source,
                                location=where)
        if name not in case_metrics:
            raise TestCaseError(
                f"configures nothing: this case does not run metric {name!r} (its 'metrics' "
                "list leaves it out)", source=source, location=where,
            )
        if metric_class(name).default_threshold is None:
            raise TestCaseError(
                f"configures nothing: {name} is a verdict with no pass line; remove this "
                "threshold", source=source, location=where,
            )
    run = set(registered if metrics is None else metrics)
    chosen = set(case_metrics) & run
    specs: list[CheckSpec] = []
    for name in registered:  # registry order, whatever order the case listed them in
        if name not in chosen:
            continue
        line = test_case.thresholds.get(name, metric_class(name).default_threshold)
        specs.append(CheckSpec(kind=name, name=name, family="metric", threshold=line))
    used = {spec.name: f"metric {spec.name}" for spec in specs}
    for i, entry in enumerate(test_case.checks):
        spec = _check_spec(entry, f"checks[{i}]", source)
        if spec.name in used:
            raise TestCaseError(
                f"name {spec.name!r} is already used by {used[spec.name]}; give this entry its "
                "own 'name'", source=source, location=f"checks[{i}]",
            )
        used[spec.name] = f"checks[{i}]"
        specs.append(spec)
    from openeval.scoring.denials import compile_denial_rule

    rule = compile_denial_rule(test_case.denied_when, source=source)
    return CasePlan(test_case=test_case, checks=tuple(specs), denied_when=rule)


def _check_spec(entry: Mapping[str, Any], where: str, source: str | Path | None) -> CheckSpec:
    from openeval.scoring.catalog import check_registry

    if "code" in entry:
        raise TestCaseError(
            "code checks are not supported by this version of OpenEval; use 'check' with a "
            "built-in check name", source=source, location=f"{where}.code",
        )
    kind = entry.get("check")
    if not isinstance(kind, str):
        raise TestCaseError("expected a 'check' key naming a check", source=source,
                            location=where)
    registry = check_registry()
    try:
        function = registry.get(kind)
    except OpenEvalError as exc:
        raise TestCaseError(exc.message, source=source, location=f"{where}.check") from None
    settings = {k: v for k, v in entry.items() if k not in ENTRY_KEYS}
    try:
        check_settings(function, settings, what=f"check {kind!r}")
    except OpenEvalError as exc:
        raise TestCaseError(exc.message, source=source, location=where) from None
    name = entry.get("name", kind)
    threshold = entry.get("threshold")
    return CheckSpec(kind=kind, name=name, family="check", settings=settings,
                     threshold=threshold)

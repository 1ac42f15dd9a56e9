"""A test case compiled, once, into the plan of check instances that score it.

:func:`compile_plan` turns an :class:`~openeval.models.EvalTestCase` into a :class:`CasePlan`:
one :class:`~openeval.results.records.CheckSpec` per metric the case runs (its ``metrics`` key,
narrowed by the run's own selection), then one per entry of its ``checks`` list. Everything
that could configure nothing is refused here, naming the JSON path, so a typo never silently
disables a check:

- an unknown metric, a ``thresholds`` key for a metric the case does not run or for a
  verdict-style metric (``fixture_freshness``) that has no pass line, and an expectation no
  metric of the case reads (the rules of :mod:`openeval.scoring.validate`);
- a check entry naming an unknown check, an unknown setting, or a setting of the wrong type;
- a code check entry (``{"code": ...}``) naming a file that does not exist, or with a
  ``time_limit`` that is not a number of seconds;
- two check entries showing under the same name.

A code check entry becomes a spec of family ``code`` whose ``kind`` is the ``code`` reference
as written (so result files read the same on every machine) and whose settings are the entry's
other keys; the resolved reference (absolute file path, time limit) goes in
:attr:`CasePlan.code` under the entry's name. The user's code is not imported here: the plan
holds references only, so it pickles, and each process that scores loads the code itself
(proposals/0070-code-checks-and-pytest.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openeval.errors import OpenEvalError, TestCaseError
from openeval.metrics.compiled import CompiledCase
from openeval.models import EvalTestCase
from openeval.results.records import CheckSpec
from openeval.trust import REFUSE_ALL, CodePolicy

if TYPE_CHECKING:
    from openeval.code_checks.loader import CodeCheckRef

ENTRY_KEYS = ("check", "code", "name", "threshold")
"""The keys of a check entry that are not settings of the check."""

CODE_ENTRY_KEYS = ("code", "name", "threshold")
"""The keys of a code check entry that are not its settings (the settings arrive as the
check's ``params``, except ``time_limit``, which OpenEval reads itself)."""


@dataclass(frozen=True)
class CasePlan:
    """What to run on a case's trace: the test case and its check instances, in order."""

    test_case: EvalTestCase
    checks: tuple[CheckSpec, ...]
    denied_when: tuple[re.Pattern[str], ...] = ()
    """The case's denial rule, compiled (see :mod:`openeval.scoring.denials`)."""
    code: Mapping[str, CodeCheckRef] = field(default_factory=dict)
    """Where each code check's code lives, by instance name (specs of family ``code``)."""
    compiled: CompiledCase = field(init=False, repr=False, compare=False)
    """The test case's expected values compiled once for every trace the plan scores (the
    expected calls and their matchers, the trajectory spec, the expected state); the metrics
    read them here instead of compiling them per trace."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "compiled", CompiledCase(self.test_case))


def compile_plan(
    test_case: EvalTestCase,
    *,
    metrics: Sequence[str] | None = None,
    source: str | Path | None = None,
    checks_dir: str | Path | None = None,
    code_time_limit: float | None = None,
    code_policy: CodePolicy = REFUSE_ALL,
) -> CasePlan:
    """Return the plan of ``test_case``; ``metrics`` narrows the run to these metric names.

    A code check's file is looked for beside ``source`` (the test case file; the working
    folder when None), then in ``checks_dir``: the suite's checks folder, the hook suite
    configuration sets. ``code_time_limit`` is the run's time limit for a code check whose
    entry sets none (None: ``DEFAULT_TIME_LIMIT``, 5 s). ``code_policy`` says which code
    entries may run (openeval/trust.py); an entry it refuses is a TestCaseError at
    ``checks[i].code`` naming the flag that would allow it.

    Raises TestCaseError naming ``source`` and the JSON path of anything that configures
    nothing or names something unknown (see the module docstring).
    """
    from openeval.metrics.registry import REGISTRY as METRICS
    from openeval.metrics.registry import metric_names

    def error(message: str, where: str) -> TestCaseError:
        return TestCaseError(message, source=source, location=where)

    if test_case.metrics is None and metrics is None and test_case.thresholds == {}:
        specs = list(_default_specs(METRICS.version))  # the usual case: the suite's one list
    else:
        specs = _chosen_specs(test_case, metrics, metric_names(), error)
    used = {spec.name: f"metric {spec.name}" for spec in specs} if test_case.checks else {}
    code: dict[str, CodeCheckRef] = {}
    for i, entry in enumerate(test_case.checks):
        where = f"checks[{i}]"
        if "code" in entry:
            spec, ref = _code_spec(entry, where, source, checks_dir, code_time_limit,
                                   code_policy)
            code[spec.name] = ref
        else:
            spec = _check_spec(entry, where, source, test_case)
        if spec.name in used:
            raise TestCaseError(
                f"name {spec.name!r} is already used by {used[spec.name]}; give this entry its "
                "own 'name'", source=source, location=f"checks[{i}]",
            )
        used[spec.name] = f"checks[{i}]"
        specs.append(spec)
    from openeval.scoring.denials import compile_denial_rule

    rule = compile_denial_rule(test_case.denied_when, source=source)
    return CasePlan(test_case=test_case, checks=tuple(specs), denied_when=rule, code=code)


def _chosen_specs(
    test_case: EvalTestCase, metrics: Sequence[str] | None, registered: list[str],
    error: Callable[[str, str], TestCaseError],
) -> list[CheckSpec]:
    """The metric specs of a case that names metrics or pass lines, or of a run that narrows
    the metrics, in registry order; raises TestCaseError for a name that configures nothing
    (the rules of :mod:`openeval.scoring.validate`)."""
    from openeval.metrics.registry import metric_class
    from openeval.scoring.validate import (
        EXPECTATION_READERS,
        check_expectations,
        check_metric_names,
    )

    if test_case.metrics is not None or test_case.thresholds != {}:  # else no name to judge
        check_metric_names(test_case.metrics, test_case.thresholds, error=error)
    if test_case.metrics is not None:  # else every metric runs: each expectation is read
        expectations = {key: getattr(test_case, key) for key in EXPECTATION_READERS}
        check_expectations(expectations, test_case.metrics, test_case.checks, error=error)
    if test_case.metrics is None and metrics is None:
        picked = tuple(registered)  # every metric, in registry order
    else:
        case_metrics = registered if test_case.metrics is None else list(test_case.metrics)
        chosen = set(case_metrics) & set(registered if metrics is None else metrics)
        # Registry order, whatever order the case listed them in.
        picked = tuple(name for name in registered if name in chosen)
    lines = {name: test_case.thresholds.get(name, metric_class(name).default_threshold)
             for name in picked}
    try:
        return list(_metric_specs(tuple(lines.items())))
    except TypeError:  # a pass line that is no number (a case built in Python): as written
        return list(_metric_specs.__wrapped__(tuple(lines.items())))


@lru_cache(maxsize=4)
def _default_specs(version: int) -> tuple[CheckSpec, ...]:
    """Every registered metric at its default pass line, in registry order, for the metric
    registry at ``version`` (see :attr:`~openeval.registry.Registry.version`): what a case
    that names no metric and no pass line runs, in a run that narrows nothing."""
    from openeval.metrics.registry import metric_class, metric_names

    return _metric_specs(tuple((name, metric_class(name).default_threshold)
                               for name in metric_names()))


@lru_cache(maxsize=256)
def _metric_specs(lines: tuple[tuple[str, float | None], ...]) -> tuple[CheckSpec, ...]:
    """The metric specs of a case, by (name, pass line) in registry order: nearly every case
    of a suite has the same ones, and a spec is a frozen value, so plans share them."""
    return tuple(CheckSpec(kind=name, name=name, family="metric", threshold=line)
                 for name, line in lines)


def _check_spec(
    entry: Mapping[str, Any], where: str, source: str | Path | None, test_case: EvalTestCase
) -> CheckSpec:
    from openeval.checks.registry import compile_settings, probe_settings

    kind = entry.get("check")
    if not isinstance(kind, str):
        raise TestCaseError("expected a 'check' key naming a check", source=source,
                            location=where)
    settings = {k: v for k, v in entry.items() if k not in ENTRY_KEYS}
    arguments = compile_settings(kind, settings, source=source, location=where)
    probe_settings(kind, arguments, test_case, source=source, location=where)
    name = entry.get("name", kind)
    threshold = entry.get("threshold")
    return CheckSpec(kind=kind, name=name, family="check", settings=settings,
                     threshold=threshold, arguments=arguments)


def _code_spec(
    entry: Mapping[str, Any],
    where: str,
    source: str | Path | None,
    checks_dir: str | Path | None,
    run_limit: float | None,
    policy: CodePolicy,
) -> tuple[CheckSpec, CodeCheckRef]:
    from openeval.code_checks.loader import DEFAULT_TIME_LIMIT, TIME_LIMIT_KEY, resolve_reference

    if "check" in entry:
        raise TestCaseError("give either 'check' (a built-in check) or 'code' (your own), "
                            "not both", source=source, location=where)
    reference = entry["code"]
    if not isinstance(reference, str) or not reference:
        raise TestCaseError("expected a file path or module:name", source=source,
                            location=f"{where}.code")
    limit = run_limit if run_limit is not None else DEFAULT_TIME_LIMIT
    if TIME_LIMIT_KEY in entry:
        limit = entry[TIME_LIMIT_KEY]
        if (isinstance(limit, bool) or not isinstance(limit, (int, float))
                or not (limit > 0 and math.isfinite(limit))):
            raise TestCaseError(f"expected a number of seconds above 0, got {limit!r}",
                                source=source, location=f"{where}.{TIME_LIMIT_KEY}")
    base_dir = Path(source).parent if source is not None else Path.cwd()
    if not policy.files and _names_a_file(reference):  # refused before anything is looked up
        raise TestCaseError(policy.file_refusal(reference) or "", source=source,
                            location=f"{where}.code")
    try:
        ref = resolve_reference(reference, base_dir=base_dir, checks_dir=checks_dir,
                                time_limit=float(limit))
    except OpenEvalError as exc:
        raise TestCaseError(exc.message, source=source, location=f"{where}.code") from None
    refusal = (policy.file_refusal(ref.file) if ref.file is not None
               else policy.module_refusal(ref.module or reference))
    if refusal is not None:
        raise TestCaseError(refusal, source=source, location=f"{where}.code")
    settings = {k: v for k, v in entry.items() if k not in CODE_ENTRY_KEYS}
    spec = CheckSpec(kind=reference, name=entry.get("name", ref.default_name), family="code",
                     settings=settings, threshold=entry.get("threshold"))
    return spec, ref


def _names_a_file(reference: str) -> bool:
    from openeval.code_checks.loader import split_reference

    try:
        return split_reference(reference)[2]
    except OpenEvalError:
        return False  # malformed: resolving it says so

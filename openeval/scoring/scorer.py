"""The pure scorer: a trace and a case plan in, one result per check instance out.

:func:`score` reads nothing and prints nothing; the same trace and plan always give the same
results, in any process. Each check runs in isolation: a check that raises becomes that
check's ``error`` result, and the others still run.

- An :class:`~openeval.errors.OpenEvalError` (bad input the check could not judge) gives its
  message as the details.
- Any other exception is a bug, in OpenEval or in a user's check: the details name the check
  and the exception in one line, so the CI log says what broke, and the ``error`` verdict
  fails the gate. Nothing is turned into a score.
- A code check (family ``code``) runs the user's function in a worker process through
  :func:`openeval.code_checks.worker.run_isolated` (nothing it does reaches this process),
  which turns whatever the user's code does
  wrong (raises, exits, dies, runs past its time limit, returns a non-verdict) into a
  CodeCheckError naming ``file:line``: an errored result like the first case.
  ``KeyboardInterrupt`` is never caught: Ctrl-C stops the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import cache
from operator import attrgetter
from typing import TYPE_CHECKING, Any

from openeval.errors import OpenEvalError
from openeval.metrics.base import case_decides, measurement_scores, reads_compiled
from openeval.metrics.registry import REGISTRY as METRICS
from openeval.metrics.registry import metric_class
from openeval.results.records import CheckResult, CheckSpec, kept_check_result
from openeval.scores import Score, Scores, verdict

if TYPE_CHECKING:
    from openeval.checks._context import TraceMemo
    from openeval.metrics.base import Metric
    from openeval.models import AgentTrace, EvalTestCase
    from openeval.scoring.plan import CasePlan

MAX_DETAILS = 2000
"""Longest details line kept in a result (a check may explain at length; a log line may not)."""

NO_THRESHOLD = "no threshold: set one to judge this score"
"""The details of a code check that returned only a number and has no pass line."""

MAX_DATA_BYTES = 65_536
"""Largest structured ``data`` kept in a result, as compact JSON; the metrics bound their own
(an alignment keeps at most 40 rows), so only a third-party metric meets this limit."""


def score(trace: AgentTrace, plan: CasePlan) -> tuple[CheckResult, ...]:
    """Return one result per check of ``plan`` on ``trace``, in plan order."""
    if plan.denied_when:
        from openeval.scoring.denials import mark_denials

        trace = mark_denials(trace, plan.denied_when)
    run_check, memo_type = _check_runner()
    results: list[CheckResult] = []
    earlier: dict[str, Scores] = {}
    memo = memo_type()  # what the checks derive from this trace, derived once
    test_case = plan.test_case
    # Only checks read the scores of the entries before them; metrics never do.
    keep = not set(map(_family, plan.checks)) <= _METRIC_ONLY  # the families, found in C
    for spec in plan.checks:
        # Library checks and metrics are the usual entries: run here, not through
        # _run_isolated's two calls (proposals/0300-score-loop-once-per-check.md); the same
        # try, the same results.
        family = spec.family
        if family == "check" or family == "metric":
            try:
                result = (run_check(spec, trace, test_case, earlier, memo) if family == "check"
                          else _run_metric(spec, trace, plan))
            except OpenEvalError as exc:
                result = CheckResult(spec, "error", (), _bounded(str(exc)))
            except Exception as exc:  # isolation: one broken check never takes the case down
                result = _crashed(spec, exc)
        else:
            result = _run_isolated(spec, trace, plan, earlier, memo)
        line = spec.threshold
        if line is not None and line <= 0:  # only such a line can mark it (see _marked)
            result = _marked(result)
        if keep:
            earlier[spec.name] = Scores(result.scores)
        results.append(result)
    return tuple(results)


_family = attrgetter("family")
_METRIC_ONLY = frozenset({"metric"})

_RUNNER: tuple[Callable[..., CheckResult], type[TraceMemo]] | None = None


def _check_runner() -> tuple[Callable[..., CheckResult], type[TraceMemo]]:
    """Return :func:`~openeval.scoring.check_run.run_check` and the trace memo's class,
    imported on the first score, not with this module (the scorer imports no check until a
    check is run), and not on every call (an import statement costs a lookup each time)."""
    global _RUNNER
    if _RUNNER is None:
        from openeval.checks._context import TraceMemo
        from openeval.scoring.check_run import run_check

        _RUNNER = (run_check, TraceMemo)
    return _RUNNER


def _marked(result: CheckResult) -> CheckResult:
    """Return ``result`` marked report-only when its pass line cannot be missed: a pass line
    of 0 under a higher-is-better number judged by it (scores are never below 0), so the
    result is a figure to read, not a verdict to trust. Legitimate, never silent."""
    line = result.spec.threshold
    if line is None or line > 0 or result.verdict not in ("pass", "fail"):
        return result
    if any(s.data_type == "BOOLEAN" for s in result.scores):
        return result  # a boolean decides; the pass line plays no part
    primary = next((s for s in result.scores if s.data_type == "NUMERIC"), None)
    if primary is None or primary.higher_is_better is False:
        return result  # "at most 0" is a strict line, not an unfailable one
    return replace(result, data={**result.data, "report_only": True})


def _run_isolated(
    spec: CheckSpec, trace: AgentTrace, plan: CasePlan, earlier: Mapping[str, Scores],
    memo: TraceMemo,
) -> CheckResult:
    try:
        if spec.family == "metric":
            return _run_metric(spec, trace, plan)
        if spec.family == "code":
            return _run_code(spec, trace, plan, earlier)
        return _run_check(spec, trace, plan.test_case, earlier, memo)
    except OpenEvalError as exc:
        return CheckResult(spec, "error", (), _bounded(str(exc)))
    except Exception as exc:  # isolation: one broken check never takes the case down
        return _crashed(spec, exc)


def _crashed(spec: CheckSpec, exc: Exception) -> CheckResult:
    """The ``error`` result of a check that raised something other than OpenEvalError."""
    reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return CheckResult(
        spec, "error", (), _bounded(f"{spec.name} crashed: {reason} (a bug; please report it)")
    )


@cache
def _metric(cls: type[Metric], threshold: float | None) -> tuple[Metric, bool, bool]:
    """The instance that scores ``cls`` at ``threshold``, whether it reads the compiled case,
    and whether the test case alone may make it not applicable: looked up once per process,
    not per trace (a metric holds no state, so one instance serves every plan)."""
    metric = cls() if cls.default_threshold is None else cls(threshold=threshold)
    return metric, reads_compiled(cls), case_decides(cls)


_RESOLVED: dict[tuple[str, float | None], tuple[Metric, bool, bool]] = {}
""":func:`_metric` of each (name, pass line) met, for :data:`_RESOLVED_AT`'s registry."""
_RESOLVED_AT = [-1]
"""The metric registry's version :data:`_RESOLVED` holds answers for."""


def _resolved(kind: str, threshold: float | None) -> tuple[Metric, bool, bool]:
    """:func:`_metric` of the class registered as ``kind``: asked of the registry once per
    name and pass line until the registry changes (twelve lookups a case, otherwise)."""
    if _RESOLVED_AT[0] != METRICS.version:
        _RESOLVED.clear()
        _RESOLVED_AT[0] = METRICS.version
    key = (kind, threshold)
    found = _RESOLVED.get(key)
    if found is None:
        found = _RESOLVED[key] = _metric(metric_class(kind), threshold)
    return found


def _run_metric(spec: CheckSpec, trace: AgentTrace, plan: CasePlan) -> CheckResult:
    metric, compiled, decides = _resolved(spec.kind, spec.threshold)
    found = metric.not_applicable_to(plan.test_case) if decides else None
    if found is None:
        found = (metric.measure_compiled(trace, plan.compiled) if compiled
                 else metric.measure(trace, plan.test_case))
    if not found.applicable:
        return _not_judged(spec, found.details)
    scores = measurement_scores(spec.kind, found)
    return kept_check_result(spec, verdict(scores, spec.threshold), scores,
                             _bounded(found.details),
                             _bounded_data(found.data) if found.data else None)


_NOT_JUDGED: dict[tuple[int, str], CheckResult] = {}
"""The n.a. result of each (spec, reason) met: nearly every case of a suite gives a metric it
cannot judge the same reason, and a result is a frozen value, so the cases share one."""
_NOT_JUDGED_MOST = 1024


def _not_judged(spec: CheckSpec, details: str) -> CheckResult:
    key = (id(spec), details)
    found = _NOT_JUDGED.get(key)
    # A kept result holds its spec, so while it is here no other spec can have that id.
    if found is None or found.spec is not spec:
        if len(_NOT_JUDGED) >= _NOT_JUDGED_MOST:
            _NOT_JUDGED.clear()
        found = _NOT_JUDGED[key] = kept_check_result(spec, "n.a.", (), _bounded(details))
    return found


def _run_check(
    spec: CheckSpec, trace: AgentTrace, test_case: EvalTestCase, earlier: Mapping[str, Scores],
    memo: TraceMemo,
) -> CheckResult:
    run_check, _ = _check_runner()
    return run_check(spec, trace, test_case, earlier, memo)


def _run_code(
    spec: CheckSpec, trace: AgentTrace, plan: CasePlan, earlier: Mapping[str, Scores]
) -> CheckResult:
    from openeval.code_checks.loader import TIME_LIMIT_KEY
    from openeval.code_checks.worker import run_isolated

    params = {k: v for k, v in spec.settings.items() if k != TIME_LIMIT_KEY}
    scores = run_isolated(plan.code[spec.name], name=spec.name, params=params, trace=trace,
                            test_case=plan.test_case, scores=earlier)
    found = verdict(scores, spec.threshold)
    details = details_of(scores)
    if found == "n.a." and spec.threshold is None and any(
            s.data_type == "NUMERIC" for s in scores):
        # A number alone judges nothing; say so rather than leave a silent n.a.
        details = "; ".join(p for p in (details, NO_THRESHOLD) if p)
    return CheckResult(spec, found, tuple(scores), _bounded(details))


def as_scores(returned: Any, name: str) -> Scores:
    """Return what a check returned as Scores; raise OpenEvalError when it is not scores."""
    if isinstance(returned, Score):
        return Scores([returned])
    if isinstance(returned, list) and all(isinstance(s, Score) for s in returned):
        return Scores(returned)
    raise OpenEvalError(
        f"check {name!r} returned {type(returned).__name__}, expected Scores (a list of Score)"
    )


def details_of(scores: Scores) -> str:
    """Return the one-line details of a check: its scores' comments, primary first."""
    parts: list[str] = []
    for s in scores:
        if s.comment:
            parts.append(f"{s.name}: {s.comment}" if s.name and parts else s.comment)
    return "; ".join(parts)


def _bounded_data(data: Mapping[str, Any]) -> Mapping[str, Any]:
    import orjson

    try:
        size = len(orjson.dumps(data, option=orjson.OPT_SORT_KEYS))
    except TypeError as exc:  # a third-party metric's non-JSON value: said, not written
        return {"left_out": f"the structured data is not JSON ({exc})"}
    if size <= MAX_DATA_BYTES:
        return data
    return {"left_out": f"the structured data ({size:,} bytes) is over the {MAX_DATA_BYTES:,}-"
                        "byte limit of a result"}


def _bounded(text: str) -> str:
    if text.isprintable() and len(text) <= MAX_DETAILS:
        return text  # no line break of any kind (each is unprintable), nothing to cut
    line = " ".join(text.splitlines())
    return line if len(line) <= MAX_DETAILS else line[: MAX_DETAILS - 1] + "…"

"""One library check run on one trace: the scorer's step for each entry of family ``check``.

:func:`openeval.scoring.scorer.score` calls this once per check per trace, so it does the
least that gives the scorer's result (proposals/0285-score-per-trace-work-once.md,
proposals/0300-score-loop-once-per-check.md): the names
it needs are imported once, with this module, not on every call; a check that returned a
list of scores (what every check of the library returns) is taken as it is, and anything
else goes through :func:`~openeval.scoring.scorer.as_scores`, which says what is wrong.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from openeval.checks._context import CheckContext, TraceMemo
from openeval.checks.registry import CHECKS, compile_settings
from openeval.results.records import CheckResult, CheckSpec
from openeval.scores import Score, Scores, verdict
from openeval.scoring.scorer import _bounded, as_scores, details_of

if TYPE_CHECKING:
    from openeval.models import AgentTrace, EvalTestCase

_new = object.__new__
_set = object.__setattr__


def run_check(
    spec: CheckSpec, trace: AgentTrace, test_case: EvalTestCase, earlier: Mapping[str, Scores],
    memo: TraceMemo,
) -> CheckResult:
    """Return the result of the check ``spec`` names on ``trace``; what it raises propagates
    (the scorer turns it into an ``error`` result).

    The context and the result are built here as :func:`~openeval.checks._context.
    scorer_context` and :func:`~openeval.results.records.check_result` build them (equal to
    the dataclass-built ones, field for field), without the two calls: this runs once per
    check per trace (proposals/0316-score-checks-glue.md).
    """
    function = CHECKS.get(spec.kind)
    # Compiled once with the plan; a spec built by hand (or read back) is checked here.
    settings = spec.arguments if spec.arguments is not None else compile_settings(
        spec.kind, spec.settings)
    context: CheckContext = _new(CheckContext)
    _set(context, "__dict__", {"trace": trace, "test_case": test_case,
                               "params": dict(spec.settings), "scores": dict(earlier),
                               "memo": memo})
    returned = function(context, **settings)
    scores: Scores
    if isinstance(returned, list):
        for item in returned:  # a list of Score, which as_scores would only copy
            if not isinstance(item, Score):
                scores = as_scores(returned, spec.name)
                break
        else:
            scores = cast(Scores, returned)  # a list of Score: what details_of reads
    else:
        scores = as_scores(returned, spec.name)
    result: CheckResult = _new(CheckResult)
    _set(result, "__dict__", {"spec": spec, "verdict": verdict(scores, spec.threshold),
                              "scores": tuple(scores), "details": _bounded(details_of(scores)),
                              "data": {}})
    return result

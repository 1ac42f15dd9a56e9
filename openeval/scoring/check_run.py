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
from typing import TYPE_CHECKING

from openeval.checks._context import TraceMemo, scorer_context
from openeval.checks.registry import CHECKS, compile_settings
from openeval.results.records import CheckResult, CheckSpec, check_result
from openeval.scores import Score, Scores, verdict
from openeval.scoring.scorer import _bounded, as_scores, details_of

if TYPE_CHECKING:
    from openeval.models import AgentTrace, EvalTestCase


def run_check(
    spec: CheckSpec, trace: AgentTrace, test_case: EvalTestCase, earlier: Mapping[str, Scores],
    memo: TraceMemo,
) -> CheckResult:
    """Return the result of the check ``spec`` names on ``trace``; what it raises propagates
    (the scorer turns it into an ``error`` result)."""
    function = CHECKS.get(spec.kind)
    # Compiled once with the plan; a spec built by hand (or read back) is checked here.
    settings = spec.arguments if spec.arguments is not None else compile_settings(
        spec.kind, spec.settings)
    context = scorer_context(trace, test_case, dict(spec.settings), dict(earlier), memo)
    returned = function(context, **settings)
    scores = returned if _score_list(returned) else as_scores(returned, spec.name)
    return check_result(spec, verdict(scores, spec.threshold), tuple(scores),
                        _bounded(details_of(scores)))


def _score_list(returned: object) -> bool:
    """True when ``returned`` is a list of Score, which :func:`as_scores` would only copy."""
    if not isinstance(returned, list):
        return False
    for item in returned:  # noqa: SIM110 (a loop, not all() on a generator: a hot path)
        if not isinstance(item, Score):
            return False
    return True

"""The shape every metric has, and the pass-line rule they share.

A metric is a class with a stable snake_case ``name``, a ``default_threshold`` (its pass line)
and a ``measure`` that returns a :class:`Measurement`: a score with its details, or
``not_applicable`` when the test case gives the metric nothing to judge. :meth:`Metric.scores`
turns that into named :class:`~openeval.scores.Scores` and :meth:`Metric.score` into the
public :class:`~openeval.models.MetricResult`; both judge with the one verdict rule of
:mod:`openeval.scores`, so no metric repeats the pass rule. A metric's only setting is its
pass line (``threshold``, keyword-only); it holds no other state: one instance may score any
number of traces, from any number of threads.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from openeval.compat.metric import BaseMetric as BaseMetric
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase, MetricResult
from openeval.scores import Score, Scores, verdict

_set = object.__setattr__
_NEW_DICT: Any = object()
"""The default of :attr:`Measurement.data`: a new empty dict for each measurement."""


@dataclass(frozen=True)
class Measurement:
    """What a metric found: a score in [0, 1] and one line of details.

    ``applicable=False`` means "nothing to judge": the result gets ``passed=None``.
    ``passed`` set to True or False decides the verdict directly, bypassing the pass line
    (for verdict-style metrics such as fixture freshness); None leaves it to the pass line.
    ``data`` goes to :attr:`~openeval.results.records.CheckResult.data` unchanged.
    """

    score: float
    details: str
    applicable: bool = True
    passed: bool | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    """Structured findings beside the details, JSON values only and bounded: the alignment of
    expected and executed calls (``alignment``, ``first_divergence``) and ``notes`` worth a
    look on a pass (proposals/0050). Empty for most measurements."""

    def __init__(self, score: float, details: str, applicable: bool = True,
                 passed: bool | None = None, data: Mapping[str, Any] = _NEW_DICT) -> None:
        # Written out rather than generated, as Score's is: every metric makes one per trace,
        # and the frozen dataclass's own sets each field through a guarded setattr
        # (proposals/0320). Same fields, same defaults (a new dict when data is not given).
        _set(self, "__dict__", {"score": score, "details": details, "applicable": applicable,
                                "passed": passed,
                                "data": {} if data is _NEW_DICT else data})


def measurement_scores(name: str, found: Measurement) -> tuple[Score, ...]:
    """Return a metric's measurement as named scores: none when n.a., else the score named
    after the metric (its details stay on the result), plus a BOOLEAN ``passed`` for
    verdict-style measurements, so the one verdict rule of :mod:`openeval.scores` judges all."""
    if not found.applicable:
        return ()
    scores: tuple[Score, ...] = (Score(found.score, "NUMERIC", None, name, True),)
    if found.passed is not None:
        scores += (Score(found.passed, "BOOLEAN", None, "passed", True),)
    return scores


@cache
def reads_compiled(cls: type[Metric]) -> bool:
    """Whether the scorer should call ``cls``'s :meth:`Metric.measure_compiled` rather than
    its :meth:`Metric.measure`: True unless a subclass overrides ``measure`` below the class
    that defines ``measure_compiled`` (a user's subclass of a built-in metric that changes
    ``measure`` gets its own ``measure`` called, as before there was a compiled form)."""
    for klass in cls.__mro__:
        if "measure_compiled" in vars(klass):
            return True
        if "measure" in vars(klass):
            return False
    return False


@cache
def case_decides(cls: type[Metric]) -> bool:
    """Whether the scorer may ask ``cls``'s :meth:`Metric.not_applicable_to` once per plan:
    True when the class defining it is no further up the MRO than the nearest ``measure``
    or ``measure_compiled`` (a user's subclass that changes ``measure`` is measured, as
    :func:`reads_compiled` says for the compiled form)."""
    for klass in cls.__mro__:
        if "not_applicable_to" in vars(klass):
            return klass is not Metric
        if "measure" in vars(klass) or "measure_compiled" in vars(klass):
            return False
    return False


def not_applicable(details: str, score: float = 1.0) -> Measurement:
    """Return a Measurement that marks the metric as not evaluated (``passed=None``)."""
    return Measurement(score=score, details=details, applicable=False)


class Metric(ABC):
    """Base class of all metrics: subclasses set ``name``, ``default_threshold``, ``measure``.

    The class docstring of each metric is its contract: when it passes, fails, and is n.a.
    """

    name: ClassVar[str]
    """Stable snake_case name, used in test case ``thresholds``/``metrics`` and in results."""
    default_threshold: ClassVar[float | None] = 1.0
    """Pass line: ``passed`` is ``score >= threshold``. None for verdict-style metrics."""

    @property
    def description(self) -> str:
        """The first line of the metric's docstring (what openeval-core 0.2.1 called it)."""
        return (type(self).__doc__ or "").strip().splitlines()[0]

    def explain(self, result: MetricResult) -> str:
        """Return ``result`` as one sentence (openeval-core 0.2.1's ``BaseMetric.explain``)."""
        return f"{self.name}: {result.details} Score: {result.score:.2f}."

    def __init__(self, *, threshold: float | None = None) -> None:
        if threshold is not None and self.default_threshold is None:
            raise ValueError(f"metric {self.name!r} is a verdict and takes no threshold")
        self._threshold = threshold

    @abstractmethod
    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the score and details of ``trace`` against ``test_case``."""

    def measure_compiled(self, trace: AgentTrace, case: CompiledCase) -> Measurement:
        """Return :meth:`measure` of ``trace`` against ``case.test_case``; what the scorer
        calls. A metric that derives something from the test case alone overrides this and
        reads it from ``case`` (built on the first trace, kept for the next ones), and its
        :meth:`measure` compiles a case of its own."""
        return self.measure(trace, case.test_case)

    def not_applicable_to(self, test_case: EvalTestCase) -> Measurement | None:
        """Return the "not applicable" measurement :meth:`measure` gives every trace when
        ``test_case`` alone leaves nothing to judge (no ``state``, no ``turns`` ...), else
        None (the trace decides). The scorer asks once per plan and reuses the answer
        (proposals/0271); a metric that overrides this calls it first in its ``measure``."""
        return None

    def threshold(self, test_case: EvalTestCase) -> float | None:
        """Return the pass line: the one this metric was built with, else the test case's
        ``thresholds`` override, else the default."""
        if self._threshold is not None:
            return self._threshold
        return test_case.thresholds.get(self.name, self.default_threshold)

    def scores(self, found: Measurement) -> Scores:
        """Return ``found`` as named scores (see :func:`measurement_scores`)."""
        return Scores(measurement_scores(self.name, found))

    def score(self, trace: AgentTrace, test_case: EvalTestCase) -> MetricResult:
        """Return this metric's verdict on ``trace``; ``passed`` is None when n.a."""
        found = self.measure(trace, test_case)
        judged = verdict(self.scores(found), self.threshold(test_case))
        passed = None if judged == "n.a." else judged == "pass"
        return MetricResult(
            metric_name=self.name, score=found.score, passed=passed, details=found.details
        )

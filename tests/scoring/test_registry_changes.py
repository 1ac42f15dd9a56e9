"""What the scorer and the plan keep from the metric registry lasts only until it changes:
a metric registered, replaced or removed between two cases is what the next case runs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from openeval.metrics.base import Measurement, Metric
from openeval.metrics.output import OutputContains
from openeval.metrics.registry import REGISTRY
from openeval.models import AgentTrace, EvalTestCase
from openeval.scoring import compile_plan, score

CASE = EvalTestCase(task_id="t", expected_output_contains=["refund"])
TRACE = AgentTrace(task_id="t", final_output="no refund today", steps=[])


class Stricter(Metric):
    """Fails every trace: a stand-in put where output_contains was."""

    name = "output_contains"

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return 0.0, whatever the trace."""
        return Measurement(0.0, "replaced")


class Extra(Metric):
    """Passes every trace: a metric registered after the first plan."""

    name = "extra_for_test"

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return 1.0, whatever the trace."""
        return Measurement(1.0, "extra")


@pytest.fixture()
def restore() -> Iterator[None]:
    yield
    REGISTRY.register(OutputContains.name, OutputContains, replace=True)
    REGISTRY.unregister(Extra.name)


def _verdicts() -> dict[str, tuple[str, str]]:
    return {r.spec.name: (r.verdict, r.details) for r in score(TRACE, compile_plan(CASE))}


def test_a_replaced_metric_is_the_one_scored_next(restore: None) -> None:
    assert _verdicts()["output_contains"][0] == "pass"
    REGISTRY.register(Stricter.name, Stricter, replace=True)
    assert _verdicts()["output_contains"] == ("fail", "replaced")


def test_a_metric_registered_later_joins_the_next_plan(restore: None) -> None:
    assert Extra.name not in _verdicts()
    REGISTRY.register(Extra.name, Extra)
    assert _verdicts()[Extra.name] == ("pass", "extra")
    REGISTRY.unregister(Extra.name)
    assert Extra.name not in _verdicts()

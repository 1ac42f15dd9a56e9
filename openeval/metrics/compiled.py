"""A test case's expected values compiled once, for every trace scored against it.

A run scores one plan against one trace per case (or per trial), and ``openeval score``
scores one plan against every trace of an export: whatever a metric derives from the test
case alone (its expected calls checked, their arguments compiled with their matchers, the
trajectory spec read, the expected state compiled) is the same for each of those traces. The
plan (:class:`~openeval.scoring.plan.CasePlan`) carries one :class:`CompiledCase`; a metric
asks it for what it needs with :meth:`CompiledCase.once` and gets the form built on the first
trace. A build that raises (a malformed matcher) keeps nothing, so every trace reports the
same error, as when each trace compiled its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

from openeval.models import EvalTestCase

T = TypeVar("T")


class CompiledCase:
    """The compiled forms of one test case, each built on first use and kept.

    Each form is keyed by the module-level function that builds it from the test case, so
    two metrics reading the same form share one build. Pickling keeps the test case only:
    a worker process builds its own forms (compiled matchers need not cross the pipe).
    """

    __slots__ = ("_built", "test_case")

    def __init__(self, test_case: EvalTestCase) -> None:
        self.test_case = test_case
        self._built: dict[Callable[..., Any], Any] = {}

    def once(self, build: Callable[[EvalTestCase], T]) -> T:
        """Return ``build(test_case)``, built on the first call and kept for the next ones."""
        try:
            return cast(T, self._built[build])
        except KeyError:
            pass
        value = build(self.test_case)
        self._built[build] = value  # two threads may both build it: the same value either way
        return value

    def derived(self, build: Callable[[CompiledCase], T]) -> T:
        """Return ``build(self)``, built on the first call and kept: a form made from other
        forms (read with :meth:`once`), so that two forms reading one, such as the checked
        expected calls, share its build."""
        try:
            return cast(T, self._built[build])
        except KeyError:
            pass
        value = build(self)
        self._built[build] = value
        return value

    def __reduce__(self) -> tuple[type[CompiledCase], tuple[EvalTestCase]]:
        return (CompiledCase, (self.test_case,))

    def __repr__(self) -> str:
        return f"CompiledCase({self.test_case.task_id!r})"

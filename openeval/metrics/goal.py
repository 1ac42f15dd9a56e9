"""Did the agent leave the world in the expected state? (``goal_completion_rate``)"""

from __future__ import annotations

from openeval.matching.matchers import Expected, compile_fields
from openeval.metrics._common import NO_STATE_NOTE, join_bounded
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import MISSING


class GoalCompletionRate(Metric):
    """Share of the expected final-state keys whose actual value equals the expected one.

    Values compare as JSON (``1`` equals ``1.0``; ``"1"``, ``true`` and ``1`` all differ);
    nested objects and lists must match in full. An expected value may be an argument matcher
    (``{"$approx": 42}``, ``{"$regex": "^R-"}``, ``{"$type": "string"}`` ...), at any depth. A
    key absent from the actual state does not match, unless its matcher allows absence
    (``$optional``, ``$exists: false``). Keys the agent set beyond the expected ones are not
    judged.

    Passes when the score reaches the pass line (default 1.0: every expected key right).
    Fails on a missing or different key; details name the path of each difference. A trace
    with no final state at all fails too (the test case asked for one), and the details say
    that its format records none and how to give it one: not applicable would let a case pass
    with its state never checked.
    Not applicable when the test case has no expected final state.
    """

    name = "goal_completion_rate"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of expected state keys that hold the expected value."""
        return self.measure_compiled(trace, CompiledCase(test_case))

    def not_applicable_to(self, test_case: EvalTestCase) -> Measurement | None:
        """Return "not applicable" when the test case expects no final state."""
        return None if test_case.expected_final_state else not_applicable(
            "no expected final state")

    def measure_compiled(self, trace: AgentTrace, case: CompiledCase) -> Measurement:
        """:meth:`measure`, the expected state compiled once per case."""
        blank = self.not_applicable_to(case.test_case)
        if blank is not None:
            return blank
        expected = case.test_case.expected_final_state
        fields = case.once(_fields)
        actual = trace.actual_state
        problems: list[str] = []
        for key in fields:
            found = fields[key].explain(actual.get(key, MISSING), f"state.{key}")
            if found is not None:
                problems.append(str(found))
        total = len(expected)
        if not problems:
            return Measurement(1.0, f"expected state keys matched: {total}/{total}")
        matched = total - len(problems)
        head = f"expected state keys matched: {matched}/{total}"
        if not actual:
            # Most formats cannot carry a state: say so before listing every key as missing.
            head = f"{head}; {NO_STATE_NOTE}"
        return Measurement(matched / total, join_bounded([head, *problems]))


def _fields(test_case: EvalTestCase) -> dict[str, Expected]:
    """The expected final state compiled, keys in the order the details list them."""
    fields = compile_fields(test_case.expected_final_state, "expected_final_state")
    return {key: fields[key] for key in sorted(fields, key=str)}

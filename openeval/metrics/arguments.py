"""Did the agent pass the right arguments? (``argument_correctness``)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from openeval.errors import OpenEvalError
from openeval.matching.alignment import AlignedCall, Difference, alignment_data, args_problem
from openeval.matching.calls import MAX_COMPARISONS
from openeval.matching.constraints import uses_constraints
from openeval.matching.matchers import Expected, Mismatch, compile_expected
from openeval.matching.shared import counts_match
from openeval.metrics._assignment import max_weight_assignment, max_weight_transport
from openeval.metrics._common import (
    ExpectedCall,
    expected_calls,
    join_bounded,
    with_unrecorded_note,
)
from openeval.metrics._rules import arguments_by_rules
from openeval.metrics.base import Measurement, Metric, not_applicable
from openeval.metrics.compiled import CompiledCase
from openeval.models import AgentTrace, EvalTestCase, TraceStep
from openeval.values import MISSING, canonical_key, json_equal, short_json

_NO_ARGS: Mapping[str, Any] = {}
_ABSENT: Hashable = ("absent",)  # canonical keys are never this tuple (see canonical_key)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_NUMBERS = frozenset({int, float})
_DIRECT_LIMIT = 4096
"""Up to this many (expected, executed) pairs, weights are computed pair by pair and solved
by the Hungarian method; beyond it, identical calls are grouped first."""


class ArgumentCorrectness(Metric):
    """Share of the expected argument values that the agent's executed calls carried.

    Each expected call is paired with at most one executed (non-denied) call of the same tool,
    and no executed call serves two expected ones; among all such pairings the one that matches
    the most key-value pairs is used (an exact assignment, so repeated tools are judged fairly).
    A pair matches when the executed call has the key with an equal JSON value (``1`` equals
    ``1.0``, but ``"1"`` and ``true`` do not), or one its argument matcher accepts
    (``{"$approx": 59.9}``, ``{"$regex": ...}`` ...); a key whose matcher allows absence
    (``$optional``, ``$exists: false``) also matches when the call lacks it. Extra executed
    keys are not judged. An expected call left unpaired matches nothing.
    Score: matching pairs over all expected pairs.

    Passes when the score reaches the pass line (default 1.0: every expected value seen).
    Fails on a wrong, missing or uncalled argument; details name each one (arguments that are
    not valid JSON are named as such), and the result's data holds each expected call beside
    the executed call it was paired with.
    Not applicable when no expected call lists any arguments.

    When the expected calls carry order or count keys, the pairs are those of the one
    assignment the call metrics share (:mod:`openeval.metrics._rules`), each pair scoring the
    expected values its call carries; an optional call not made is not judged.
    """

    name = "argument_correctness"
    default_threshold = 1.0

    def measure(self, trace: AgentTrace, test_case: EvalTestCase) -> Measurement:
        """Return the share of expected key-value pairs matched under the best pairing."""
        return self.measure_compiled(trace, CompiledCase(test_case))

    def measure_compiled(self, trace: AgentTrace, case: CompiledCase) -> Measurement:
        """:meth:`measure`, the expected arguments compiled once per case."""
        test_case = case.test_case
        if case.once(constrained):
            shared = counts_match(trace.steps, test_case)
            if shared is not None:
                return arguments_by_rules(shared, trace, test_case)
        wanted, total, by_tool, rows = case.once(_expected_args)
        if not total:
            return not_applicable("no expected arguments")
        executed: dict[str, list[Mapping[str, Any]]] = {name: [] for name in by_tool}
        made: dict[str, list[TraceStep]] = {name: [] for name in by_tool}
        denied: Counter[str] = Counter()
        for step in trace.steps:
            if step.type != "tool_call" or step.tool_name not in executed:
                continue
            if step.denied:
                denied[step.tool_name] += 1
            else:
                executed[step.tool_name].append(step.tool_args or _NO_ARGS)
                made[step.tool_name].append(step)

        if all(
            _all_found([rows[call.position] for call in calls], executed[tool])
            for tool, calls in by_tool.items()
        ):
            return Measurement(1.0, f"expected argument values matched: {total}/{total}")
        partner: dict[int, TraceStep | None] = {}
        matched = 0
        for tool, calls in by_tool.items():
            actual = executed[tool]
            pairing = pair_calls([rows[call.position] for call in calls], actual)
            matched += pairing.matched
            for call, column in zip(calls, pairing.partners, strict=True):
                partner[call.position] = None if column is None else made[tool][column]

        if matched == total:
            return Measurement(1.0, f"expected argument values matched: {total}/{total}")
        # Only a failing run pays for the explanations and the side-by-side rows.
        problems: list[str] = []
        aligned: list[AlignedCall] = []
        seen: Counter[str] = Counter()
        for call in wanted:
            seen[call.tool] += 1
            label = call.tool if len(by_tool[call.tool]) == 1 else f"{call.tool}#{seen[call.tool]}"
            paired = partner[call.position]
            if paired is None:
                blocked = f" ({denied[call.tool]} denied)" if denied[call.tool] else ""
                problems.append(f"{label}: not called{blocked}")
                aligned.append(AlignedCall(call.position, None, call.tool, "missing", False))
                continue
            broken = args_problem(paired)
            if broken is not None:
                problems.append(f"{label}: {broken}")
                aligned.append(AlignedCall(
                    call.position, paired.step_id, call.tool, "args differ", False,
                    (Difference("arguments", "a JSON object", broken),),
                ))
                continue
            found = rows[call.position].mismatches(paired.tool_args or _NO_ARGS)
            problems.extend(f"{label}.{m}" for m in found)
            aligned.append(AlignedCall(
                call.position, paired.step_id, call.tool, "args differ" if found else "matched",
                not found, tuple(Difference.of(m) for m in found),
            ))
        head = f"expected argument values matched: {matched}/{total}"
        details = join_bounded([head, *problems])
        return Measurement(matched / total, with_unrecorded_note(details, matched / total, trace),
                           data=alignment_data(aligned))


class _ExpectedArgs(NamedTuple):
    wanted: list[ExpectedCall]
    """The expected calls that list arguments."""
    total: int
    """Their expected key-value pairs."""
    by_tool: dict[str, list[ExpectedCall]]
    rows: dict[int, ExpectedArgs]
    """Each call's arguments compiled, by position in ``expected_tool_calls``."""


def _expected_args(test_case: EvalTestCase) -> _ExpectedArgs:
    wanted = [call for call in expected_calls(test_case) if call.args]
    by_tool: dict[str, list[ExpectedCall]] = {}
    for call in wanted:
        by_tool.setdefault(call.tool, []).append(call)
    rows = {
        call.position: ExpectedArgs(call.args, f"expected_tool_calls[{call.position}].args")
        for call in wanted
    }
    return _ExpectedArgs(wanted, sum(len(call.args) for call in wanted), by_tool, rows)


def constrained(test_case: EvalTestCase) -> bool:
    """Whether the case's expected calls carry order or count keys (a :class:`CompiledCase`
    form: the call metrics then read the shared assignment of :mod:`openeval.matching.shared`)."""
    return uses_constraints(test_case.expected_tool_calls)


@dataclass(frozen=True)
class Pairing:
    """The best pairing of one tool's expected calls with its executed calls."""

    partners: list[int | None]
    """For each expected call, the index of its executed call, or None."""
    matched: int
    """Expected key-value pairs matched in total: the largest possible."""
    work: int
    """Argument comparisons and flow steps spent; tests bound it instead of timing."""


def pair_calls(expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]]) -> Pairing:
    """Return the pairing of ``expected`` calls' arguments with ``actual`` args that matches the
    most expected key-value pairs, no call used twice.

    Small inputs (up to ``_DIRECT_LIMIT`` pairs) are solved directly by the Hungarian method.
    Beyond, identical expected calls form one group, and so do executed calls that agree on
    every expected key (other keys cannot change a score); the weights are computed between
    groups and the exact optimum is found by :func:`max_weight_transport`. The cost is then
    O(len(actual) x keys) to group the executed calls, plus
    O(groups_expected x groups_executed x keys) comparisons and a flow over the groups: 200
    identical expected calls against a million executed ones is one group against a few.
    """
    if len(expected) * len(actual) <= _DIRECT_LIMIT:
        weights = [[row.weight(args) for args in actual] for row in expected]
        partners = max_weight_assignment(weights)
        matched = sum(w[c] for w, c in zip(weights, partners, strict=True) if c is not None)
        return Pairing(partners, matched, len(expected) * len(actual))
    return _pair_groups(expected, actual)


def _all_found(expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]]) -> bool:
    """True when each expected call finds its own executed call matching all its arguments,
    taking the first such call left (in order, from after the last one taken).

    Such a pairing is the best one (nothing can match more), so a run that does what the case
    says is judged without the whole table of weights; False sends the case to
    :func:`pair_calls` (greedy choice can miss a perfect pairing that exists, never invent one).
    Only small inputs try it, so the bounds :func:`pair_calls` keeps on large ones still hold.
    """
    if len(expected) > len(actual) or len(expected) * len(actual) > _DIRECT_LIMIT:
        return False
    free = list(range(len(actual)))
    start = 0
    for row in expected:
        full = len(row.items)
        for offset in range(len(free)):
            at = (start + offset) % len(free)
            if row.weight(actual[free[at]]) == full:
                del free[at]
                start = at
                break
        else:
            return False
    return True


class ExpectedArgs:
    """An expected call's arguments, ready to count matches against executed arguments.

    Plain scalar values compare without a call (that matters on long traces); anything else
    (objects, arrays, matchers) is compiled once, which also checks its matchers: a malformed
    one raises TestCaseError naming ``where`` and the key.
    """

    __slots__ = ("args", "items", "where")

    def __init__(self, args: Mapping[str, Any], where: str) -> None:
        self.args = args
        self.where = where
        # Sorted by key once: the details list the differences in this order.
        self.items: list[tuple[str, Any, Expected | None]] = [
            (key, value, None) if type(value) in _SCALARS and value == value
            else (key, _ABSENT, compile_expected(value, f"{where}.{key}"))
            for key, value in sorted(args.items(), key=lambda item: str(item[0]))
        ]

    def weight(self, actual: Mapping[str, Any]) -> int:
        """Return how many expected key-value pairs ``actual`` matches."""
        count = 0
        for key, plain, field in self.items:
            got = actual.get(key, MISSING)
            if field is None:
                # json_equal for scalars: same type and ==, or two numbers (never a bool).
                kind = type(got)
                if kind is type(plain) or (kind in _NUMBERS and type(plain) in _NUMBERS):
                    count += plain == got
                elif kind not in _SCALARS and got is not MISSING and json_equal(plain, got):
                    count += 1  # a subclass (an IntEnum, a str enum ...): the slow, exact way
            elif field.test(got) is True:
                count += 1
        return count

    def differences(self, label: str, actual: Mapping[str, Any]) -> list[str]:
        """Return ``label.key: expected X, got Y`` for each expected key ``actual`` misses."""
        return [f"{label}.{m}" for m in self.mismatches(actual)]

    def mismatches(self, actual: Mapping[str, Any]) -> list[Mismatch]:
        """Return where ``actual`` misses each expected key, paths relative to the call."""
        out: list[Mismatch] = []
        for key, plain, field in self.items:
            got = actual.get(key, MISSING)
            if field is not None:
                found = field.explain(got, str(key))
                if found is not None:
                    out.append(found)
            elif got is MISSING:
                out.append(Mismatch(str(key), short_json(plain), MISSING))
            elif not json_equal(plain, got):
                out.append(Mismatch(str(key), short_json(plain), got, wanted=plain))
        return out


def _pair_groups(expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]]) -> Pairing:
    """:func:`pair_calls` for large inputs: identical calls grouped, groups paired exactly."""
    keys = sorted({key for row in expected for key in row.args}, key=str)
    row_of: dict[Hashable, int] = {}
    row_members: list[list[int]] = []
    for index, row in enumerate(expected):
        group = row_of.setdefault(canonical_key(row.args), len(row_members))
        if group == len(row_members):
            row_members.append([])
        row_members[group].append(index)
    col_of: dict[Hashable, int] = {}
    col_members: list[list[int]] = []
    by_identity: dict[int, int] = {}
    for index, args in enumerate(actual):
        col = by_identity.get(id(args))
        if col is None:
            signature = tuple(
                canonical_key(args[key]) if key in args else _ABSENT for key in keys
            )
            col = col_of.setdefault(signature, len(col_members))
            if col == len(col_members):
                col_members.append([])
            by_identity[id(args)] = col
        col_members[col].append(index)
    work = len(actual)

    if len(row_members) * len(col_members) > MAX_COMPARISONS:
        raise OpenEvalError(
            f"argument pairing needs more than {MAX_COMPARISONS:,} comparisons "
            f"({len(row_members):,} different expected calls against {len(col_members):,} "
            "different executed calls of one tool); split the case"
        )
    demand = len(expected)
    weights: list[list[int]] = []
    for members in row_members:
        expected_row = expected[members[0]]
        full = len(expected_row.items)
        line: list[int] = []
        room = 0
        for cells in col_members:
            if room >= demand:
                line.append(0)  # columns after enough perfect ones can never be needed
                continue
            weight = expected_row.weight(actual[cells[0]])
            work += full
            line.append(weight)
            if weight == full:
                room += len(cells)
        weights.append(line)
    flows, flow_work = max_weight_transport(
        weights, [len(m) for m in row_members], [len(m) for m in col_members]
    )
    work += flow_work

    partners: list[int | None] = [None] * len(expected)
    used = [0] * len(col_members)
    matched = 0
    for group, members in enumerate(row_members):
        position = 0
        for col in range(len(col_members)):
            for _ in range(flows.get((group, col), 0)):
                partners[members[position]] = col_members[col][used[col]]
                matched += weights[group][col]
                position += 1
                used[col] += 1
    # Unpaired calls gain nothing by pairing (else the optimum would pair them), but a pair
    # lets the details say which value differs instead of "not called".
    spare = [i for col, cells in enumerate(col_members) for i in cells[used[col]:]]
    spare.sort()
    for index, column in zip((i for i, p in enumerate(partners) if p is None), spare,
                             strict=False):
        partners[index] = column
    return Pairing(partners, matched, work)

"""Did the agent pass the right arguments? (``argument_correctness``)"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from openeval.errors import OpenEvalError
from openeval.matching.alignment import AlignedCall, Difference, alignment_data, args_problem
from openeval.matching.calls import MAX_COMPARISONS
from openeval.matching.constraints import uses_constraints
from openeval.matching.matchers import Expected, Mismatch, Verdict, compile_expected
from openeval.matching.matchers import Literal as MatchLiteral
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
from openeval.values import (
    MAX_JSON_DEPTH,
    MISSING,
    STRICT_DUMP,
    canonical_key,
    is_plain_json,
    json_compare,
    json_equal,
    plain_literal,
    short_json,
)

_NO_ARGS: Mapping[str, Any] = {}
_ABSENT: Hashable = ("absent",)  # canonical keys are never this tuple (see canonical_key)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_NUMBERS = frozenset({int, float})
_PLAIN_FROM = 3
"""From this many expected calls of one tool on, its executed arguments are checked plain JSON
once, and each comparison then runs in C (:meth:`ExpectedArgs.weight_plain`)."""
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
        return measure_arguments(trace, case)


def measure_arguments(trace: AgentTrace, case: CompiledCase, *, fast: bool = True) -> Measurement:
    """:meth:`ArgumentCorrectness.measure_compiled`; ``fast=False`` takes the general path
    (every tool's calls paired, every pair compared the slow, exact way, every pair explained),
    which gives the same measurement: tests hold the fast paths to it (proposals/0270)."""
    test_case = case.test_case
    if case.once(constrained):
        shared = counts_match(trace.steps, test_case)
        if shared is not None:
            return arguments_by_rules(shared, trace, test_case)
    form = case.derived(_ExpectedArgs.of)
    wanted, total, by_tool = form.wanted, form.total, form.by_tool
    if not total:
        return not_applicable("no expected arguments")
    made: dict[str, list[TraceStep]] = {name: [] for name in by_tool}
    denied: Counter[str] = Counter()
    for step in trace.steps:
        if step.type == "tool_call":
            name = step.tool_name
            if name in made:
                if step.denied:
                    denied[name] += 1
                else:
                    made[name].append(step)
    executed: dict[str, list[Mapping[str, Any]]] = {
        name: [step.tool_args or _NO_ARGS for step in steps] for name, steps in made.items()}

    passed = f"expected argument values matched: {total}/{total}"
    # Tools whose calls were made exactly as written, in order: each call matched whole by
    # the executed call at its own place (what the greedy search below would find).
    exact = {tool for tool in by_tool if fast and form.made_as_written(tool, executed[tool])}
    if len(exact) == len(by_tool):
        return Measurement(1.0, passed)
    rows = form.rows(plain=fast)
    rest = [tool for tool in by_tool if tool not in exact]
    # Knowing a tool's executed arguments plain JSON costs about one comparison per call; it
    # pays where each executed call meets several expected ones.
    plain = {tool for tool in rest
             if fast and len(by_tool[tool]) >= _PLAIN_FROM and is_plain_json(executed[tool])}
    if all(
        _all_found([rows[call.position] for call in by_tool[tool]], executed[tool],
                   plain=tool in plain)
        for tool in rest
    ):
        return Measurement(1.0, passed)
    # Each expected call's executed call, and whether it matched every value (then there is
    # nothing to explain).
    partner: dict[int, tuple[TraceStep | None, bool]] = {}
    matched = 0
    diagonal = form.diagonals() if exact else frozenset()
    for tool, calls in by_tool.items():
        if tool in diagonal and tool in exact:
            # The pairing would be the diagonal (see _ExpectedArgs.diagonals): no table.
            for call, step in zip(calls, made[tool], strict=True):
                matched += len(rows[call.position].items)
                partner[call.position] = (step, True)
            continue
        pairing = pair_calls([rows[call.position] for call in calls], executed[tool],
                             plain=tool in plain, first_whole=fast)
        matched += pairing.matched
        for call, column, gain in zip(calls, pairing.partners, pairing.gains, strict=True):
            partner[call.position] = (
                None if column is None else made[tool][column],
                fast and gain == len(rows[call.position].items))

    if matched == total:
        return Measurement(1.0, passed)
    # Only a failing run pays for the explanations and the side-by-side rows.
    problems: list[str] = []
    aligned: list[AlignedCall] = []
    seen: Counter[str] = Counter()
    for call in wanted:
        seen[call.tool] += 1
        label = call.tool if len(by_tool[call.tool]) == 1 else f"{call.tool}#{seen[call.tool]}"
        paired, whole = partner[call.position]
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
        row = rows[call.position]
        args = paired.tool_args or _NO_ARGS
        # A pair that matches every value has no mismatch to name: only the others pay.
        found = [] if whole else row.mismatches(args)
        problems.extend(f"{label}.{m}" for m in found)
        aligned.append(AlignedCall(
            call.position, paired.step_id, call.tool, "args differ" if found else "matched",
            not found, tuple(Difference.of(m) for m in found),
        ))
    head = f"expected argument values matched: {matched}/{total}"
    details = join_bounded([head, *problems])
    return Measurement(matched / total, with_unrecorded_note(details, matched / total, trace),
                       data=alignment_data(aligned))


class _ExpectedArgs:
    """What the metric reads from the test case, built once per case (a :class:`CompiledCase`
    form); the compiled rows and the diagonal tools only when a trace first needs them."""

    __slots__ = ("_diagonals", "_rows", "_texts", "args", "by_tool", "total", "wanted")

    def __init__(self, test_case: EvalTestCase,
                 calls: Sequence[ExpectedCall] | None = None) -> None:
        if calls is None:
            calls = expected_calls(test_case)
        self.wanted = [call for call in calls if call.args]
        """The expected calls that list arguments."""
        self.total = sum(len(call.args) for call in self.wanted)
        """Their expected key-value pairs."""
        self.by_tool: dict[str, list[ExpectedCall]] = {}
        for call in self.wanted:
            self.by_tool.setdefault(call.tool, []).append(call)
        self.args = {tool: [call.args for call in calls] for tool, calls in self.by_tool.items()}
        """Each tool's expected argument objects, in order."""
        self._texts: dict[str, bytes | None] = {}
        self._rows: dict[int, ExpectedArgs] | None = None
        self._diagonals: frozenset[str] | None = None

    @classmethod
    def of(cls, case: CompiledCase) -> _ExpectedArgs:
        """The form of ``case``, from the expected calls it checked once for every metric
        that reads them (:meth:`CompiledCase.derived`)."""
        return cls(case.test_case, case.once(expected_calls))

    def made_as_written(self, tool: str, actual: list[Mapping[str, Any]]) -> bool:
        """True when ``tool``'s executed arguments are its expected ones, call for call in
        order: equal by ``==`` and written to the same JSON by orjson, strictly.

        Then each expected call is matched whole by the executed call at its own place, which
        is what :func:`_all_found` would find, in one comparison in C. ``==`` alone could
        take ``true`` for ``1`` or a ``Decimal`` for a number; the same JSON text alone could
        take NaN (written ``null``) for null or an enum for its value; both together take
        only JSON equal to what the case wrote (proposals/0270). Only sizes
        :func:`_all_found` tries qualify, so the pairing's bound is never skipped.
        """
        calls = self.by_tool[tool]
        if len(calls) != len(actual) or len(calls) * len(actual) > _DIRECT_LIMIT:
            return False
        args = self.args[tool]
        if args != actual:
            return False
        text = self.text(tool)
        if text is None:
            return False
        try:
            return orjson.dumps(actual, option=_SORTED_STRICT) == text
        except TypeError:
            return False

    def text(self, tool: str) -> bytes | None:
        """``tool``'s expected arguments as JSON with sorted keys, when orjson writes them
        strictly (no subclass), without a matcher (no key, nor any text, starting with
        ``$``), nesting less than MAX_JSON_DEPTH, with no NaN or infinity (written ``null``);
        else None. Nothing of such a tool can fail to compile, so a run whose every tool was
        made as written needs no compiled row at all."""
        if tool not in self._texts:
            self._texts[tool] = _strict_text(self.args[tool])
        return self._texts[tool]

    def rows(self, *, plain: bool = False) -> dict[int, ExpectedArgs]:
        """Each expected call's arguments compiled, by position in ``expected_tool_calls``;
        raises TestCaseError at the first malformed matcher (and keeps nothing).

        ``plain``: a tool with a :meth:`text` holds no matcher and nothing that fails to
        compile, so each of its values is the :class:`Literal` compiling would give, built
        without the compiler's walk (:meth:`ExpectedArgs.plain`; proposals/0320)."""
        if self._rows is None:
            self._rows = {
                call.position: (ExpectedArgs.plain if plain and self.text(call.tool) is not None
                                else ExpectedArgs)(
                    call.args, f"expected_tool_calls[{call.position}].args")
                for call in self.wanted
            }
        return self._rows

    def diagonals(self) -> frozenset[str]:
        """The tools with a :meth:`text` where no call's arguments hold every key of a later
        call's with an equal value (``{"a": 1, "b": 2}`` holds ``{"a": 1}``).

        When such a tool's calls were made as written, each expected call's first fully
        matching executed call is the one at its own place, all different, so the pairing is
        that diagonal (:func:`~openeval.metrics._assignment.max_weight_assignment`'s first
        shortcut) and no table of weights is needed."""
        if self._diagonals is None:
            self._diagonals = frozenset(tool for tool, args in self.args.items()
                                        if self.text(tool) is not None
                                        and _none_holds_a_later(args))
        return self._diagonals


_SORTED_STRICT = orjson.OPT_SORT_KEYS | STRICT_DUMP


def _none_holds_a_later(args: list[Mapping[str, Any]]) -> bool:
    """True when no argument object holds every key of a later one with an equal value."""
    if len(args) * len(args) > _DIRECT_LIMIT:
        return False  # never made as written at this size (see _made_as_written)
    return not any(
        all(key in args[j] and json_equal(value, args[j][key]) for key, value in later.items())
        for k, later in enumerate(args) for j in range(k)
    )


def _strict_text(args: list[Mapping[str, Any]]) -> bytes | None:
    try:
        text = orjson.dumps(args, option=_SORTED_STRICT)
    except TypeError:
        return None  # not JSON orjson writes (an integer past 64 bits): the long way
    if (b'"$' in text or text.count(b"[") + text.count(b"{") >= MAX_JSON_DEPTH
            or (b"null" in text and not plain_literal(args)[0])):
        return None
    return text


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
    gains: tuple[int | None, ...] = ()
    """For each expected call, the key-value pairs its executed call matches, where the
    pairing counted them (None where it did not: an unpaired call, a spare pair); empty when
    not kept. A call whose gain is its whole count needs no explanation."""


def pair_calls(
    expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]], *, plain: bool = False,
    first_whole: bool = False,
) -> Pairing:
    """Return the pairing of ``expected`` calls' arguments with ``actual`` args that matches the
    most expected key-value pairs, no call used twice.

    Small inputs (up to ``_DIRECT_LIMIT`` pairs) are solved directly by the Hungarian method.
    Beyond, identical expected calls form one group, and so do executed calls that agree on
    every expected key (other keys cannot change a score); the weights are computed between
    groups and the exact optimum is found by :func:`max_weight_transport`. The cost is then
    O(len(actual) x keys) to group the executed calls, plus
    O(groups_expected x groups_executed x keys) comparisons and a flow over the groups: 200
    identical expected calls against a million executed ones is one group against a few.
    ``plain`` says that every executed argument object is plain JSON
    (:func:`~openeval.values.is_plain_json`): the weights are then counted by
    :meth:`ExpectedArgs.weight_plain`, with the same result. ``first_whole`` first tries
    :func:`_first_whole_pairing`, the same pairing without the table where it applies.
    """
    if first_whole:
        found = _first_whole_pairing(expected, actual, plain=plain)
        if found is not None:
            return found
    if len(expected) * len(actual) <= _DIRECT_LIMIT:
        weights = [[row.weight_plain(args) for args in actual] for row in expected] if plain \
            else [[row.weight(args) for args in actual] for row in expected]
        partners = max_weight_assignment(weights)
        matched = sum(w[c] for w, c in zip(weights, partners, strict=True) if c is not None)
        gains = tuple([None if c is None else w[c]
                       for w, c in zip(weights, partners, strict=True)])
        return Pairing(partners, matched, len(expected) * len(actual), gains)
    return _pair_groups(expected, actual)


def _first_whole_pairing(
    expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]], *, plain: bool = False
) -> Pairing | None:
    """The pairing :func:`pair_calls` finds when each expected call's first executed call
    matching all its values (in order) is a different one; None otherwise, or past the
    direct size.

    No pair can weigh more than a whole match, so each such call's first column of greatest
    weight is its first whole one: when these are all different,
    :func:`~openeval.metrics._assignment.max_weight_assignment` returns them (one row: its
    first best column; more: its shortcut for distinct best columns), and every gain is the
    call's full count. A tool that failed the greedy search only for another call of the
    case is then paired without its table (proposals/0320)."""
    if not expected or not actual or len(expected) * len(actual) > _DIRECT_LIMIT:
        return None
    partners: list[int | None] = []
    taken: set[int] = set()
    for row in expected:
        whole = row.whole_plain if plain else row.whole
        column = next((c for c, args in enumerate(actual) if whole(args)), None)
        if column is None or column in taken:
            return None
        taken.add(column)
        partners.append(column)
    gains = tuple(len(row.items) for row in expected)
    return Pairing(partners, sum(gains), len(expected) * len(actual), gains)


def _all_found(
    expected: Sequence[ExpectedArgs], actual: Sequence[Mapping[str, Any]], *, plain: bool = False
) -> bool:
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
        whole = row.whole_plain if plain else row.whole
        for offset in range(len(free)):
            at = (start + offset) % len(free)
            if whole(actual[free[at]]):
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

    __slots__ = ("args", "first", "items", "plain_items", "where")

    def __init__(self, args: Mapping[str, Any], where: str) -> None:
        self.args = args
        self.where = where
        # Sorted by key once: the details list the differences in this order.
        self.items: list[tuple[str, Any, Expected | None]] = [
            (key, value, None) if type(value) in _SCALARS and value == value
            else (key, _ABSENT, compile_expected(value, f"{where}.{key}"))
            for key, value in sorted(args.items(), key=lambda item: str(item[0]))
        ]
        self.plain_items: list[tuple[str, Any, int, Callable[[Any], Verdict] | None]] | None = None
        """:attr:`items` as :meth:`weight_plain` reads them, built on its first call (a case
        scored once may never need them)."""
        self.first = self.items
        """:attr:`items` in the order :meth:`whole` tries them: as sorted, where a matcher
        may stand (its test is user-steered: it runs where it always ran)."""

    @classmethod
    def plain(cls, args: Mapping[str, Any], where: str) -> ExpectedArgs:
        """``ExpectedArgs(args, where)`` of arguments orjson writes strictly, with no ``"$``
        in their text, fewer than MAX_JSON_DEPTH brackets and no NaN or infinity (a tool's
        :meth:`_ExpectedArgs.text`): each value that is no plain scalar then compiles to
        ``Literal(value)``, which is built here directly. Tests hold the two equal."""
        row: ExpectedArgs = object.__new__(cls)
        row.args = args
        row.where = where
        # Sorted as __init__ sorts: a strict text has only exact str keys (orjson refuses any
        # other), all different, so the pairs order by their keys and no value is compared.
        row.items = [
            (key, value, None) if type(value) in _SCALARS and value == value
            else (key, _ABSENT, MatchLiteral(value))
            for key, value in sorted(args.items())
        ]
        row.plain_items = None
        # The scalars first: a call of another purpose usually differs in one (a path, an
        # id), found by one ==, before a whole list or object is walked. Every test here is a
        # comparison of JSON values, so the order changes only how soon a miss is seen.
        row.first = ([item for item in row.items if item[2] is None]
                     + [item for item in row.items if item[2] is not None])
        return row

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

    def whole(self, actual: Mapping[str, Any]) -> bool:
        """Whether ``actual`` matches every expected value (:meth:`weight` is the count):
        the first value missed ends the look, the usual answer for a call of another
        purpose."""
        for key, plain, field in self.first:
            got = actual.get(key, MISSING)
            if field is None:
                kind = type(got)
                if kind is type(plain) or (kind in _NUMBERS and type(plain) in _NUMBERS):
                    if plain != got:
                        return False
                elif kind in _SCALARS or got is MISSING or not json_equal(plain, got):
                    return False  # another scalar, or a subclass that is not its value
            elif field.test(got) is not True:
                return False
        return True

    def whole_plain(self, actual: Mapping[str, Any]) -> bool:
        """:meth:`whole` of an ``actual`` that :func:`~openeval.values.is_plain_json` holds
        plain, compared as :meth:`weight_plain` counts."""
        items = self.plain_items
        if items is None:
            items = self.plain_items = [_plain_item(key, plain, field)
                                        for key, plain, field in self.items]
        for key, plain, mode, test in items:
            got = actual.get(key, MISSING)
            if mode == _SCALAR:
                kind = type(got)
                if kind is type(plain) or (kind in _NUMBERS and type(plain) in _NUMBERS):
                    if plain != got:
                        return False
                elif kind in _SCALARS or got is MISSING or not json_equal(plain, got):
                    return False
            elif test is not None:
                if test(got) is not True:
                    return False
            elif plain != got or (mode != _LITERAL and json_compare(plain, got) is not True):
                return False
        return True

    def weight_plain(self, actual: Mapping[str, Any]) -> int:
        """:meth:`weight` of an ``actual`` that :func:`~openeval.values.is_plain_json` holds
        plain: a value without a matcher is compared by ``==`` in C, confirmed by
        :func:`~openeval.values.json_compare` only where a boolean could pass for 0 or 1."""
        items = self.plain_items
        if items is None:
            items = self.plain_items = [_plain_item(key, plain, field)
                                        for key, plain, field in self.items]
        count = 0
        for key, plain, mode, test in items:
            got = actual.get(key, MISSING)
            if mode == _SCALAR:
                kind = type(got)
                if kind is type(plain) or (kind in _NUMBERS and type(plain) in _NUMBERS):
                    count += plain == got
                elif kind not in _SCALARS and got is not MISSING and json_equal(plain, got):
                    count += 1  # an int or str enum, which orjson takes for its value
            elif test is not None:
                if test(got) is True:
                    count += 1
            elif plain == got and (mode == _LITERAL or json_compare(plain, got) is True):
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


_SCALAR, _LITERAL, _BOOLISH_LITERAL, _MATCHER = range(4)
"""How :meth:`ExpectedArgs.weight_plain` compares a value: a plain scalar; a plain JSON
object or array (``==`` decides); one holding a boolean, 0 or 1 (``==`` refuses, and
:func:`~openeval.values.json_compare` confirms); anything with a matcher (its test)."""


def _plain_item(
    key: str, plain: Any, field: Expected | None
) -> tuple[str, Any, int, Callable[[Any], Verdict] | None]:
    """One value of :attr:`ExpectedArgs.plain_items`: its key, the value ``==`` compares (a
    scalar, or a literal's JSON), how it compares, and the matcher's test (matchers only)."""
    if field is None:
        return key, plain, _SCALAR, None
    literal, boolish = (plain_literal(field.source) if type(field) is MatchLiteral
                        else (False, False))
    if not literal:
        return key, _ABSENT, _MATCHER, field.test
    return key, field.source, _BOOLISH_LITERAL if boolish else _LITERAL, None


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
    gains: list[int | None] = [None] * len(expected)
    used = [0] * len(col_members)
    matched = 0
    for group, members in enumerate(row_members):
        position = 0
        for col in range(len(col_members)):
            for _ in range(flows.get((group, col), 0)):
                partners[members[position]] = col_members[col][used[col]]
                gains[members[position]] = weights[group][col]
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
    return Pairing(partners, matched, work, tuple(gains))

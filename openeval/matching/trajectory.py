"""Trajectory matching: do the executed tool calls fit the expected ones?
(docs/semantics.md#trajectory-matching)

Five modes over the executed tool calls (denied and failed calls left out unless
``include_denied``) and the expected calls, repeats counted as multisets:

- ``strict``: the same calls in the same order, nothing missing or extra; calls made in one
  turn (``TraceStep.turn``) have no order among themselves.
- ``in_order``: every expected call appears in the expected order; others may come between;
  calls made in one turn have no order among themselves here either.
- ``unordered``: the same calls in any order, nothing missing or extra.
- ``superset``: every expected call appears, in any order; extra calls allowed.
- ``subset``: every executed call is one of the expected calls; expected ones may be missing.

Arguments compare per :mod:`openeval.matching.calls`. Matching is optimal, never a greedy
first fit: a maximum bipartite matching (:mod:`openeval.matching.flow`) for the unordered
modes, the earliest compatible call for ``in_order`` (which is optimal, see the proposal) and a
perfect matching inside each turn for ``strict``. The work is bounded: candidates are only
calls of the same tool, found through an index on the expected plain argument values, and
identical calls are collapsed into one node with a count. See
proposals/0030-trajectory-matching.md for the algorithm, its complexity and the measurements.
"""

from __future__ import annotations

import difflib
from bisect import bisect_right
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NamedTuple, cast, get_args

from openeval.errors import OpenEvalError, TestCaseError
from openeval.matching.calls import (
    ABSENT_KEY,
    ARGS_MODES,
    MAX_COMPARISONS,
    ArgsMode,
    CallRules,
    ExpectedCall,
    glob_pattern,
)
from openeval.matching.constraints import Constraints, read_constraints
from openeval.matching.flow import SMALL, augment, max_pairs
from openeval.matching.matchers import is_matcher_object
from openeval.matching.solver import MODE_RULES, solve
from openeval.models import TraceStep
from openeval.values import MISSING, canonical_key, short_json

TrajectoryMode = Literal["strict", "in_order", "unordered", "superset", "subset"]
TRAJECTORY_MODES: tuple[str, ...] = get_args(TrajectoryMode)

SPEC_KEYS: tuple[str, ...] = (
    "args", "defaults", "ignore_args", "include_denied", "mode", "per_tool",
)
"""The keys of a test case's ``trajectory`` object."""

DETAILS_LIMIT = 300
"""Longest details line written; the rest is counted as ``+N more``."""

_NO_ARGS: Mapping[str, Any] = {}
_INDEX_FROM = 8  # below this many candidate groups, testing each beats building an index


def _fail(message: str, where: str, source: str | Path | None) -> TestCaseError:
    return TestCaseError(message, source=source, location=where or None)


def _choice(value: Any, choices: Sequence[str], where: str, source: str | Path | None) -> str:
    if isinstance(value, str) and value in choices:
        return value
    shown = short_json(value)
    text = f"{shown} is not one of {', '.join(choices)}"
    if isinstance(value, str):
        close = difflib.get_close_matches(value, choices, n=1)
        if close:
            text += f' (did you mean "{close[0]}"?)'
    raise _fail(text, where, source)


@dataclass(frozen=True)
class TrajectorySpec:
    """How the executed calls must match the expected ones: a test case's ``trajectory``.

    ``per_tool`` maps a tool to an args mode, or to the only argument paths compared for it;
    ``ignore_args`` holds fnmatch globs over dotted argument paths, removed from both sides;
    ``defaults`` declares per tool the argument values that count as absent.
    """

    mode: TrajectoryMode = "in_order"
    args: ArgsMode = "superset"
    per_tool: Mapping[str, str | tuple[str, ...]] = field(default_factory=dict)
    ignore_args: tuple[str, ...] = ()
    defaults: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    include_denied: bool = False

    def __post_init__(self) -> None:
        _choice(self.mode, TRAJECTORY_MODES, "trajectory.mode", None)
        _choice(self.args, ARGS_MODES, "trajectory.args", None)
        for tool, rule in self.per_tool.items():
            if isinstance(rule, str):
                _choice(rule, ARGS_MODES, f"trajectory.per_tool.{tool}", None)

    @classmethod
    def from_json(
        cls, value: Any, where: str = "trajectory", source: str | Path | None = None
    ) -> TrajectorySpec:
        """Return the spec written as the JSON object ``value`` (a test case's ``trajectory``).

        Raises TestCaseError naming ``source``, the JSON path and the valid choices for an
        unknown key, a mode that is not one of the modes (``trajectory.mode: "strcit" is not
        one of strict, in_order, unordered, superset, subset``) or a value of the wrong type.
        """
        if not isinstance(value, Mapping):
            raise _fail(f"expected a JSON object, got {short_json(value)}", where, source)
        for key in value:
            if key not in SPEC_KEYS:
                raise _fail(
                    f"unknown key {short_json(key)}; expected one of: {', '.join(SPEC_KEYS)}",
                    f"{where}.{key}", source,
                )
        mode = _choice(value.get("mode", "in_order"), TRAJECTORY_MODES, f"{where}.mode", source)
        args = _choice(value.get("args", "superset"), ARGS_MODES, f"{where}.args", source)
        include_denied = value.get("include_denied", False)
        if not isinstance(include_denied, bool):
            raise _fail(
                f"expected true or false, got {short_json(include_denied)}",
                f"{where}.include_denied", source,
            )
        return cls(
            mode=cast(TrajectoryMode, mode),
            args=cast(ArgsMode, args),
            per_tool=_per_tool(value.get("per_tool", {}), f"{where}.per_tool", source),
            ignore_args=_globs(value.get("ignore_args", []), f"{where}.ignore_args", source),
            defaults=_defaults(value.get("defaults", {}), f"{where}.defaults", source),
            include_denied=include_denied,
        )

    def to_json(self) -> dict[str, Any]:
        """Return the spec as the JSON object :meth:`from_json` reads."""
        return {
            "mode": self.mode,
            "args": self.args,
            "per_tool": {
                tool: rule if isinstance(rule, str) else list(rule)
                for tool, rule in self.per_tool.items()
            },
            "ignore_args": list(self.ignore_args),
            "defaults": {tool: dict(values) for tool, values in self.defaults.items()},
            "include_denied": self.include_denied,
        }

    def rules_for(self, tool: str) -> CallRules:
        """Return the argument rules that apply to calls of ``tool``."""
        rule = self.per_tool.get(tool)
        ignore = glob_pattern(self.ignore_args)
        defaults = self.defaults.get(tool)
        if rule is None or isinstance(rule, str):
            mode = self.args if rule is None else cast(ArgsMode, rule)
            return CallRules(mode, (), ignore, defaults)
        return CallRules(None, tuple(rule), ignore, defaults)


def _object(value: Any, where: str, source: str | Path | None) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise _fail(f"expected a JSON object, got {short_json(value)}", where, source)
    return value


def _per_tool(
    value: Any, where: str, source: str | Path | None
) -> dict[str, str | tuple[str, ...]]:
    out: dict[str, str | tuple[str, ...]] = {}
    for tool, rule in _object(value, where, source).items():
        at = f"{where}.{tool}"
        if isinstance(rule, str):
            out[tool] = _choice(rule, ARGS_MODES, at, source)
        elif isinstance(rule, list) and rule and all(isinstance(p, str) and p for p in rule):
            out[tool] = tuple(rule)
        else:
            raise _fail(
                f"expected one of {', '.join(ARGS_MODES)} or a non-empty list of argument "
                f"paths, got {short_json(rule)}",
                at, source,
            )
    return out


def _globs(value: Any, where: str, source: str | Path | None) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(g, str) and g for g in value):
        raise _fail(
            f"expected a list of argument path globs, got {short_json(value)}", where, source
        )
    return tuple(value)


def _defaults(
    value: Any, where: str, source: str | Path | None
) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for tool, values in _object(value, where, source).items():
        at = f"{where}.{tool}"
        for arg, default in _object(values, at, source).items():
            if is_matcher_object(default):
                raise _fail(
                    "a default is a plain value, not a matcher", f"{at}.{arg}", source
                )
        out[tool] = dict(values)
    return out


def compile_calls(
    expected: Sequence[Mapping[str, Any]],
    spec: TrajectorySpec,
    *,
    where: str = "expected_tool_calls",
    source: str | Path | None = None,
) -> list[ExpectedCall]:
    """Return the expected calls compiled under ``spec`` (their tool's rules applied).

    Raises TestCaseError naming the JSON path for an entry that is not ``{"tool": name,
    "args": {...}}`` or holds a malformed matcher.
    """
    rules: dict[str, CallRules] = {}
    calls: list[ExpectedCall] = []
    for index, entry in enumerate(expected):
        # type() first: the Mapping ABC check is slow, and nearly every entry is a dict.
        if type(entry) is not dict and not isinstance(entry, Mapping):
            raise _fail('expected an object {"tool": ..., "args": {...}}',
                        f"{where}[{index}]", source)
        tool = entry.get("tool")
        if type(tool) is not str or not tool:
            raise _fail("expected a non-empty tool name", f"{where}[{index}].tool", source)
        args = entry.get("args")
        if args is None:
            args = _NO_ARGS
        elif type(args) is not dict and not isinstance(args, Mapping):
            raise _fail("expected a JSON object of arguments", f"{where}[{index}].args", source)
        rule = rules.get(tool)
        if rule is None:
            rule = rules[tool] = spec.rules_for(tool)
        calls.append(ExpectedCall(index, tool, args, rule, where, source))
    return calls


class AlignmentRow(NamedTuple):
    """One row of the side-by-side view: an expected call, an executed call, or both."""

    expected: int | None
    """Index in the expected calls; None for an executed call that no expected one took."""
    executed: int | None
    """Index of the executed call's step in the trace's ``steps``; None for a missing call."""
    ok: bool
    """False where this row is what makes the trajectory fail."""
    reason: str
    """``matched``, ``extra call``, ``missing``, or the argument that differs."""


@dataclass(frozen=True)
class TrajectoryMatch:
    """The verdict of :func:`match_trajectory`, with the alignment behind it."""

    matched: bool
    """True when the executed calls satisfy the mode."""
    details: str
    """One line: on failure the first divergence (position, expected call, executed call and,
    for arguments, the path with both values), then the missing and extra calls."""
    pairs: tuple[AlignmentRow, ...]
    """The alignment, in display order: every expected and every executed tool call once."""
    matched_expected: int
    """How many expected calls found a partner (for ``in_order``: counted by the same
    earliest-match walk, skipping the calls that found none)."""
    work: int = 0
    """Comparisons and graph steps spent; tests bound it instead of timing."""
    taken: tuple[tuple[int, int], ...] = ()
    """With order or count keys (:mod:`openeval.matching.constraints`): the assignment the
    verdict rests on, as ``(expected index, step index)`` pairs; on a failure, the one the
    details explain. Empty for a case without those keys."""
    broken: tuple[Broken, ...] = ()
    """With order or count keys: each edge or count the assignment breaks."""




class Broken(NamedTuple):
    """An edge or count an assignment breaks."""

    entry: int | None
    """The expected entry whose rule is broken (None: no single one, the rules together)."""
    positions: tuple[int, ...]
    """The counted calls (positions among them) to mark in the alignment."""
    kind: Literal["order", "count", "together"]
    text: str
    """The phrase the details give: ``refund_payment: expected 1 time, executed 2 times
    (steps 3, 5)``."""


def _calls_of(taken: Sequence[int | None]) -> dict[int, list[int]]:
    """Return the positions of the calls each entry took, in order."""
    calls: dict[int, list[int]] = {}
    for p, e in enumerate(taken):
        if e is not None:
            calls.setdefault(e, []).append(p)
    return calls


class _Group:
    """Identical executed calls: same tool, same arguments (as compared)."""

    __slots__ = ("args", "key", "keys", "members", "tool")

    def __init__(self, tool: str, args: Mapping[str, Any], key: Hashable) -> None:
        self.tool = tool
        self.args = args
        self.key = key
        self.keys: dict[str, Hashable] = {}
        self.members: list[int] = []

    def key_of(self, name: str) -> Hashable:
        """Return the canonical key of the argument ``name`` (``ABSENT_KEY`` when absent)."""
        found = self.keys.get(name)
        if found is None:
            value = self.args.get(name, MISSING)
            found = ABSENT_KEY if value is MISSING else canonical_key(value)
            self.keys[name] = found
        return found


def match_trajectory(
    steps: Sequence[TraceStep], expected: Sequence[Mapping[str, Any]], spec: TrajectorySpec,
    *, edges: bool = True, calls: list[ExpectedCall] | None = None,
) -> TrajectoryMatch:
    """Return whether the tool calls among ``steps`` match ``expected`` under ``spec``.

    ``expected`` holds ``{"tool": name, "args": {...}}`` entries (``args`` may hold matchers).
    Entries may also carry the order and count keys of :mod:`openeval.matching.constraints`;
    then one exact search (:mod:`openeval.matching.solver`) decides. Raises TestCaseError for
    a malformed expected entry. ``edges=False`` leaves the ``after`` and ``uses_result_of``
    edges out (what the metrics that do not judge order read). ``calls`` is
    ``compile_calls(expected, spec)`` when the caller compiled it once for many traces.
    """
    constraints = read_constraints(expected)
    if calls is None:
        calls = compile_calls(expected, spec)
    matching = _Matching(steps, calls, spec)
    if constraints is None:
        return matching.run()
    if not edges:
        constraints = constraints.relaxed(edges=True, counts=False)
    return matching.constrained(constraints, expected)


class _Matching:
    """The state of one match: executed calls grouped, compatibility memoised, work counted."""

    def __init__(
        self, steps: Sequence[TraceStep], expected: list[ExpectedCall], spec: TrajectorySpec
    ) -> None:
        self.spec = spec
        self.expected = expected
        self.steps = steps
        self.work = 0
        self.comparisons = 0
        # The counted calls, position by position: step index, number among all tool calls
        # (as "call N" in details), tool, turn and group.
        self.steps_at: list[int] = []
        self.numbers: list[int] = []
        self.tools: list[str] = []
        self.turns: list[int | None] = []
        self.group_of: list[int] = []
        self.groups: list[_Group] = []
        self.left_out: list[tuple[int, int, str, str]] = []  # (step, number, tool, why)
        rules: dict[str, CallRules] = {call.tool: call.rules for call in expected}
        by_key: dict[tuple[str, Hashable], int] = {}
        self.by_key = by_key
        self.by_tool: dict[str, list[int]] = {}
        number = 0
        include_denied = spec.include_denied
        groups, by_tool, tools = self.groups, self.by_tool, self.tools
        for index, step in enumerate(steps):
            if step.type != "tool_call":
                continue
            number += 1
            tool = step.tool_name or ""
            if not include_denied and (step.denied or step.error is not None):
                why = "denied" if step.denied else "called but failed"
                if step.error:
                    why += f": {step.error}"
                self.left_out.append((index, number, tool, why))
                continue
            raw = step.tool_args or _NO_ARGS
            rule = rules.get(tool)
            if rule is None:
                rule = rules[tool] = spec.rules_for(tool)
            args = raw if rule.passthrough else rule.normalize(raw)
            key = canonical_key(args)
            group = by_key.get((tool, key))
            if group is None:
                group = len(groups)
                by_key[(tool, key)] = group
                groups.append(_Group(tool, args, key))
                if tool in by_tool:
                    by_tool[tool].append(group)
                else:
                    by_tool[tool] = [group]
                self.work += 1
            groups[group].members.append(len(tools))
            self.steps_at.append(index)
            self.numbers.append(number)
            tools.append(tool)
            self.turns.append(step.turn)
            self.group_of.append(group)
        self.kinds: list[list[int]] = []  # expected "kind" -> expected indices
        self.kind_of: list[int] = []
        by_expected: dict[Hashable, int] = {}
        for call in expected:
            kind = by_expected.setdefault(call.key, len(self.kinds))
            if kind == len(self.kinds):
                self.kinds.append([])
            self.kinds[kind].append(call.index)
            self.kind_of.append(kind)
        self.first = [expected[members[0]] for members in self.kinds]
        self.memo: dict[tuple[int, int], bool] = {}
        self.candidates_of: dict[int, list[int]] = {}
        self.tool_groups: dict[str, dict[frozenset[str], list[int]]] = {}
        self.indexes: dict[tuple[str, frozenset[str], tuple[str, ...]], dict[Any, list[int]]] = {}

    # -- compatibility --------------------------------------------------------------------

    def compatible(self, kind: int, group: int) -> bool:
        """Return whether expected kind ``kind`` matches executed group ``group`` (memoised)."""
        call = self.first[kind]
        if call.exact_plain:  # plain values compared exactly: the canonical keys decide
            target = self.groups[group]
            return call.whole == target.key and call.tool == target.tool
        found = self.memo.get((kind, group))
        if found is None:
            found = self.test(kind, group)
            self.memo[(kind, group)] = found
        return found

    def test(self, kind: int, group: int) -> bool:
        """Compare expected kind ``kind`` with executed group ``group``, counting the work."""
        call = self.first[kind]
        target = self.groups[group]
        self.work += 1
        self.comparisons += 1
        if self.comparisons > MAX_COMPARISONS:
            raise OpenEvalError(
                f"trajectory matching needs more than {MAX_COMPARISONS:,} argument comparisons "
                f"({len(self.kinds):,} different expected calls against {len(self.groups):,} "
                "different executed calls); give the expected calls plain values an index can "
                "use, or split the case"
            )
        if call.tool != target.tool:
            return False
        if call.plain:
            return call.matches_keys(target.key, target.key_of, target.args)
        return call.test(target.args) is True

    def shapes(self, tool: str) -> dict[frozenset[str], list[int]]:
        """Return the executed groups of ``tool`` by their set of argument keys."""
        shapes = self.tool_groups.get(tool)
        if shapes is None:
            shapes = {}
            for group in self.by_tool.get(tool, ()):
                shapes.setdefault(frozenset(self.groups[group].args), []).append(group)
            self.work += len(self.by_tool.get(tool, ()))
            self.tool_groups[tool] = shapes
        return shapes

    def candidates(self, kind: int) -> list[int]:
        """Return the executed groups compatible with expected kind ``kind``, earliest first.

        Only groups of the same tool whose argument keys fit the args mode are considered;
        among those, an index on the expected plain values finds the few that can match.
        """
        found = self.candidates_of.get(kind)
        if found is not None:
            return found
        call = self.first[kind]
        mode = call.mode
        if call.exact_plain:
            # Plain values compared exactly: the one group with the same canonical key.
            self.work += 1
            group = self.by_key.get((call.tool, call.whole))
            found = [] if group is None else [group]
            self.candidates_of[kind] = found
            return found
        found = []
        names = None if mode in ("superset", "ignore") else call.names  # a new set per call
        required = call.required
        memo = self.memo
        for shape, members in self.shapes(call.tool).items():
            self.work += 1
            if mode == "ignore":
                found.extend(members)
                continue
            if not required <= shape and mode != "subset":
                continue
            if names is not None and not shape <= names:
                continue
            pool = members
            # A few candidates are tested directly; an index pays off on many.
            if len(members) > _INDEX_FROM:
                keys = tuple(sorted(key for key in call.literal if key in shape))
                if keys:
                    index = self.index(call.tool, shape, keys, members)
                    pool = index.get(tuple(call.literal[key] for key in keys), [])
            # Each (kind, group) pair is met once here: the memo is read (a strict match has
            # tested some pairs already) but not grown, so memory stays small.
            for group in pool:
                known = memo.get((kind, group))
                if known if known is not None else self.test(kind, group):
                    found.append(group)
        if len(found) > 1:
            found.sort(key=lambda group: self.groups[group].members[0])
        self.candidates_of[kind] = found
        return found

    def index(
        self, tool: str, shape: frozenset[str], keys: tuple[str, ...], members: list[int]
    ) -> dict[Any, list[int]]:
        index = self.indexes.get((tool, shape, keys))
        if index is None:
            index = {}
            for group in members:
                key_of = self.groups[group].key_of
                index.setdefault(tuple(key_of(key) for key in keys), []).append(group)
            self.work += len(members)
            self.indexes[(tool, shape, keys)] = index
        return index

    # -- the modes ------------------------------------------------------------------------

    def run(self) -> TrajectoryMatch:
        mode = self.spec.mode
        if mode == "strict":
            return self.strict()
        if mode == "in_order":
            return self.in_order()
        return self.unordered(mode)

    def pair_all(self) -> dict[int, int]:
        """Return a maximum one-to-one pairing: expected index -> executed call position."""
        edges = [self.candidates(kind) for kind in range(len(self.kinds))]
        greedy = self.pair_greedily(edges)
        if len(greedy) == min(len(self.expected), len(self.tools)):
            return greedy  # nothing can pair more: as good as the maximum flow
        if len(self.groups) <= SMALL:
            return self.pair_by_paths(greedy, edges)
        flows, work = max_pairs(
            [len(members) for members in self.kinds],
            [len(group.members) for group in self.groups],
            edges,
        )
        self.work += work
        partner: dict[int, int] = {}
        used = [0] * len(self.groups)
        for kind, members in enumerate(self.kinds):
            position = 0
            for group in edges[kind]:
                amount = flows.get((kind, group), 0)
                for _ in range(amount):
                    partner[members[position]] = self.groups[group].members[used[group]]
                    position += 1
                    used[group] += 1
        return partner

    def pair_by_paths(self, greedy: dict[int, int], edges: list[list[int]]) -> dict[int, int]:
        """Return a maximum pairing grown from ``greedy`` by augmenting paths (few groups)."""
        start: list[int | None] = [
            self.group_of[greedy[call.index]] if call.index in greedy else None
            for call in self.expected
        ]
        options = [edges[self.kind_of[call.index]] for call in self.expected]
        held, work = augment(start, options, [len(group.members) for group in self.groups])
        self.work += work
        partner: dict[int, int] = {}
        used = [0] * len(self.groups)
        for index, group in enumerate(held):
            if group is not None:
                partner[index] = self.groups[group].members[used[group]]
                used[group] += 1
        return partner

    def pair_greedily(self, edges: list[list[int]]) -> dict[int, int]:
        """Return a first-fit pairing (optimal only when it pairs one whole side)."""
        partner: dict[int, int] = {}
        used = [0] * len(self.groups)
        for kind, members in enumerate(self.kinds):
            groups = iter(edges[kind])
            group = next(groups, None)
            for index in members:
                while group is not None and used[group] == len(self.groups[group].members):
                    group = next(groups, None)
                if group is None:
                    break
                partner[index] = self.groups[group].members[used[group]]
                used[group] += 1
            self.work += len(members)
        return partner

    def unordered(self, mode: str) -> TrajectoryMatch:
        partner = self.pair_all()
        taken = set(partner.values())
        missing = [call.index for call in self.expected if call.index not in partner]
        extra = [position for position in range(len(self.tools)) if position not in taken]
        missing_counts = mode in ("unordered", "superset")
        extra_counts = mode in ("unordered", "subset")
        matched = not (missing_counts and missing) and not (extra_counts and extra)
        rows = self.rows_by_position(partner, missing, extra_ok=not extra_counts,
                                     missing_ok=not missing_counts)
        if matched:
            return self.result(True, self.success(len(partner)), rows, len(partner))
        parts: list[str] = []
        if missing_counts and missing:
            parts.append(self.explain_missing(missing[0], set(extra)))
        else:
            parts.append(self.explain_extra(extra[0], set(missing)))
        parts += self.lists(missing if missing_counts else [], extra if extra_counts else [])
        return self.result(False, self.failure(parts), rows, len(partner))

    def in_order(self) -> TrajectoryMatch:
        flat = self.in_order_by_position()
        if flat.matched or all(len(block) == 1 for block in self.turn_blocks()):
            return flat
        # Calls of one turn were made together: their recorded order means nothing, so a run
        # that fails by position may still keep the expected order from turn to turn. Looser
        # than by position, so a failure there is a failure here, explained by position.
        partner = self.in_order_by_turn()
        if partner is None:
            return flat
        rows = self.rows_by_position(partner, [], extra_ok=True, missing_ok=False)
        return self.result(True, self.success(len(partner)), rows, len(partner))

    def in_order_by_turn(self) -> dict[int, int] | None:
        """Return a pairing that keeps the expected order from turn to turn, any order within
        one, or None when there is none.

        Each turn takes the longest prefix of the expected calls still open that it can pair
        in full (a binary search: a prefix pairs whenever a longer one does). Taking the
        longest is never worse: whatever later turns can take of a longer remainder, they can
        take of its suffix.
        """
        partner: dict[int, int] = {}
        start = 0
        total = len(self.expected)
        for block in self.turn_blocks():
            if start == total:
                break
            low, high = 0, min(len(block), total - start)
            best: dict[int, int] = {}
            while low < high:
                size = (low + high + 1) // 2
                paired = self.pair_block(list(range(start, start + size)), block)
                if len(paired) == size:
                    low, best = size, paired
                else:
                    high = size - 1
            partner.update(best)
            start += low
        return partner if start == total else None

    def in_order_by_position(self) -> TrajectoryMatch:
        positions: dict[int, list[int]] = {}
        partner: dict[int, int] = {}
        previous = -1
        first: tuple[int, int] | None = None
        for call in self.expected:
            kind = self.kind_of[call.index]
            found = positions.get(kind)
            if found is None:
                found = sorted(
                    p for group in self.candidates(kind) for p in self.groups[group].members
                )
                positions[kind] = found
            at = bisect_right(found, previous)
            self.work += 1
            if at < len(found):
                partner[call.index] = found[at]
                previous = found[at]
            elif first is None:
                first = (call.index, previous)
        missing = [call.index for call in self.expected if call.index not in partner]
        rows = self.rows_in_order(partner)
        if first is None:
            return self.result(True, self.success(len(partner)), rows, len(partner))
        index, after = first
        parts = [self.explain_out_of_order(index, after, positions[self.kind_of[index]])]
        parts += self.lists(missing, [])
        return self.result(False, self.failure(parts), rows, len(partner))

    def strict(self) -> TrajectoryMatch:
        blocks = self.turn_blocks()
        partner: dict[int, int] = {}
        rows: list[AlignmentRow] = []
        first: str | None = None
        offset = 0
        for block in blocks:
            segment = list(range(offset, min(offset + len(block), len(self.expected))))
            offset += len(block)
            paired = self.pair_block(segment, block)
            partner.update(paired)
            taken = set(paired.values())
            spare_calls = [p for p in block if p not in taken]
            spare_expected = [i for i in segment if i not in paired]
            for i in segment:
                if i in paired:
                    rows.append(self.row(i, paired[i], True, "matched"))
            for i, p in zip(spare_expected, spare_calls, strict=False):
                rows.append(self.row(i, p, False, self.difference(i, p)))
            for p in spare_calls[len(spare_expected):]:
                rows.append(self.row(None, p, False, "extra call"))
            for i in spare_expected[len(spare_calls):]:
                rows.append(self.row(i, None, False, "missing"))
            if first is None and (spare_calls or spare_expected):
                first = self.explain_block(block, spare_expected, spare_calls)
        for i in range(offset, len(self.expected)):
            rows.append(self.row(i, None, False, "missing"))
            if first is None:
                first = (
                    f"expected call {i + 1} {self.expected[i].tool}: missing (the run made "
                    f"{_plural(len(self.tools), 'counted call')})"
                )
        rows = self.with_left_out(rows)
        if first is None:
            return self.result(True, self.success(len(partner)), tuple(rows), len(partner))
        # Missing and extra as multisets, whatever the order: what a fix must add or remove.
        overall = self.pair_all()
        taken = set(overall.values())
        missing = [call.index for call in self.expected if call.index not in overall]
        extra = [p for p in range(len(self.tools)) if p not in taken]
        parts = [first, *self.lists(missing, extra)]
        if not missing and not extra:
            parts.append("the same calls were made in another order")
        return self.result(False, self.failure(parts), tuple(rows), len(partner))

    def turn_blocks(self) -> list[list[int]]:
        """Return the counted calls cut into turns: runs of calls sharing a turn number."""
        blocks: list[list[int]] = []
        turns = self.turns
        for position, turn in enumerate(turns):
            if blocks and turn is not None and turns[blocks[-1][-1]] == turn:
                blocks[-1].append(position)
            else:
                blocks.append([position])
        return blocks

    def pair_block(self, segment: list[int], block: list[int]) -> dict[int, int]:
        """Return a maximum pairing of the expected calls ``segment`` with the calls ``block``."""
        if len(segment) == 1 and len(block) == 1:
            i, p = segment[0], block[0]
            if self.compatible(self.kind_of[i], self.group_of[p]):
                return {i: p}
            return {}
        # First fit, testing only the calls still free: the pairing the first fit over every
        # (expected, call) edge makes, without the tests it would never use.
        taken: set[int] = set()
        greedy: dict[int, int] = {}
        for i in segment:
            kind = self.kind_of[i]
            for b, p in enumerate(block):
                if b not in taken and self.compatible(kind, self.group_of[p]):
                    taken.add(b)
                    greedy[i] = p
                    break
        if len(greedy) == min(len(segment), len(block)):
            return greedy  # one side fully paired: nothing can pair more
        edges = [
            [b for b, p in enumerate(block)
             if self.compatible(self.kind_of[i], self.group_of[p])]
            for i in segment
        ]
        slot = {p: b for b, p in enumerate(block)}
        start = [slot[greedy[i]] if i in greedy else None for i in segment]
        if len(block) <= SMALL:
            held, work = augment(start, edges, [1] * len(block))
            self.work += work
            return {i: block[b] for i, b in zip(segment, held, strict=True) if b is not None}
        flows, work = max_pairs([1] * len(segment), [1] * len(block), edges)
        self.work += work
        return {segment[left]: block[right] for (left, right) in flows}

    # -- order and counts ---------------------------------------------------------------

    def constrained(
        self, constraints: Constraints, written: Sequence[Mapping[str, Any]]
    ) -> TrajectoryMatch:
        """Match under the order and count keys: one exact search over the mode's rules, the
        counts and the edges; on a failure, the same search with rules left out finds which
        edge or count the run breaks."""
        options = self.options()
        if constraints.has_uses:
            self.need_turns(constraints, options)
        rules = MODE_RULES[self.spec.mode]
        found = self.search(options, constraints, rules)
        if found is not None:
            return self.assigned(found, constraints, [])
        for relaxed in (constraints.relaxed(edges=True, counts=False),
                        constraints.relaxed(edges=True, counts=True)):
            loose = self.search(options, relaxed, rules)
            if loose is None:
                continue
            broken = self.broken_edges(loose, constraints) + self.broken_counts(loose, constraints)
            if broken:
                return self.assigned(loose, constraints, broken)
        return self.mode_failure(constraints, written, options)

    def options(self) -> list[list[int]]:
        """Return, for each counted call, the expected entries it is compatible with."""
        options: list[list[int]] = [[] for _ in self.tools]
        size = 0
        for kind, members in enumerate(self.kinds):
            for group in self.candidates(kind):
                positions = self.groups[group].members
                size += len(positions) * len(members)
                if size > MAX_COMPARISONS:
                    raise OpenEvalError(
                        f"matching the expected calls' order and counts needs more than "
                        f"{MAX_COMPARISONS:,} (call, expected call) pairs; split the case"
                    )
                for p in positions:
                    options[p].extend(members)
        for entries in options:
            entries.sort()
        return options

    def need_turns(self, constraints: Constraints, options: list[list[int]]) -> None:
        """Raise when a call ``uses_result_of`` depends on has no model turn recorded."""
        involved = {f for uses in constraints.uses for f in uses}
        involved |= {e for e, uses in enumerate(constraints.uses) if uses}
        for p, entries in enumerate(options):
            if self.turns[p] is None and involved.intersection(entries):
                raise OpenEvalError(
                    f"uses_result_of needs the model turn of each call, and {self.at_step(p)} "
                    f"({self.tools[p]}) has none: this trace does not record which model "
                    "response made each call, so the dependency cannot be checked"
                )

    def search(
        self, options: list[list[int]], constraints: Constraints, rules: Any
    ) -> tuple[int | None, ...] | None:
        found = solve(options, self.turns, constraints, rules)
        self.work += found.work
        return found.taken

    def step_of(self, position: int) -> int:
        """Return the ``step_id`` of counted call ``position``, as details name it."""
        return self.steps[self.steps_at[position]].step_id

    def at_step(self, position: int) -> str:
        return f"step {self.step_of(position)}"

    def name(self, index: int, constraints: Constraints) -> str:
        """Return how details name entry ``index``: its tool, and when another entry has the
        same tool, its id (or its place in the list)."""
        tool = self.expected[index].tool
        if sum(1 for call in self.expected if call.tool == tool) == 1:
            return tool
        given = constraints.ids[index]
        return f"{tool} ({given})" if given is not None else f"{tool} (expected call {index + 1})"

    def broken_edges(
        self, taken: tuple[int | None, ...], constraints: Constraints
    ) -> list[Broken]:
        """Return each ``after`` / ``uses_result_of`` edge ``taken`` breaks, with its steps."""
        calls = _calls_of(taken)
        out: list[Broken] = []
        for e in range(len(self.expected)):
            mine = calls.get(e, [])
            if not mine:
                continue
            first, name = mine[0], self.name(e, constraints)
            for f in constraints.after[e]:
                theirs = calls.get(f, [])
                if theirs and theirs[-1] > first:
                    other = self.name(f, constraints)
                    out.append(Broken(e, (first,), "order", (
                        f"{name} after {other}: executed at {self.at_step(first)}, {other} at "
                        f"{self.at_step(theirs[-1])}")))
            for f in constraints.uses[e]:
                theirs = calls.get(f, [])
                if not theirs:
                    continue
                late = max(theirs, key=lambda p: cast(int, self.turns[p]))
                if cast(int, self.turns[late]) >= cast(int, self.turns[first]):
                    other = self.name(f, constraints)
                    out.append(Broken(e, (first,), "order", (
                        f"{name} uses the result of {other}: executed at {self.at_step(first)} "
                        f"in model turn {self.turns[first]}, {other} at {self.at_step(late)} "
                        f"in model turn {self.turns[late]}")))
        return out

    def broken_counts(
        self, taken: tuple[int | None, ...], constraints: Constraints
    ) -> list[Broken]:
        """Return each written count ``taken`` breaks: ``refund_payment: expected 1 time,
        executed 2 times (steps 3, 5)``."""
        calls = _calls_of(taken)
        out: list[Broken] = []
        for e in range(len(self.expected)):
            if not constraints.counted[e]:
                continue
            low, high = self.least(e, constraints), constraints.high[e]
            made = calls.get(e, [])
            if low <= len(made) and (high is None or len(made) <= high):
                continue
            if low == high:
                wanted = _plural(low, "time")
            elif high is None:
                wanted = f"at least {_plural(low, 'time')}"
            elif low == 0:
                wanted = f"at most {_plural(high, 'time')}"
            else:
                wanted = f"{low} to {high} times"
            steps = ", ".join(str(self.step_of(p)) for p in made[:10])
            more = f", +{len(made) - 10} more" if len(made) > 10 else ""
            where = f" ({_plural(len(made), 'step', bare=True)} {steps}{more})" if made else ""
            over = tuple(made[high:]) if high is not None and len(made) > high else ()
            out.append(Broken(e, over, "count", (
                f"{self.name(e, constraints)}: expected {wanted}, executed "
                f"{_plural(len(made), 'time')}{where}")))
        return out

    def least(self, e: int, constraints: Constraints) -> int:
        """Return the fewest calls entry ``e`` must take in this mode."""
        if MODE_RULES[self.spec.mode].missing_ok and not constraints.low_written[e]:
            return 0
        return constraints.low[e]

    def assigned(
        self, taken: tuple[int | None, ...], constraints: Constraints,
        broken: Sequence[Broken],
    ) -> TrajectoryMatch:
        """Return the verdict and rows of an assignment: a pass when nothing is ``broken``."""
        marked = {p: b for b in reversed(broken) for p in b.positions}
        rows: list[AlignmentRow] = []
        made: Counter[int] = Counter()
        for p, e in enumerate(taken):
            if e is not None:
                made[e] += 1
            if p in marked:
                rows.append(self.row(e, p, False, f"{marked[p].kind}: {marked[p].text}"))
            elif e is None:
                rows.append(self.row(None, p, True, "extra call (allowed)"))
            else:
                rows.append(self.row(e, p, True, "matched"))
        short = {b.entry: b for b in broken if b.kind == "count" and not b.positions}
        for e in range(len(self.expected)):
            if e in short and made[e]:
                rows.append(self.row(e, None, False, f"count: {short[e].text}"))
            elif not made[e]:
                ok = self.least(e, constraints) == 0 and e not in short
                rows.append(self.row(e, None, ok, "not called (allowed)" if ok else "missing"))
        rows = self.with_left_out(rows)
        pairs = tuple((e, self.steps_at[p]) for p, e in enumerate(taken) if e is not None)
        paired = sum(1 for e in range(len(self.expected)) if made[e])
        if not broken:
            return TrajectoryMatch(True, self.success(paired), tuple(rows), paired, self.work,
                                   pairs, ())
        return TrajectoryMatch(False, self.failure([b.text for b in broken]), tuple(rows),
                               paired, self.work, pairs, tuple(broken))

    def mode_failure(
        self, constraints: Constraints, written: Sequence[Mapping[str, Any]],
        options: list[list[int]],
    ) -> TrajectoryMatch:
        """Return the verdict when the mode itself cannot hold: explained as the plain match
        of each entry repeated as often as the run could use it (as many calls as match it,
        within its counts: an optional call the run made once stays, one it never made goes)."""
        fits = Counter(e for entries in options for e in entries)
        index_of: list[int] = []
        for e in range(len(self.expected)):
            high = constraints.high[e]
            made = fits[e] if high is None else min(high, fits[e])
            index_of.extend([e] * max(self.least(e, constraints), made))
        plain = _Matching(
            self.steps, compile_calls([written[e] for e in index_of], self.spec), self.spec
        ).run()
        rows = tuple(
            row._replace(expected=None if row.expected is None else index_of[row.expected])
            for row in plain.pairs
        )
        taken = tuple(
            (row.expected, row.executed) for row in rows
            if row.expected is not None and row.executed is not None and row.ok
        )
        self.work += plain.work
        paired = len({e for e, _ in taken})
        if plain.matched:  # only the counts and edges together rule every pairing out
            why = ("no assignment of the calls meets the mode, the counts and the after / "
                   "uses_result_of edges together")
            rows = tuple(row._replace(ok=False) if row.expected is not None else row
                         for row in rows)
            return TrajectoryMatch(False, self.failure([why]), rows, paired, self.work,
                                   taken, (Broken(None, (), "together", why),))
        return TrajectoryMatch(False, plain.details, rows, paired, self.work, taken, ())

    # -- alignment rows -----------------------------------------------------------------

    def row(
        self, expected: int | None, position: int | None, ok: bool, reason: str
    ) -> AlignmentRow:
        step = None if position is None else self.steps_at[position]
        return AlignmentRow(expected, step, ok, reason)

    def with_left_out(self, rows: list[AlignmentRow]) -> list[AlignmentRow]:
        """Return ``rows`` with the calls left out of matching (denied, failed) in step order."""
        if not self.left_out:
            return rows
        extra = [AlignmentRow(None, step, True, f"{why}: not counted")
                 for step, _, _, why in self.left_out]
        merged = rows + extra
        order = {id(row): n for n, row in enumerate(merged)}
        last = -1.0
        keys: dict[int, float] = {}
        for row in merged:
            if row.executed is not None:
                last = float(row.executed)
                keys[id(row)] = last
            else:
                keys[id(row)] = last + 0.5
        return sorted(merged, key=lambda row: (keys[id(row)], order[id(row)]))

    def rows_by_position(
        self, partner: dict[int, int], missing: list[int], *, extra_ok: bool, missing_ok: bool
    ) -> tuple[AlignmentRow, ...]:
        by_position = {position: index for index, position in partner.items()}
        rows = [
            self.row(by_position[p], p, True, "matched") if p in by_position
            else self.row(None, p, extra_ok, "extra call (allowed)" if extra_ok else "extra call")
            for p in range(len(self.tools))
        ]
        rows += [
            self.row(i, None, missing_ok,
                     "not called (allowed)" if missing_ok else "missing")
            for i in missing
        ]
        return tuple(self.with_left_out(rows))

    def rows_in_order(self, partner: dict[int, int]) -> tuple[AlignmentRow, ...]:
        by_position = {position: index for index, position in partner.items()}
        rows: list[AlignmentRow] = []
        pending = [call.index for call in self.expected]
        for p in range(len(self.tools)):
            if p in by_position:
                index = by_position[p]
                while pending and pending[0] != index:
                    rows.append(self.row(pending.pop(0), None, False, "missing"))
                if pending:
                    pending.pop(0)
                rows.append(self.row(index, p, True, "matched"))
            else:
                rows.append(self.row(None, p, True, "extra call (allowed)"))
        rows += [self.row(i, None, False, "missing") for i in pending]
        return tuple(self.with_left_out(rows))

    # -- details ------------------------------------------------------------------------

    def result(
        self, matched: bool, details: str, rows: Sequence[AlignmentRow], paired: int
    ) -> TrajectoryMatch:
        return TrajectoryMatch(matched, details, tuple(rows), paired, self.work)

    def heading(self) -> str:
        return f"{self.spec.mode}, args {self.spec.args}"

    def success(self, paired: int) -> str:
        total = len(self.expected)
        return (
            f"trajectory matched ({self.heading()}): {paired}/{total} expected "
            f"{_plural(total, 'call', bare=True)} in {len(self.tools)} counted "
            f"{_plural(len(self.tools), 'call', bare=True)}"
        )

    def failure(self, parts: list[str]) -> str:
        head = parts[0]
        rest = [part for part in parts[1:] if part not in head]
        return _join_bounded([f"trajectory did not match ({self.heading()}): {head}", *rest])

    def not_made(self, index: int, where: str = "") -> str:
        """Return why expected call ``index`` found no call of its tool at all."""
        tool = self.expected[index].tool
        why = [f"{tool}: {why}" for _, _, name, why in self.left_out if name == tool]
        if why:
            return f"expected call {index + 1} {tool}: not counted{where} ({why[0]})"
        return f"expected call {index + 1} {tool}: not called{where}"

    def difference(self, index: int, position: int) -> str:
        """Return why expected call ``index`` and executed call ``position`` differ."""
        call = self.expected[index]
        target = self.groups[self.group_of[position]]
        if call.tool != target.tool:
            return f"expected {call.tool}, got {target.tool}"
        found = call.explain(target.args)
        if found is None:  # matches on its own, but its partner was needed elsewhere
            return f"expected {call.tool}, got {target.tool}"
        return f"expected {call.tool}, got {target.tool}: {found}"

    def at_call(self, position: int) -> str:
        return f"call {self.numbers[position]}"

    def explain_missing(self, index: int, spare: set[int]) -> str:
        call = self.expected[index]
        same_tool = [p for p in sorted(spare) if self.tools[p] == call.tool]
        if same_tool:
            return f"{self.at_call(same_tool[0])}: {self.difference(index, same_tool[0])}"
        made = self.tools.count(call.tool)
        if made:
            return (
                f"expected call {index + 1} {call.tool}: no {call.tool} call left to match it "
                f"(the {made} made matched other expected calls)"
            )
        return self.not_made(index)

    def explain_extra(self, position: int, spare: set[int]) -> str:
        tool = self.tools[position]
        same_tool = [i for i in sorted(spare) if self.expected[i].tool == tool]
        if same_tool:
            return f"{self.at_call(position)}: {self.difference(same_tool[0], position)}"
        return f"{self.at_call(position)}: {tool} was not expected"

    def explain_out_of_order(self, index: int, after: int, found: list[int]) -> str:
        call = self.expected[index]
        later = [p for p in range(after + 1, len(self.tools)) if self.tools[p] == call.tool]
        if later:
            return f"{self.at_call(later[0])}: {self.difference(index, later[0])}"
        where = f" after {self.at_call(after)}" if after >= 0 else ""
        if found:
            return (
                f"expected call {index + 1} {call.tool}: not found{where}; it was made "
                f"earlier, at {self.at_call(found[0])} (out of order)"
            )
        return self.not_made(index, where)

    def explain_block(
        self, block: list[int], spare_expected: list[int], spare_calls: list[int]
    ) -> str:
        turn = ""
        if len(block) > 1:
            first, last = self.numbers[block[0]], self.numbers[block[-1]]
            turn = f" (calls {first}-{last} share a turn)"
        if spare_expected and spare_calls:
            i, p = spare_expected[0], spare_calls[0]
            return f"{self.at_call(p)}: {self.difference(i, p)}{turn}"
        if spare_calls:
            p = spare_calls[0]
            return (
                f"{self.at_call(p)}: got {self.tools[p]}, expected no more calls "
                f"({len(self.expected)} expected){turn}"
            )
        i = spare_expected[0]
        return f"expected call {i + 1} {self.expected[i].tool}: missing{turn}"

    def lists(self, missing: list[int], extra: list[int]) -> list[str]:
        parts: list[str] = []
        if missing:
            parts.append("missing: " + _counted(Counter(self.expected[i].tool for i in missing)))
        if extra:
            parts.append("extra: " + _counted(Counter(self.tools[p] for p in extra)))
        missing_tools = {self.expected[i].tool for i in missing}
        parts += [f"{tool}: {why}" for _, _, tool, why in self.left_out if tool in missing_tools]
        return parts


def _plural(count: int, noun: str, *, bare: bool = False) -> str:
    word = noun if count == 1 else f"{noun}s"
    return word if bare else f"{count} {word}"


def _counted(names: Counter[str]) -> str:
    return ", ".join(name if n == 1 else f"{name} x{n}" for name, n in sorted(names.items()))


def _join_bounded(parts: Sequence[str], limit: int = DETAILS_LIMIT) -> str:
    out: list[str] = []
    size = 0
    for number, part in enumerate(parts):
        extra = len(part) + (2 if out else 0)
        if out and size + extra > limit:
            out.append(f"+{len(parts) - number} more")
            break
        out.append(part)
        size += extra
    return "; ".join(out)


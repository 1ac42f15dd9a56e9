"""One exact search for an assignment of executed calls to expected calls that meets a mode's
rules, the entries' counts and their ``after`` / ``uses_result_of`` edges together.

Counts and edges make the question harder than a bipartite matching (an ``after`` edge ties
two entries' choices together), so :func:`solve` searches: it walks the executed calls in trace
order, giving each one to a compatible expected entry or leaving it out, and backs up when a
rule can no longer hold. Walking in order makes every rule local: an edge is broken the moment
an entry takes a call after one of the entries that must follow it has taken one; an ordered
mode only needs the highest entry taken in the turns before. A state that failed once is
remembered (its future depends only on the position, the counts, the order frontier and the
last turns of entries others use the result of), so the walk never repeats itself, and the
whole search is bounded by :data:`MAX_WORK`: past it, the match is refused with an error, never
guessed. See proposals/0150-order-and-counts.md.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from openeval.errors import OpenEvalError
from openeval.matching.constraints import Constraints

MAX_WORK = 2_000_000
"""Most search steps (each costing about one look at every expected entry) one match may take;
the same order of effort as the bound on argument comparisons."""


@dataclass(frozen=True)
class Rules:
    """What a trajectory mode asks of an assignment, beside counts and edges."""

    ordered: bool
    """Entries taken by calls of later turns never come earlier in the expected list."""
    extras: bool
    """Executed calls may be left out (unless they match a counted entry)."""
    missing_ok: bool
    """Entries without a written least count may take no call (the ``subset`` mode)."""


MODE_RULES: dict[str, Rules] = {
    "strict": Rules(ordered=True, extras=False, missing_ok=False),
    "in_order": Rules(ordered=True, extras=True, missing_ok=False),
    "unordered": Rules(ordered=False, extras=False, missing_ok=False),
    "superset": Rules(ordered=False, extras=True, missing_ok=False),
    "subset": Rules(ordered=False, extras=False, missing_ok=True),
}


@dataclass(frozen=True)
class Solution:
    """The result of :func:`solve`."""

    taken: tuple[int | None, ...] | None
    """For each executed call, the expected entry it went to (None: left out); None when no
    assignment meets every rule."""
    work: int


def solve(
    options: Sequence[Sequence[int]],
    turns: Sequence[int | None],
    constraints: Constraints,
    rules: Rules,
    *,
    limit: int = MAX_WORK,
) -> Solution:
    """Return an assignment of the executed calls to expected entries meeting every rule.

    ``options[p]`` lists, ascending, the entries executed call ``p`` is compatible with (same
    tool, matching arguments); ``turns[p]`` is its model turn (None when unknown: then it
    shares no turn with a neighbour, and ``uses_result_of`` cannot hold for it). Raises
    OpenEvalError when the search would take more than ``limit`` steps.
    """
    return _Search(options, turns, constraints, rules, limit).run()


class _Search:
    def __init__(
        self, options: Sequence[Sequence[int]], turns: Sequence[int | None],
        constraints: Constraints, rules: Rules, limit: int,
    ) -> None:
        self.options = options
        self.turns = turns
        self.rules = rules
        self.limit = limit
        size = len(constraints.ids)
        self.size = size
        self.low = [
            0 if rules.missing_ok and not constraints.low_written[e] else constraints.low[e]
            for e in range(size)
        ]
        self.high = constraints.high
        self.counted = constraints.counted
        self.after = constraints.after
        self.uses = constraints.uses
        followers: list[list[int]] = [[] for _ in range(size)]
        for e in range(size):
            for f in (*constraints.after[e], *constraints.uses[e]):
                followers[f].append(e)
        self.followers = followers
        self.used_results = sorted({f for e in range(size) for f in constraints.uses[e]})
        at: list[list[int]] = [[] for _ in range(size)]
        for position, entries in enumerate(options):
            for e in entries:
                at[e].append(position)
        self.at = at
        # A new turn starts at p when p's turn is unknown or differs from the call before.
        self.fresh = [
            p == 0 or turns[p] is None or turns[p] != turns[p - 1] for p in range(len(options))
        ]
        self.work = 0

    def run(self) -> Solution:
        calls = len(self.options)
        counts = [0] * self.size
        last_turn: list[int | None] = [None] * self.size
        taken: list[int | None] = [None] * calls
        failed: set[tuple[object, ...]] = set()
        floor, block = -1, -1
        # The walk, iteratively: frames of (position, choices left, undo record).
        frames: list[tuple[int, list[int | None], tuple[int, int, int | None] | None,
                           tuple[object, ...], int, int]] = []
        position = 0
        while True:
            if position == calls:
                if all(counts[e] >= self.low[e] for e in range(self.size)):
                    return Solution(tuple(taken), self.work)
                choices: list[int | None] | None = None
                key: tuple[object, ...] = ()
            else:
                if self.fresh[position]:
                    floor, block = max(floor, block), -1
                key = (position, tuple(counts), floor if self.rules.ordered else 0,
                       block if self.rules.ordered else 0,
                       tuple(last_turn[f] for f in self.used_results))
                self.work += self.size + 1
                if self.work > self.limit:
                    raise OpenEvalError(
                        f"matching the expected calls' order and counts needs more than "
                        f"{self.limit:,} search steps ({calls:,} executed calls, "
                        f"{self.size:,} expected); split the case or drop some edges"
                    )
                choices = None if key in failed or self.dead(position, counts, floor) else (
                    self.choices(position, counts, last_turn, floor))
            while not choices:
                # Back up: this state has no way forward.
                if key:
                    failed.add(key)
                if not frames:
                    return Solution(None, self.work)
                position, choices, undo, key, floor, block = frames.pop()
                if undo is not None:
                    entry, _, turn = undo
                    counts[entry] -= 1
                    last_turn[entry] = turn
                    taken[position] = None
            choice = choices.pop(0)
            undo = None
            saved_floor, saved_block = floor, block
            if choice is not None:
                undo = (choice, counts[choice], last_turn[choice])
                counts[choice] += 1
                last_turn[choice] = self.turns[position]
                taken[position] = choice
                block = max(block, choice)
            frames.append((position, choices, undo, key, saved_floor, saved_block))
            position += 1

    def closed(self, e: int, counts: Sequence[int], floor: int) -> bool:
        """True when entry ``e`` can take no more calls: order passed it, or a follower has."""
        if self.rules.ordered and e < floor:
            return True
        return any(counts[s] for s in self.followers[e])

    def dead(self, position: int, counts: Sequence[int], floor: int) -> bool:
        """True when some entry can no longer reach its least count from ``position`` on, or
        the calls left are too few for all of them together (each call serves one entry)."""
        total = 0
        for e in range(self.size):
            need = self.low[e] - counts[e]
            if need <= 0:
                continue
            if self.closed(e, counts, floor):
                return True
            calls = self.at[e]
            if len(calls) - bisect_left(calls, position) < need:
                return True
            total += need
        return total > len(self.options) - position

    def after_results(
        self, e: int, turn: int | None, counts: Sequence[int], last_turn: Sequence[int | None]
    ) -> bool:
        """True when a call of ``turn`` may go to ``e``: every entry whose result it uses and
        that took a call took it in an earlier turn."""
        for f in self.uses[e]:
            if not counts[f]:
                continue
            before = last_turn[f]
            if turn is None or before is None or before >= turn:
                return False
        return True

    def choices(
        self, position: int, counts: Sequence[int], last_turn: Sequence[int | None], floor: int,
    ) -> list[int | None]:
        """Return the moves at ``position``: entries still short first, then the others, then
        leaving the call out when the rules allow it."""
        turn = self.turns[position]
        short: list[int | None] = []
        more: list[int | None] = []
        for e in self.options[position]:
            high = self.high[e]
            if high is not None and counts[e] >= high:
                continue
            if self.closed(e, counts, floor):
                continue
            if self.uses[e] and not self.after_results(e, turn, counts, last_turn):
                continue
            (short if counts[e] < self.low[e] else more).append(e)
        if self.rules.extras and not any(self.counted[e] for e in self.options[position]):
            more.append(None)
        return short + more

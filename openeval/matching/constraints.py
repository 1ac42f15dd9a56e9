"""The order and count keys of expected calls: ``id``, ``after``, ``uses_result_of``,
``times``, ``min_times``, ``max_times`` and ``optional`` (proposals/0150-order-and-counts.md).

:func:`read_constraints` checks them, naming the JSON path of the first problem, and returns
one :class:`Constraints` for the whole list of expected calls, or None when no entry uses any
of them: such a case is matched exactly as before, by :mod:`openeval.matching.trajectory`.

- ``after: [id, ...]``: every executed call paired with this entry comes at a later position
  in the trace than every executed call paired with each named entry.
- ``uses_result_of: [id, ...]``: the same, and in a later model turn (``TraceStep.turn``):
  two calls of one model response cannot depend on each other's result.
- Counts: an entry without any count key takes exactly one executed call, as today (a second
  identical call is an extra, which the trajectory mode judges). ``times: n`` (or
  ``min_times`` / ``max_times``) makes the entry count every executed call it matches that no
  other entry took: a second identical refund fails ``times: 1`` in every mode.
  ``optional: true`` lowers the least number to 0 (at most one call, still).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.errors import TestCaseError
from openeval.values import short_json

CONSTRAINT_KEYS: tuple[str, ...] = (
    "after", "id", "max_times", "min_times", "optional", "times", "uses_result_of",
)
"""The keys of an expected call beside ``tool`` and ``args``."""

MAX_TIMES = 10_000
"""Largest count an entry may ask for (a larger one is a typo, and would only cost work)."""


@dataclass(frozen=True)
class Constraints:
    """The order and count rules of a list of expected calls, by position in the list."""

    ids: tuple[str | None, ...]
    low: tuple[int, ...]
    """Fewest executed calls each entry must take."""
    high: tuple[int | None, ...]
    """Most executed calls each entry may take (None: no limit)."""
    counted: tuple[bool, ...]
    """True for an entry with a count key: every executed call it matches counts for it,
    unless another entry took that call."""
    low_written: tuple[bool, ...]
    """True when ``low`` was written (``times`` or ``min_times``): the ``subset`` mode, which
    lets expected calls be missing, still holds such an entry to it."""
    after: tuple[tuple[int, ...], ...]
    """The entries each entry's calls must follow."""
    uses: tuple[tuple[int, ...], ...]
    """The entries whose result each entry's calls must come from a later model turn than."""

    def relaxed(self, *, edges: bool, counts: bool) -> Constraints:
        """Return these rules without their edges (``edges``) and/or with each counted entry
        free to take any number of calls (``counts``): what the details use to find which
        rule a failing run breaks."""
        size = len(self.ids)
        low, high = self.low, self.high
        if counts:
            low = tuple(0 if c else n for c, n in zip(self.counted, low, strict=True))
            high = tuple(None if c else n for c, n in zip(self.counted, high, strict=True))
        return Constraints(
            self.ids, low, high, self.counted, self.low_written,
            ((),) * size if edges else self.after,
            ((),) * size if edges else self.uses,
        )

    @property
    def has_edges(self) -> bool:
        return any(self.after) or any(self.uses)

    @property
    def has_uses(self) -> bool:
        return any(self.uses)


def uses_constraints(expected: Sequence[Any]) -> bool:
    """Return True when an entry of ``expected`` holds any of :data:`CONSTRAINT_KEYS`."""
    for entry in expected:
        # Nearly every entry is {"tool", "args"} or {"tool"}: one length test rules it out.
        if isinstance(entry, Mapping) and len(entry) > 1 + ("args" in entry):
            for key in CONSTRAINT_KEYS:
                if key in entry:
                    return True
    return False


def _fail(message: str, where: str, source: str | Path | None) -> TestCaseError:
    return TestCaseError(message, source=source, location=where)


def _count(value: Any, where: str, source: str | Path | None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_TIMES:
        raise _fail(f"expected a whole number from 0 to {MAX_TIMES:,}, got {short_json(value)}",
                    where, source)
    return value


def read_constraints(
    expected: Sequence[Any], where: str = "expected_tool_calls",
    source: str | Path | None = None,
) -> Constraints | None:
    """Return the rules the entries of ``expected`` write, or None when none writes any.

    Raises TestCaseError naming ``source`` and the JSON path for an id that is not a
    non-empty string or is used twice, an edge naming an unknown id or its own entry, edges
    that form a cycle, a count that is not a whole number, ``times`` beside ``min_times`` or
    ``max_times``, ``min_times`` above ``max_times``, or ``optional`` beside a least count.
    """
    if not uses_constraints(expected):
        return None
    ids: list[str | None] = []
    by_id: dict[str, int] = {}
    for index, entry in enumerate(expected):
        name = entry.get("id") if isinstance(entry, Mapping) else None
        if isinstance(entry, Mapping) and "id" in entry:
            if not isinstance(name, str) or not name:
                raise _fail(f"expected a non-empty string, got {short_json(name)}",
                            f"{where}[{index}].id", source)
            if name in by_id:
                raise _fail(f"id {short_json(name)} is already used by {where}[{by_id[name]}]",
                            f"{where}[{index}].id", source)
            by_id[name] = index
        ids.append(name if isinstance(name, str) else None)
    low: list[int] = []
    high: list[int | None] = []
    counted: list[bool] = []
    written: list[bool] = []
    after: list[tuple[int, ...]] = []
    uses: list[tuple[int, ...]] = []
    for index, entry in enumerate(expected):
        at = f"{where}[{index}]"
        entry = entry if isinstance(entry, Mapping) else {}
        bounds = _bounds(entry, at, source)
        low.append(bounds[0])
        high.append(bounds[1])
        counted.append(bounds[2])
        written.append(bounds[3])
        after.append(_edges(entry, "after", index, by_id, at, source))
        uses.append(_edges(entry, "uses_result_of", index, by_id, at, source))
    _refuse_cycles(ids, after, uses, where, source)
    return Constraints(tuple(ids), tuple(low), tuple(high), tuple(counted), tuple(written),
                       tuple(after), tuple(uses))


def _bounds(
    entry: Mapping[str, Any], at: str, source: str | Path | None
) -> tuple[int, int | None, bool, bool]:
    optional = entry.get("optional", False)
    if not isinstance(optional, bool):
        raise _fail(f"expected true or false, got {short_json(optional)}", f"{at}.optional",
                    source)
    if "times" in entry:
        for other in ("min_times", "max_times"):
            if other in entry:
                raise _fail(f"give either 'times' or '{other}', not both", f"{at}.{other}",
                            source)
        if optional:
            raise _fail("'optional' allows 0 calls and 'times' says how many; give one",
                        f"{at}.optional", source)
        times = _count(entry["times"], f"{at}.times", source)
        return times, times, True, True
    if optional and "min_times" in entry:
        raise _fail("'optional' is min_times 0; give one of them", f"{at}.optional", source)
    least = _count(entry["min_times"], f"{at}.min_times", source) if "min_times" in entry else (
        0 if optional else 1)
    most = _count(entry["max_times"], f"{at}.max_times", source) if "max_times" in entry else None
    if most is not None and least > most:
        raise _fail(f"min_times {least} is above max_times {most}", f"{at}.min_times", source)
    if "min_times" in entry or "max_times" in entry:
        return least, most, True, "min_times" in entry
    return least, 1, False, False


def _edges(
    entry: Mapping[str, Any], key: str, index: int, by_id: Mapping[str, int], at: str,
    source: str | Path | None,
) -> tuple[int, ...]:
    if key not in entry:
        return ()
    value = entry[key]
    if not isinstance(value, list):
        raise _fail(f"expected a list of ids, got {short_json(value)}", f"{at}.{key}", source)
    out: list[int] = []
    for n, name in enumerate(value):
        where = f"{at}.{key}[{n}]"
        if not isinstance(name, str) or name not in by_id:
            known = ", ".join(sorted(by_id)) or "none"
            raise _fail(f"{short_json(name)} is not the id of an expected call (ids: {known})",
                        where, source)
        if by_id[name] == index:
            raise _fail(f"an expected call cannot come after itself ({name!r})", where, source)
        if by_id[name] not in out:
            out.append(by_id[name])
    return tuple(out)


def _refuse_cycles(
    ids: Sequence[str | None], after: Sequence[tuple[int, ...]],
    uses: Sequence[tuple[int, ...]], where: str, source: str | Path | None,
) -> None:
    """Raise when the edges go round: no run could ever satisfy them."""
    state = [0] * len(ids)  # 0 unseen, 1 on the path, 2 done
    for start in range(len(ids)):
        if state[start]:
            continue
        path = [start]
        stack = [iter((*after[start], *uses[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
                continue
            if state[nxt] == 1:
                loop = [*path[path.index(nxt):], nxt]
                shown = " -> ".join(str(ids[i]) for i in loop)
                raise _fail(f"the after / uses_result_of edges form a cycle: {shown}",
                            f"{where}[{path[-1]}]", source)
            if state[nxt] == 0:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter((*after[nxt], *uses[nxt])))

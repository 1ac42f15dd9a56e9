"""Keeping ``$regex`` bounded: Python's ``re`` backtracks and cannot be stopped once started.

Two cheap defences, used by :mod:`openeval.matching.matchers` (see
proposals/0030-trajectory-matching.md for the measurements):

- :func:`has_nested_quantifier` refuses, when the test case is read, the classic shape that
  backtracks exponentially: a group repeated without bound whose body is itself a
  variable-length repetition (``(a+)+``, ``(\\w+\\s?)*``). It reads the pattern with the
  standard library's own (private) parser; should that parser ever be gone, nothing is refused.
- :func:`searcher` drops a leading ``.*``, which cannot change what ``re.search`` finds but
  costs one factor of the subject's length.

Together with the cap on the subject's length (``MAX_REGEX_SUBJECT``) they bound the common
cases; two overlapping unbounded quantifiers in a row (``a*a*b``) stay polynomial and are not
detected.
"""

from __future__ import annotations

import importlib
import re
from typing import Any


def searcher(pattern: str, compiled: re.Pattern[str]) -> re.Pattern[str]:
    """Return a pattern with the same search verdict and less backtracking.

    A leading ``.*`` (or ``.*?``) can match the empty string, so ``search`` finds the rest of
    the pattern exactly where it finds the whole; dropping it removes one factor of the
    subject's length from the worst case (``.*a.*b`` is cubic, ``a.*b`` quadratic).
    """
    rest = pattern
    while rest.startswith(".*") and not rest.startswith(".*+"):
        rest = rest[3:] if rest.startswith(".*?") else rest[2:]
    if rest == pattern:
        return compiled
    try:
        return re.compile(rest)
    except re.error:
        return compiled


def _sre_parser() -> Any:
    """Return the standard library's regex parser module (private; None if it is gone)."""
    for name in ("re._parser", "sre_parse"):
        try:
            return importlib.import_module(name)
        except ImportError:  # pragma: no cover - depends on the Python version
            continue
    return None  # pragma: no cover


def has_nested_quantifier(pattern: str) -> bool:
    """Return True when ``pattern`` holds a nested quantifier that can backtrack exponentially
    (``(a+)+``, ``(\\w+\\s?)*``).

    Only the cheap, classic shape is detected: a group repeated without bound whose body,
    apart from parts that may match nothing, is a single variable-length repetition. So
    ``(\\d+,)*`` (each repetition ends at a comma) is allowed. Overlapping alternatives
    (``(a|aa)+``) are not detected.
    """
    parser = _sre_parser()
    if parser is None:  # pragma: no cover
        return False
    try:
        tree = parser.parse(pattern)
    except Exception:  # the pattern compiled; a parser quirk must not refuse it
        return False
    return _Quantifiers(parser).find(list(tree))


class _Quantifiers:
    """Walks a parsed pattern (sre's tree of ``(opcode, argument)`` pairs)."""

    def __init__(self, parser: Any) -> None:
        self.repeats = {parser.MAX_REPEAT, parser.MIN_REPEAT}
        self.unbounded = parser.MAXREPEAT
        self.subpattern = parser.SUBPATTERN
        self.branch = parser.BRANCH
        self.asserts = {parser.ASSERT, parser.ASSERT_NOT}
        self.anchor = parser.AT
        # Python 3.11+: a possessive repeat never gives back what it took, so it is never the
        # outer or the inner repetition of a catastrophic pair; its body is still searched.
        self.possessive = getattr(parser, "POSSESSIVE_REPEAT", None)
        self.atomic = getattr(parser, "ATOMIC_GROUP", None)

    def body(self, op: Any, arg: Any) -> list[Any] | None:
        if op in self.repeats or (self.possessive is not None and op == self.possessive):
            return list(arg[2])
        if op == self.subpattern:
            return list(arg[-1])
        if op in self.asserts:
            return list(arg[1])
        if self.atomic is not None and op == self.atomic:
            return list(arg)
        return None

    def find(self, items: list[Any]) -> bool:
        stack = [items]
        while stack:
            for op, arg in stack.pop():
                if op in self.repeats and self.is_long(arg) and self.splits(list(arg[2])):
                    return True
                if op == self.branch:
                    stack.extend(list(alternative) for alternative in arg[1])
                    continue
                inner = self.body(op, arg)
                if inner is not None:
                    stack.append(inner)
        return False

    def is_long(self, arg: Any) -> bool:
        high = arg[1]
        return bool(high == self.unbounded or high >= 8)

    def nullable(self, op: Any, arg: Any) -> bool:
        if op in self.repeats:
            return bool(arg[0] == 0)
        if op == self.anchor or op in self.asserts:
            return True
        if op == self.subpattern:
            return all(self.nullable(o, a) for o, a in arg[-1])
        if op == self.branch:
            return any(all(self.nullable(o, a) for o, a in alt) for alt in arg[1])
        return False

    def variable(self, op: Any, arg: Any) -> bool:
        """True for a repetition that can match a varying number of times (``a+``, ``a{1,3}``)."""
        if op in self.repeats:
            return bool(arg[1] != arg[0] and arg[1] >= 2)
        return False

    def splits(self, items: list[Any]) -> bool:
        """True when one string can be cut into repetitions of ``items`` in many ways."""
        solid = [(op, arg) for op, arg in items if not self.nullable(op, arg)]
        if not solid:
            return any(self.variable(op, arg) or self.contains_variable(op, arg)
                       for op, arg in items)
        if len(solid) > 1:
            return False
        op, arg = solid[0]
        if self.variable(op, arg):
            return True
        if op == self.subpattern:
            return self.splits(list(arg[-1]))
        if op == self.branch:
            return any(self.splits(list(alt)) for alt in arg[1])
        return False

    def contains_variable(self, op: Any, arg: Any) -> bool:
        if self.variable(op, arg):
            return True
        inner = self.body(op, arg)
        if inner is None:
            if op == self.branch:
                return any(self.contains_variable(o, a) for alt in arg[1] for o, a in alt)
            return False
        return any(self.contains_variable(o, a) for o, a in inner)

"""Keeping user regexes bounded: Python's ``re`` backtracks, exponentially on some patterns.

Two cheap defences, used by :mod:`openeval.matching.matchers` (see
proposals/0030-trajectory-matching.md for the measurements):

- :func:`has_nested_quantifier` refuses, when the test case is read, the classic shape that
  backtracks exponentially: a group repeated without bound whose body is itself a
  variable-length repetition (``(a+)+``, ``(\\w+\\s?)*``). It reads the pattern with the
  standard library's own (private) parser; should that parser ever be gone, nothing is refused.
- :func:`searcher` drops a leading ``.*``, which cannot change what ``re.search`` finds but
  costs one factor of the subject's length.

Together with the cap on the subject's length (``MAX_REGEX_SUBJECT``) they bound the common
cases.

:func:`backtracking_risk` is the one test every user pattern goes through (``$regex``,
``regex_match``'s settings, ``denied_when``; proposals/0163-bounded-user-regexes.md): the nested
quantifier above, and alternatives that can match the same text under an unbounded repetition
(``(a|aa)+``, ``(.|\\s)*``), each of which backtracks exponentially on a subject that almost
matches, and two long repetitions of overlapping characters in a row (``a*a*b``,
``\\d+\\.?\\d*$``), which backtrack polynomially (proposals/0291-adjacent-repetitions.md).
It over-refuses a little (``(ab|ac)+`` is safe but refused): a refused pattern is a
test case error saying how to rewrite it, never a hung run. It reads a pattern with the flags
the caller compiles it with (``re.IGNORECASE`` makes ``a*A*`` overlap).

The static test cannot see every pattern that backtracks without bound: ``\\w*b\\w*$`` (two
repetitions around a required character both can match) is kept and takes minutes on 10,000
characters. So every search of a user pattern also runs under a CPU-time budget,
:func:`openeval.matching.regex_budget.bounded_search`, and one that uses it up is an errored
check naming the pattern (proposals/0310-regex-cpu-budget.md). The refusal stays: it tells the
author when the test case is read, on every text, and it is the only bound where the budget
cannot be armed (off the main thread, on Windows).
"""

from __future__ import annotations

import functools
import importlib
import math
import re
from collections.abc import Callable
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


def _parsed(pattern: str, flags: int = 0) -> tuple[Any, Any] | None:
    """Return the parser module and ``pattern``'s parse tree (read with the ``flags`` it is
    compiled with: ``re.VERBOSE`` changes the tree, ``re.IGNORECASE`` what overlaps), or None
    when either is missing."""
    parser = _sre_parser()
    if parser is None:  # pragma: no cover
        return None
    try:
        return parser, parser.parse(pattern, flags)
    except Exception:  # the pattern compiled; a parser quirk must not refuse it
        return None


NESTED_QUANTIFIER = (
    "repeats a group whose body itself repeats, like (a+)+: it can take exponential time on a "
    "string that does not match; rewrite it without the nested repetition"
)
OVERLAPPING_ALTERNATIVES = (
    "repeats alternatives that can match the same text, like (a|aa)+ or (.|\\s)*: it can take "
    "exponential time on a string that does not match; make the alternatives start "
    "differently, or use one character class ([a-z\\s])"
)


ADJACENT_REPETITIONS = (
    "repeats the same characters twice in a row, like a*a* or \\d+\\.?\\d*: it can take "
    "polynomial time (minutes on 10,000 characters) on a string that does not match; merge "
    "the two repetitions into one, or put a required character between them"
)


@functools.lru_cache(maxsize=4096)
def backtracking_risk(pattern: str, flags: int = 0) -> str | None:
    """Return why ``pattern``, compiled with ``flags``, may backtrack exponentially or
    polynomially (one of the texts above), or None.

    The flags are the ones the caller passes to ``re.compile`` (``regex_match`` compiles with
    ``re.MULTILINE``, ``denied_when`` with ``re.IGNORECASE``, under which ``a*A*`` and
    ``(ab|Ab)+`` overlap). Cached: every check that carries built-in patterns asks about the same
    ones, and a configuration of thousands of checks would otherwise parse them thousands of
    times.
    """
    if has_nested_quantifier(pattern, flags):
        return NESTED_QUANTIFIER
    if has_overlapping_alternatives(pattern, flags):
        return OVERLAPPING_ALTERNATIVES
    if has_adjacent_repetitions(pattern, flags):
        return ADJACENT_REPETITIONS
    return None


LONG_REPEAT = 100
"""Two repetitions side by side try the product of their spans (the lengths each can take) at
every start: :func:`has_adjacent_repetitions` refuses a pair whose product reaches this
(``a{0,9}a{0,9}`` is kept, ``a{0,99}a{0,99}``, ``a{0,9}a{0,9}a{0,9}`` and ``a*a?`` are
not)."""


def has_adjacent_repetitions(pattern: str, flags: int = 0) -> bool:
    """Return True when two repetitions of one character each (``a*``, ``\\s+``, ``[^,]*``,
    ``.*``), or of the same longer body (``(ab)*(?:ab)+``), follow each other with only
    optional parts between them (``a*a*``, ``\\d+\\.?\\d*``, ``\\s*,?\\s*``), can match the same
    character and together span :data:`LONG_REPEAT` lengths or more.

    A string of that character can then be split between them in as many ways as it is long,
    at every start ``search`` tries: cubic on a subject that does not match (``a*a*b`` takes
    a second on 2,000 characters, ``\\d+\\.?\\d*$`` ten). Possessive repetitions and
    atomic groups never give back what they took and are skipped; repetitions of longer
    bodies are compared only when they are written the same (``(ab)*(ac)*`` is kept).
    """
    parsed = _parsed(pattern, flags)
    if parsed is None:
        return False
    parser, tree = parsed
    return _Adjacent(parser, ignore_case=_ignores_case(tree, flags)).find(list(tree))


def _ignores_case(tree: Any, flags: int) -> bool:
    """Whether ``re.IGNORECASE`` is on: given as a flag, or inline (``(?i)``)."""
    state = getattr(tree, "state", None)
    return bool((flags | (state.flags if state is not None else 0)) & re.IGNORECASE)


class _Adjacent:
    """Finds, in any sequence of a parsed pattern, two overlapping one-character repetitions
    with only nullable items between them."""

    def __init__(self, parser: Any, *, ignore_case: bool = False) -> None:
        self.p = parser
        self.ignore_case = ignore_case  # (?i) or re.IGNORECASE: a* and A* overlap
        self.repeats = {parser.MAX_REPEAT, parser.MIN_REPEAT}
        self.chars = _Alternatives(parser)  # only its character tests: no case folding
        self.nullable = _Quantifiers(parser).nullable
        self.single = {parser.LITERAL, parser.NOT_LITERAL, parser.IN, parser.ANY}

    def find(self, items: list[Any]) -> bool:
        stack = [items]
        while stack:
            sequence = stack.pop()
            if self.sequence_overlaps(sequence):
                return True
            for op, arg in sequence:
                stack.extend(self.inner(op, arg))
        return False

    def inner(self, op: Any, arg: Any) -> list[list[Any]]:
        """The sequences nested in one item: a group's, a repetition's, each alternative."""
        p = self.p
        if op in self.repeats or op == getattr(p, "POSSESSIVE_REPEAT", None):
            return [list(arg[2])]
        if op == p.SUBPATTERN:
            return [list(arg[-1])]
        if op in (p.ASSERT, p.ASSERT_NOT):
            return [list(arg[1])]
        if op == p.BRANCH:
            return [list(alternative) for alternative in arg[1]]
        if op == getattr(p, "ATOMIC_GROUP", None):
            return [list(arg)]
        return []

    def sequence_overlaps(self, sequence: list[Any]) -> bool:
        # Repetitions reachable through optional items, with their spans: one-character ones
        # by the characters they match, longer ones by their body's shape.
        characters: list[tuple[Callable[[str], bool], float]] = []
        bodies: list[tuple[Any, float]] = []
        for op, arg in sequence:
            span = self.span(op, arg)
            if span == 0:
                if not self.nullable(op, arg):
                    characters, bodies = [], []
                continue
            body = self.unwrapped(list(arg[2]))
            test = self.character(body)
            shape = _shape(body)
            if test is not None:
                overlapping = [other for seen, other in characters if self.share(test, seen)]
            else:
                overlapping = [other for seen, other in bodies if seen == shape]
            if overlapping and math.prod(overlapping, start=span) >= LONG_REPEAT:
                return True  # the splits of a run multiply: a{0,9}a{0,9}a{0,9} is 729
            if not self.nullable(op, arg):
                characters, bodies = [], []
            if test is not None:
                characters.append((test, span))
            else:
                bodies.append((shape, span))
        return False

    def span(self, op: Any, arg: Any) -> float:
        """How many lengths a backtracking repetition can take beyond its least (infinite when
        unbounded); 0 for anything else, a possessive repetition included."""
        if op not in self.repeats:
            return 0
        low, high = arg[0], arg[1]
        return math.inf if high == self.p.MAXREPEAT else float(high - low)

    def unwrapped(self, body: list[Any]) -> list[Any]:
        while len(body) == 1 and body[0][0] == self.p.SUBPATTERN:
            body = list(body[0][1][-1])
        return body

    def character(self, body: list[Any]) -> Callable[[str], bool] | None:
        """The characters ``body`` matches when it is one character (``a``, ``\\s``, ``.``)."""
        if len(body) != 1 or body[0][0] not in self.single:
            return None
        test: Callable[[str], bool] = self.chars.element(*body[0])[0]
        if self.ignore_case:
            exact = test
            return lambda ch: exact(ch) or exact(ch.swapcase())
        return test

    @staticmethod
    def share(one: Callable[[str], bool], other: Callable[[str], bool]) -> bool:
        return any(one(ch) and other(ch) for ch in _SAMPLE)


def _shape(items: Any) -> Any:
    """A hashable picture of parsed ``items`` without group numbers: two bodies written the
    same (``(ab)`` and ``(?:ab)``) have the same shape."""
    if isinstance(items, (list, tuple)) or type(items).__name__ == "SubPattern":
        parts = list(items)
        if (len(parts) == 4 and isinstance(parts[0], (int, type(None)))
                and type(parts[3]).__name__ == "SubPattern"):
            parts = parts[3:]  # a group's (number, flags, flags, body): only the body
        return tuple(_shape(part) for part in parts)
    return repr(items)


def has_overlapping_alternatives(pattern: str, flags: int = 0) -> bool:
    """Return True when an unbounded repetition holds alternatives that can begin with the same
    character (``(a|aa)+``, ``(.|\\s)*``, ``(\\w|\\d)+``; ``(a|A)+`` when ignoring case)."""
    parsed = _parsed(pattern, flags)
    if parsed is None:
        return False
    parser, tree = parsed
    alternatives = _Alternatives(parser, ignore_case=_ignores_case(tree, flags))
    return alternatives.find(list(tree), under_repeat=False)


_SAMPLE = [chr(c) for c in range(0x250)] + ["\u00a0", "\u2003", "\u3000", "\u0660", "\u4e00"]
"""The characters two alternatives' first characters are compared on."""


class _Alternatives:
    """Finds a repeated branch whose alternatives' first characters overlap."""

    def __init__(self, parser: Any, *, ignore_case: bool = False) -> None:
        self.p = parser
        self.repeats = {parser.MAX_REPEAT, parser.MIN_REPEAT}
        self.ignore_case = ignore_case

    def find(self, items: list[Any], *, under_repeat: bool) -> bool:
        for op, arg in items:
            if op in self.repeats:
                repeated = arg[1] == self.p.MAXREPEAT or arg[1] >= 8
                if self.find(list(arg[2]), under_repeat=under_repeat or repeated):
                    return True
            elif op == self.p.BRANCH:
                alternatives = [list(alt) for alt in arg[1]]
                if under_repeat and self.overlap(alternatives):
                    return True
                if any(self.find(alt, under_repeat=under_repeat) for alt in alternatives):
                    return True
            elif op == self.p.SUBPATTERN and self.find(list(arg[-1]), under_repeat=under_repeat):
                return True
        return False

    def overlap(self, alternatives: list[list[Any]]) -> bool:
        firsts = [self.first(alt) for alt in alternatives]
        for i, one in enumerate(firsts):
            for other in firsts[i + 1:]:
                if any(one(ch) and (other(ch) or (self.ignore_case and other(ch.swapcase())))
                       for ch in _SAMPLE):
                    return True
        return False

    def first(self, items: list[Any]) -> Any:
        """Return a predicate: can ``items`` begin with this character (conservative)."""
        tests = []
        for op, arg in items:
            test, nullable = self.element(op, arg)
            tests.append(test)
            if not nullable:
                break
        else:
            return lambda ch: True  # all of it may match nothing: anything may follow
        return lambda ch: any(test(ch) for test in tests)

    def element(self, op: Any, arg: Any) -> tuple[Any, bool]:
        p = self.p
        if op == p.LITERAL:
            return (lambda ch: ord(ch) == arg), False
        if op == p.NOT_LITERAL:
            return (lambda ch: ord(ch) != arg), False
        if op == p.IN:
            return self.in_set(list(arg)), False
        if op == p.SUBPATTERN:
            inner = list(arg[-1])
            return self.first(inner), not inner
        if op in self.repeats:
            return self.first(list(arg[2])), arg[0] == 0
        if op == p.BRANCH:
            tests = [self.first(list(alt)) for alt in arg[1]]
            return (lambda ch: any(t(ch) for t in tests)), False
        if op == p.AT or op in (p.ASSERT, p.ASSERT_NOT):
            return (lambda ch: False), True
        return (lambda ch: True), False  # ANY and whatever else: may begin with anything

    def in_set(self, members: list[Any]) -> Callable[[str], bool]:
        p = self.p
        negate = any(op == p.NEGATE for op, _ in members)

        def member(ch: str) -> bool:
            for op, arg in members:
                if op == p.LITERAL and ord(ch) == arg:
                    return True
                if op == p.RANGE and arg[0] <= ord(ch) <= arg[1]:
                    return True
                if op == p.CATEGORY and _category(arg)(ch):
                    return True
                if op not in (p.LITERAL, p.RANGE, p.CATEGORY, p.NEGATE):
                    return True
            return False

        return (lambda ch: not member(ch)) if negate else member


def _is_word(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


_CATEGORIES: dict[str, Callable[[str], bool]] = {
    "DIGIT": str.isdigit, "SPACE": str.isspace, "WORD": _is_word,
}


def _negated(test: Callable[[str], bool]) -> Callable[[str], bool]:
    return lambda ch: not test(ch)


def _category(category: Any) -> Callable[[str], bool]:
    name = str(category).upper()
    for key, test in _CATEGORIES.items():
        if name.endswith("NOT_" + key):
            return _negated(test)
        if name.endswith(key):
            return test
    return lambda ch: True


def has_nested_quantifier(pattern: str, flags: int = 0) -> bool:
    """Return True when ``pattern`` holds a nested quantifier that can backtrack exponentially
    (``(a+)+``, ``(\\w+\\s?)*``).

    Only the cheap, classic shape is detected: a group repeated without bound whose body,
    apart from parts that may match nothing, is a single variable-length repetition. So
    ``(\\d+,)*`` (each repetition ends at a comma) is allowed. Overlapping alternatives
    (``(a|aa)+``) are not detected.
    """
    parsed = _parsed(pattern, flags)
    if parsed is None:
        return False
    parser, tree = parsed
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

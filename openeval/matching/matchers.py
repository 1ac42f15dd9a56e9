"""Argument matchers: expected JSON values that say *how* to match, not only *what*.

Wherever a test case gives an expected value (a tool call's argument, a final-state key), an
object whose keys all start with ``$`` is a matcher (docs/semantics.md#argument-matchers)::

    {"$any": [v, ...]}          a value matching one of the items (each may be a matcher)
    {"$regex": "pat"}           a string in which re.search(pat) finds a match
    {"$approx": x, "$tol": t, "$rel": r}   a number within t (default 1e-9) or r * |x| of x
    {"$type": name}             string, number, integer, boolean, array, object or null
    {"$contains": v}            a string holding the substring v, or an array with an element
                                matching v
    {"$text": "s"}              a string equal to s after BFCL's loose normalising
    {"$exists": true|false}     the key is present (any value) / absent
    {"$optional": m}            the key may be absent; when present it matches m
    {"$not": m}                 a present value that does not match m
    {"$eq": v}                  exactly v, even an object whose keys start with "$"

Everything else compares with JSON equality (:func:`openeval.values.json_equal`), and
matchers may stand at any depth. :func:`compile_expected` turns an expected value into an
:class:`Expected` once, checking every matcher (an unknown ``$`` key, a bad regex or operand
is a :class:`~openeval.errors.TestCaseError` naming the JSON path), so scoring never meets a
malformed one. An :class:`Expected` answers :meth:`~Expected.test` (True, False, or None for
"cannot tell") and :meth:`~Expected.explain` (the first place and reason it did not match).

Bounds: regular expressions search at most :data:`MAX_REGEX_SUBJECT` characters, patterns
that can backtrack (``(a+)+``) are refused, and every search has a CPU budget
(:mod:`openeval.matching.regex_budget`: one that uses it up is an error naming the pattern,
proposals/0310-regex-cpu-budget.md); expected values nest at most
:data:`~openeval.values.MAX_JSON_DEPTH` levels. See proposals/0030-trajectory-matching.md.
"""

from __future__ import annotations

import difflib
import math
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.errors import TestCaseError
from openeval.matching.regex_bounds import backtracking_risk, searcher
from openeval.matching.regex_budget import bounded_search
from openeval.values import JSON_TYPES as ALL_JSON_TYPES
from openeval.values import (
    MAX_JSON_DEPTH,
    MISSING,
    TOO_DEEP,
    first_difference,
    json_compare,
    json_type_is,
    short_json,
    short_pair,
)

MAX_REGEX_SUBJECT = 10_000
"""Longest string a ``$regex`` searches: a longer string is not searched and the matcher answers
"cannot tell" (it fails, and so does a ``$not`` around it). 10,000 characters keep a pattern
with one unbounded quantifier (``.*@example\\.com$``) under 0.1 s on a hostile string, far
below the CPU budget of every search (:data:`openeval.matching.regex_budget.BUDGET_SECONDS`)."""

MATCHERS: tuple[str, ...] = (
    "$any", "$approx", "$contains", "$eq", "$exists", "$not", "$optional", "$regex", "$text",
    "$type",
)
"""The matcher keys, sorted; ``$tol`` and ``$rel`` are settings of ``$approx``."""

JSON_TYPES: tuple[str, ...] = tuple(sorted(ALL_JSON_TYPES))
"""The names ``$type`` accepts."""

_APPROX_SETTINGS = ("$tol", "$rel")
_PLAIN_SCALARS = frozenset({str, int, bool, type(None)})
_DEFAULT_TOL = 1e-9
_DESCRIBE_LIMIT = 60
_TEXT_REMOVED = re.compile(r"[ ,./\-_*^]")

Verdict = bool | None
"""True: matches. False: does not. None: cannot tell (a string too long to search, values
nested too deeply): counted as no match, and a ``$not`` of it is no match either."""


@dataclass(frozen=True)
class Mismatch:
    """Where and why an actual value did not match: one line of a metric's details.

    ``expected`` describes what was wanted (None for "nothing": an unexpected key);
    ``actual`` is the value found there (:data:`~openeval.values.MISSING` when absent);
    ``reason``, when set, replaces the usual "expected X, got Y" wording.
    """

    path: str
    expected: str | None
    actual: Any
    reason: str | None = None
    wanted: Any = MISSING
    """The plain expected value at ``path`` when the expectation is one: both values are then
    shown around their first difference (:func:`~openeval.values.short_pair`)."""

    def texts(self) -> tuple[str | None, str]:
        """Return what was expected and what was found there, as short texts (the expected
        one None for an unexpected key; the found one ``missing`` when absent)."""
        if self.wanted is not MISSING and self.actual is not MISSING:
            return short_pair(self.wanted, self.actual)
        return self.expected, short_json(self.actual)

    def __str__(self) -> str:
        where = self.path or "value"
        if self.reason is not None:
            return f"{where}: {self.reason}"
        if self.actual is MISSING:
            return f"{where}: missing"
        expected, got = self.texts()
        if expected is None:
            return f"{where}: unexpected {got}"
        return f"{where}: expected {expected}, got {got}"


def _join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


class Expected(ABC):
    """A compiled expected value: tests an actual value and explains a mismatch.

    ``repr`` shows the JSON the test case wrote; :meth:`describe` says in words what it wants.
    The actual value may be :data:`~openeval.values.MISSING` (an absent object key);
    :attr:`allows_missing` tells whether that matches.
    """

    __slots__ = ("allows_missing", "source")

    def __init__(self, source: Any) -> None:
        self.source = source
        self.allows_missing = self.test(MISSING) is True

    @abstractmethod
    def test(self, actual: Any) -> Verdict:
        """Return True when ``actual`` matches, False when not, None when it cannot tell."""

    @abstractmethod
    def describe(self) -> str:
        """Return what this expects, in words for a details line (``a string matching /x/``)."""

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return None when ``actual`` matches, else the first place and reason it does not."""
        verdict = self.test(actual)
        if verdict is True:
            return None
        if verdict is None:
            return Mismatch(path, self.describe(), actual, self.unknown_reason(actual))
        return Mismatch(path, self.describe(), actual)

    def unknown_reason(self, actual: Any) -> str:
        """Return why :meth:`test` could not tell about ``actual`` (when it answered None)."""
        return f"cannot tell whether it is {self.describe()}"

    @property
    def is_literal(self) -> bool:
        """True when this is a plain JSON value with no matcher anywhere inside."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({short_json(self.source, 80)})"


class Literal(Expected):
    """A plain JSON value: matches a value that is :func:`~openeval.values.json_equal` to it."""

    __slots__ = ()

    def test(self, actual: Any) -> Verdict:
        """Return the JSON equality of the actual value and this one (None: too deep)."""
        if actual is MISSING:
            return False
        return json_compare(self.source, actual)

    def describe(self) -> str:
        """Return the value itself as short JSON."""
        return short_json(self.source)

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return the first differing place inside the two values, as a path."""
        if actual is MISSING:
            return Mismatch(path, self.describe(), MISSING)
        found = first_difference(self.source, actual, path)
        if found is None:
            return None
        where, want, got = found
        if got is TOO_DEEP:
            return Mismatch(where, None, None, TOO_DEEP.shown)
        if want is MISSING:
            return Mismatch(where, None, got)
        return Mismatch(where, short_json(want), got, wanted=want)

    @property
    def is_literal(self) -> bool:
        """Always True: a literal holds no matcher."""
        return True


class Eq(Literal):
    """``{"$eq": v}``: exactly ``v``, with no matcher read inside it."""

    __slots__ = ("value",)

    def __init__(self, source: Any, value: Any) -> None:
        self.value = value
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return the JSON equality of the actual value and ``v``."""
        if actual is MISSING:
            return False
        return json_compare(self.value, actual)

    def describe(self) -> str:
        """Return ``v`` as short JSON."""
        return short_json(self.value)

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return the first differing place inside ``v`` and the actual value."""
        return Literal(self.value).explain(actual, path)

    @property
    def is_literal(self) -> bool:
        """False: the source is a matcher object, so it cannot be hashed as a plain value."""
        return False


class ObjectPattern(Expected):
    """An expected object holding a matcher somewhere: the same keys, each value matching.

    A key whose pattern allows absence (``$optional``, ``$exists: false``) may be missing.
    """

    __slots__ = ("fields",)

    def __init__(self, source: Any, fields: dict[str, Expected]) -> None:
        self.fields = fields
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether ``actual`` is an object with exactly these keys, each matching."""
        if not isinstance(actual, Mapping):
            return False
        for key in actual:
            if key not in self.fields:
                return False
        unknown = False
        for key, field in self.fields.items():
            verdict = field.test(actual.get(key, MISSING))
            if verdict is False:
                return False
            unknown = unknown or verdict is None
        return None if unknown else True

    def describe(self) -> str:
        """Return the object as written."""
        return short_json(self.source)

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return the first key (sorted) that is missing, unexpected or different."""
        if not isinstance(actual, Mapping):
            return super().explain(actual, path)
        for key in sorted(set(self.fields) | set(actual), key=str):
            here = _join(path, key)
            field = self.fields.get(key)
            if field is None:
                return Mismatch(here, None, actual[key])
            found = field.explain(actual.get(key, MISSING), here)
            if found is not None:
                return found
        return None


class ArrayPattern(Expected):
    """An expected array holding a matcher somewhere: the same length, items matching in order."""

    __slots__ = ("items",)

    def __init__(self, source: Any, items: list[Expected]) -> None:
        self.items = items
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether ``actual`` is an array of the same length whose items all match."""
        if not isinstance(actual, (list, tuple)) or len(actual) != len(self.items):
            return False
        unknown = False
        for item, value in zip(self.items, actual, strict=True):
            verdict = item.test(value)
            if verdict is False:
                return False
            unknown = unknown or verdict is None
        return None if unknown else True

    def describe(self) -> str:
        """Return the array as written."""
        return short_json(self.source)

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return the first item that does not match; a different length names the array."""
        if not isinstance(actual, (list, tuple)) or len(actual) != len(self.items):
            return super().explain(actual, path)
        for index, (item, value) in enumerate(zip(self.items, actual, strict=True)):
            found = item.explain(value, f"{path}[{index}]")
            if found is not None:
                return found
        return None


class AnyOf(Expected):
    """``{"$any": [...]}``: a value matching at least one of the options."""

    __slots__ = ("options",)

    def __init__(self, source: Any, options: list[Expected]) -> None:
        self.options = options
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return True when an option matches; None when none does but one cannot tell."""
        unknown = False
        for option in self.options:
            verdict = option.test(actual)
            if verdict is True:
                return True
            unknown = unknown or verdict is None
        return None if unknown else False

    def describe(self) -> str:
        """Return ``any of A, B or C``."""
        parts = [option.describe() for option in self.options]
        text = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]
        return _cut(f"any of {text}")

    def unknown_reason(self, actual: Any) -> str:
        """Return the reason of the first option that could not tell."""
        for option in self.options:
            if option.test(actual) is None:
                return option.unknown_reason(actual)
        return super().unknown_reason(actual)


class Regex(Expected):
    """``{"$regex": "pat"}``: a string in which ``re.search`` finds the pattern."""

    __slots__ = ("label", "pattern", "searcher")

    def __init__(
        self, source: Any, pattern: str, searcher: re.Pattern[str], where: str = "$regex"
    ) -> None:
        self.pattern = pattern
        self.searcher = searcher
        self.label = f"{where}: the pattern"  # how a search that gives up names it
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether the pattern is found; None for a string too long to search.

        Raises RegexGaveUp (an OpenEvalError naming the pattern) when the search uses up its
        CPU budget.
        """
        if not isinstance(actual, str):
            return False
        if len(actual) > MAX_REGEX_SUBJECT:
            return None
        return bounded_search(self.searcher, actual, self.label, self.pattern) is not None

    def describe(self) -> str:
        """Return ``a string matching /pat/``."""
        return _cut(f"a string matching /{self.pattern}/")

    def unknown_reason(self, actual: Any) -> str:
        """Return that the string was too long to search."""
        return (
            f"a string of {len(actual):,} characters, longer than the {MAX_REGEX_SUBJECT:,} "
            "a $regex searches: not matched"
        )


class Approx(Expected):
    """``{"$approx": x}``: a number within ``$tol`` (absolute) or ``$rel`` (relative) of x."""

    __slots__ = ("rel", "target", "tol")

    def __init__(self, source: Any, target: float, tol: float, rel: float | None) -> None:
        self.target = target
        self.tol = tol
        self.rel = rel
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether ``actual`` is a number close enough to the target."""
        if not _is_number(actual):
            return False
        try:
            gap = abs(actual - self.target)
        except OverflowError:  # an integer too large for a float is far from any target
            return False
        if gap <= self.tol:
            return True
        return self.rel is not None and gap <= self.rel * abs(self.target)

    def describe(self) -> str:
        """Return ``59.9 ± 0.01`` (and ``or 1%`` for a relative tolerance)."""
        text = f"{short_json(self.target)} ± {self.tol:g}"
        if self.rel is not None:
            text += f" or {self.rel * 100:g}%"
        return text


class TypeIs(Expected):
    """``{"$type": name}``: a value of that JSON type (``integer``: a number with no fraction)."""

    __slots__ = ("name",)

    def __init__(self, source: Any, name: str) -> None:
        self.name = name
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether ``actual`` is of the named JSON type."""
        return actual is not MISSING and _json_type_is(actual, self.name)

    def describe(self) -> str:
        """Return ``a string``, ``an integer`` ..."""
        return ("an " if self.name[0] in "aeiou" else "a ") + self.name


class Contains(Expected):
    """``{"$contains": v}``: a string holding substring v, or an array with an item matching v."""

    __slots__ = ("item",)

    def __init__(self, source: Any, item: Expected) -> None:
        self.item = item
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether the substring or a matching item is found."""
        if isinstance(actual, str):
            wanted = self.item.source
            return isinstance(wanted, str) and self.item.is_literal and wanted in actual
        if not isinstance(actual, (list, tuple)):
            return False
        unknown = False
        for value in actual:
            verdict = self.item.test(value)
            if verdict is True:
                return True
            unknown = unknown or verdict is None
        return None if unknown else False

    def describe(self) -> str:
        """Return ``a string or array containing "x"`` (or ``an array with an item ...``)."""
        if isinstance(self.item.source, str) and self.item.is_literal:
            return _cut(f"a string or array containing {self.item.describe()}")
        return _cut(f"an array with an item matching {self.item.describe()}")


def loose_text(text: str) -> str:
    """Return ``text`` as BFCL normalises it for loose comparison.

    Lower case; spaces and the characters ``, . / - _ * ^`` removed; ``'`` read as ``"``.
    """
    return _TEXT_REMOVED.sub("", text).lower().replace("'", '"')


class Text(Expected):
    """``{"$text": "s"}``: a string equal to s after :func:`loose_text` on both sides."""

    __slots__ = ("loose", "text")

    def __init__(self, source: Any, text: str) -> None:
        self.text = text
        self.loose = loose_text(text)
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether ``actual`` is a string loosely equal to the expected text."""
        return isinstance(actual, str) and loose_text(actual) == self.loose

    def describe(self) -> str:
        """Return ``text like "s"``."""
        return f"text like {short_json(self.text)}"


class Exists(Expected):
    """``{"$exists": true}``: the key is present; ``false``: the key is absent."""

    __slots__ = ("present",)

    def __init__(self, source: Any, present: bool) -> None:
        self.present = present
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return whether the key's presence is as wanted."""
        return (actual is not MISSING) is self.present

    def describe(self) -> str:
        """Return ``present`` or ``absent``."""
        return "present" if self.present else "absent"


class Optional(Expected):
    """``{"$optional": m}``: the key may be absent; when present, its value matches m."""

    __slots__ = ("inner",)

    def __init__(self, source: Any, inner: Expected) -> None:
        self.inner = inner
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return True when absent, else the inner matcher's verdict."""
        return True if actual is MISSING else self.inner.test(actual)

    def describe(self) -> str:
        """Return ``absent or <m>``."""
        return _cut(f"absent or {self.inner.describe()}")

    def explain(self, actual: Any, path: str = "") -> Mismatch | None:
        """Return the inner matcher's explanation of a present value."""
        return None if actual is MISSING else self.inner.explain(actual, path)


class Not(Expected):
    """``{"$not": m}``: a present value that does not match m (cannot-tell stays cannot-tell)."""

    __slots__ = ("inner",)

    def __init__(self, source: Any, inner: Expected) -> None:
        self.inner = inner
        super().__init__(source)

    def test(self, actual: Any) -> Verdict:
        """Return the negation of the inner verdict; an absent key never matches."""
        if actual is MISSING:
            return False
        verdict = self.inner.test(actual)
        return None if verdict is None else not verdict

    def describe(self) -> str:
        """Return ``not <m>``."""
        return _cut(f"not {self.inner.describe()}")

    def unknown_reason(self, actual: Any) -> str:
        """Return the inner matcher's reason."""
        return self.inner.unknown_reason(actual)


def _cut(text: str) -> str:
    return text if len(text) <= _DESCRIBE_LIMIT else text[: _DESCRIBE_LIMIT - 3] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _json_type_is(value: Any, name: str) -> bool:
    return json_type_is(value, name)


def is_matcher_object(value: Any) -> bool:
    """Return True when ``value`` is a matcher: a non-empty object whose keys all start with $."""
    if (type(value) is not dict and not isinstance(value, Mapping)) or not value:
        return False
    first = next(iter(value))  # most objects fail on their first key: no generator for them
    if not (isinstance(first, str) and first.startswith("$")):
        return False
    return all(isinstance(key, str) and key.startswith("$") for key in value)


def compile_expected(
    value: Any, where: str, *, source: str | Path | None = None
) -> Expected:
    """Return ``value``, an expected argument or state value, compiled into an :class:`Expected`.

    ``where`` is its JSON path (``expected_tool_calls[1].args.amount``) and ``source`` its file,
    for errors. The value stands as an object key's value, so ``$exists`` and ``$optional`` are
    allowed at its top. Raises TestCaseError naming the path for an unknown ``$`` key, a regex
    that does not compile or is refused, a malformed operand, or nesting past
    :data:`~openeval.values.MAX_JSON_DEPTH`.
    """
    return _Compiler(source).compile(value, where, keyed=True, depth=0)


def compile_fields(
    values: Mapping[str, Any], where: str, *, source: str | Path | None = None
) -> dict[str, Expected]:
    """Return each value of an arguments or state object compiled (see :func:`compile_expected`).

    The object itself is never a matcher, even if its keys start with ``$``: its keys are
    argument (or state) names.
    """
    compiler = _Compiler(source)
    return {
        key: compiler.compile(value, _join(where, key), keyed=True, depth=1)
        for key, value in values.items()
    }


class _Compiler:
    """Compiles expected values, raising errors that name the file and the JSON path."""

    def __init__(self, source: str | Path | None) -> None:
        self.source = source

    def fail(self, where: str, message: str) -> TestCaseError:
        return TestCaseError(message, source=self.source, location=where or None)

    def compile(self, value: Any, where: str, *, keyed: bool, depth: int) -> Expected:
        if type(value) in _PLAIN_SCALARS and value == value:  # the usual case, and no NaN
            return Literal(value)
        if depth > MAX_JSON_DEPTH:
            raise self.fail(where, f"nested deeper than {MAX_JSON_DEPTH} levels")
        if type(value) in (dict, list) and _plain(value, depth):
            return Literal(value)  # no matcher inside: one equality test, no objects per item
        if is_matcher_object(value):
            return self.matcher(value, where, keyed=keyed, depth=depth)
        if isinstance(value, Mapping) and _has_dollar_key(value):
            raise self.fail(where, _mixed_keys(value))
        if isinstance(value, Mapping):
            fields = {
                key: self.compile(item, _join(where, key), keyed=True, depth=depth + 1)
                for key, item in value.items()
            }
            if all(field.is_literal for field in fields.values()):
                return Literal(value)
            return ObjectPattern(value, fields)
        if isinstance(value, (list, tuple)):
            items = [
                self.compile(item, f"{where}[{index}]", keyed=False, depth=depth + 1)
                for index, item in enumerate(value)
            ]
            if all(item.is_literal for item in items):
                return Literal(value)
            return ArrayPattern(value, items)
        if isinstance(value, float) and not math.isfinite(value):
            raise self.fail(where, f"expected a finite number, got {value!r}")
        return Literal(value)

    def matcher(
        self, value: Mapping[str, Any], where: str, *, keyed: bool, depth: int
    ) -> Expected:
        keys = set(value)
        unknown = sorted(keys - set(MATCHERS) - set(_APPROX_SETTINGS))
        if unknown:
            raise self.fail(where, _unknown_matcher(unknown[0]))
        heads = sorted(keys & set(MATCHERS))
        if not heads:
            raise self.fail(where, f'"{sorted(keys)[0]}" only goes with "$approx"')
        if len(heads) > 1:
            raise self.fail(
                where,
                f"one matcher per object, got {', '.join(heads)}; "
                'combine matchers with "$any" or "$not"',
            )
        head = heads[0]
        if head != "$approx" and keys & set(_APPROX_SETTINGS):
            extra = sorted(keys & set(_APPROX_SETTINGS))[0]
            raise self.fail(where, f'"{extra}" only goes with "$approx", not "{head}"')
        if head in ("$exists", "$optional") and not keyed:
            raise self.fail(
                where,
                f'"{head}" says whether an object key is present, so it only stands as the '
                "value of a key (not in an array, $contains, $not or $optional)",
            )
        operand = value[head]
        at = f"{where}.{head}"
        inner_depth = depth + 1
        if head == "$any":
            if not isinstance(operand, list) or not operand:
                raise self.fail(at, "expected a non-empty list of values")
            return AnyOf(value, [
                self.compile(item, f"{at}[{i}]", keyed=keyed, depth=inner_depth + 1)
                for i, item in enumerate(operand)
            ])
        if head == "$regex":
            return self.regex(value, operand, at)
        if head == "$approx":
            return self.approx(value, at)
        if head == "$type":
            if operand not in JSON_TYPES:
                raise self.fail(
                    at, f"unknown type {short_json(operand)}; expected one of: "
                    + ", ".join(JSON_TYPES),
                )
            return TypeIs(value, operand)
        if head == "$contains":
            return Contains(value, self.compile(operand, at, keyed=False, depth=inner_depth))
        if head == "$text":
            if not isinstance(operand, str):
                raise self.fail(at, f"expected a string, got {_kind_word(operand)}")
            return Text(value, operand)
        if head == "$exists":
            if not isinstance(operand, bool):
                raise self.fail(at, f"expected true or false, got {_kind_word(operand)}")
            return Exists(value, operand)
        if head == "$optional":
            return Optional(value, self.compile(operand, at, keyed=False, depth=inner_depth))
        if head == "$not":
            return Not(value, self.compile(operand, at, keyed=False, depth=inner_depth))
        # "$eq": the operand is taken literally, but must still be a bounded JSON value.
        self.check_plain(operand, at, inner_depth)
        return Eq(value, operand)

    def check_plain(self, value: Any, where: str, depth: int) -> None:
        stack = [(value, depth)]
        while stack:
            item, level = stack.pop()
            if level > MAX_JSON_DEPTH:
                raise self.fail(where, f"nested deeper than {MAX_JSON_DEPTH} levels")
            if isinstance(item, Mapping):
                stack.extend((v, level + 1) for v in item.values())
            elif isinstance(item, (list, tuple)):
                stack.extend((v, level + 1) for v in item)

    def regex(self, value: Mapping[str, Any], operand: Any, at: str) -> Regex:
        if not isinstance(operand, str):
            raise self.fail(at, f"expected a regular expression string, got {_kind_word(operand)}")
        try:
            compiled = re.compile(operand)
        except re.error as exc:
            raise self.fail(at, f"invalid regular expression: {exc}") from None
        risk = backtracking_risk(operand)
        if risk is not None:
            raise self.fail(at, f"the pattern {risk}")
        return Regex(value, operand, searcher(operand, compiled), at)

    def approx(self, value: Mapping[str, Any], at: str) -> Approx:
        target = value["$approx"]
        if not _is_number(target) or not math.isfinite(target):
            raise self.fail(at, f"expected a finite number, got {_kind_word(target)}")
        settings: dict[str, float] = {}
        for key in _APPROX_SETTINGS:
            if key in value:
                setting = value[key]
                if not _is_number(setting) or not setting >= 0 or not math.isfinite(setting):
                    raise self.fail(
                        at[: -len("$approx")] + key,
                        f"expected a number >= 0, got {short_json(setting)}",
                    )
                settings[key] = float(setting)
        return Approx(value, target, settings.get("$tol", _DEFAULT_TOL), settings.get("$rel"))


def _plain(value: Any, depth: int) -> bool:
    """Return True when ``value`` holds no matcher, no non-finite float and no nesting past
    MAX_JSON_DEPTH (counted from ``depth``): it compiles to a single :class:`Literal`."""
    stack = [(value, depth)]
    while stack:
        item, level = stack.pop()
        kind = type(item)
        if kind is dict:
            if level > MAX_JSON_DEPTH or is_matcher_object(item) or _has_dollar_key(item):
                return False
            children = item.values()
        elif kind is list:
            if level > MAX_JSON_DEPTH:
                return False
            children = item
        elif kind is float:
            if not math.isfinite(item):
                return False
            continue
        elif kind not in _PLAIN_SCALARS:
            return False  # tuples, Mapping subclasses ...: the careful path
        else:
            continue
        for child in children:  # plain strings and numbers checked here, not pushed
            child_kind = type(child)
            if child_kind is str or child_kind is int or child_kind is bool or child is None:
                continue
            stack.append((child, level + 1))
    return True


def _has_dollar_key(value: Mapping[Any, Any]) -> bool:
    return any(type(key) is str and key[:1] == "$" for key in value)


def _mixed_keys(value: Mapping[Any, Any]) -> str:
    """Return the error for an object mixing matcher keys and plain keys, with the likely fix.

    Such an object would compare as a plain object by accident (``{"$approx": 59.9, "tol":
    0.01}`` matching only that very object), so it is refused like an unknown matcher.
    """
    dollar = [str(k) for k in value if isinstance(k, str) and k.startswith("$")]
    plain = [str(k) for k in value if not (isinstance(k, str) and k.startswith("$"))]
    text = (f"mixes matcher keys ({', '.join(dollar)}) with plain keys ({', '.join(plain)}), "
            "so it would compare as a literal object")
    key = plain[0]
    if f"${key}" in (*MATCHERS, *_APPROX_SETTINGS):
        return f'{text}: did you mean "${key}"?'
    if key == "flags" and "$regex" in dollar:
        return (f'{text}: "$regex" takes no flags; write them in the pattern, as in '
                '"(?i)..." for a match in any case')
    return f'{text}; a literal object with "$" keys is written {{"$eq": {{...}}}}'


def _unknown_matcher(key: str) -> str:
    text = f'unknown matcher "{key}"; expected one of: {", ".join(MATCHERS)}'
    close = difflib.get_close_matches(key, [*MATCHERS, *_APPROX_SETTINGS], n=1)
    if close:
        text += f' (did you mean "{close[0]}"?)'
    text += '; a literal object with "$" keys is written {"$eq": {...}}'
    return text


def _kind_word(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if _is_number(value):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__

"""Reading a check's settings: the one reader every check of the library uses.

None means the default; anything else is checked, and a setting of the wrong kind, out of
range or outside a closed choice is a :class:`SettingError` (a TestCaseError) that names the
check and the setting and says what was expected: a typo in a suite must not silently change a
verdict, nor read as a bug of OpenEval. The check entry's JSON path is added by whoever knows
it: the plan compiler, which finds these errors once, before any trace is scored
(proposals/0100-check-settings.md). :mod:`openeval.checks.util` offers the same reader under
the names a user's own check calls.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any, TypeVar

from openeval.errors import TestCaseError
from openeval.matching.regex_bounds import backtracking_risk


class SettingError(TestCaseError, ValueError):
    """A check's setting is wrong: a test case error. It is also a ValueError, which is what a
    check called from Python raised for a bad setting before, so code catching that still
    works."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"[:80]
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "a list"
    return type(value).__name__


def bad_setting(check: str | None, setting: str, expected: str, got: Any) -> SettingError:
    """Return the error for a setting that is not what ``check`` expects (None: a check
    whose name the caller does not know)."""
    prefix = f"{check}: " if check else ""
    return SettingError(f"{prefix}setting {setting!r}: expected {expected}, got {_kind(got)}")


def score_name(value: Any, default: str, check: str) -> str:
    """Return the ``name`` setting (the primary score's name); None gives ``default``."""
    if value is None:
        return default
    if not isinstance(value, str) or not value:
        raise bad_setting(check, "name", "a non-empty text", value)
    return value


def integer(value: Any, default: int, check: str | None, setting: str, minimum: int = 0) -> int:
    """Return an int setting of at least ``minimum``; None gives ``default``."""
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise bad_setting(check, setting, f"a whole number of at least {minimum}", value)
    return value


def optional_number(
    value: Any, check: str | None, setting: str, *, minimum: float = 0.0, above: bool = False
) -> float | None:
    """Return a number setting, or None for "not checked"; ``above`` excludes ``minimum``."""
    if value is None:
        return None
    return number(value, 0.0, check, setting, minimum=minimum, above=above)


def number(
    value: Any, default: float, check: str | None, setting: str, *, minimum: float = 0.0,
    maximum: float | None = None, above: bool = False,
) -> float:
    """Return a finite number setting in range; None gives ``default``."""
    if value is None:
        return default
    ok = (not isinstance(value, bool) and isinstance(value, (int, float))
          and math.isfinite(value)
          and (value > minimum if above else value >= minimum)
          and (maximum is None or value <= maximum))
    if not ok:
        low = f"above {minimum:g}" if above else f"at least {minimum:g}"
        high = f" and at most {maximum:g}" if maximum is not None else ""
        raise bad_setting(check, setting, f"a number {low}{high}", value)
    return float(value)


def boolean(value: Any, default: bool, check: str | None, setting: str) -> bool:
    """Return a true/false setting; None gives ``default``."""
    if value is None:
        return default
    if not isinstance(value, bool):
        raise bad_setting(check, setting, "true or false", value)
    return value


def choice(
    value: Any, default: str, allowed: Iterable[str], check: str | None, setting: str
) -> str:
    """Return a setting that must be one of ``allowed``; None gives ``default``."""
    if value is None:
        return default
    options = list(allowed)
    if not isinstance(value, str) or value not in options:
        listed = ", ".join(repr(o) for o in options)
        raise bad_setting(check, setting, f"one of {listed}", value)
    return value


def strings(value: Any, default: Iterable[str], check: str | None, setting: str) -> tuple[str, ...]:
    """Return a list-of-texts setting; one text is a list of one; None gives ``default``."""
    if value is None:
        return tuple(default)
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(
        isinstance(item, str) for item in value
    ):
        raise bad_setting(check, setting, "a list of texts", value)
    # A set has no order; sorting it keeps results the same from run to run.
    return tuple(sorted(value)) if isinstance(value, (set, frozenset)) else tuple(value)


def patterns(
    value: Any, check: str | None, setting: str, flags: int = 0
) -> list[tuple[str, re.Pattern[str]]]:
    """Return compiled regular expressions; one that does not compile is a setting error."""
    compiled = []
    for index, pattern in enumerate(strings(value, (), check, setting)):
        try:
            compiled.append((pattern, re.compile(pattern, flags)))
        except re.error as exc:
            raise SettingError(
                f"{check or 'check'}: setting {setting!r}[{index}]: the pattern {pattern!r} "
                f"does not compile: {exc}"
            ) from None
        risk = backtracking_risk(pattern, flags)  # read as compiled: re.IGNORECASE overlaps a, A
        if risk is not None:
            raise TestCaseError(f"{check}: setting {setting!r}[{index}]: the pattern "
                                f"{pattern!r} {risk}")
    return compiled


_Read = TypeVar("_Read")

READ_ONCE_SIZE = 256
"""Distinct settings a :func:`read_once` reader remembers (a run has a few; a long-lived
process scoring many plans starts afresh past this)."""


def read_once(read: Callable[..., _Read]) -> Callable[..., _Read]:
    """Return ``read``, a pure function of a check's settings (given positionally), made to
    read each distinct set of settings once (proposals/0285-score-per-trace-work-once.md).

    A check reads its settings on every call, that is on every trace; the settings of one
    entry are the same on each. Settings are matched by type and value (``1``, ``1.0`` and
    ``True`` are three settings; a float by its ``repr``, so ``-0.0`` is not ``0.0``); a
    value other than None, a text, a number, a boolean, or a list or tuple of those is read
    afresh each time. A setting error is never remembered: the same settings raise the same
    error on every call. What ``read`` returns is shared: it must be immutable.
    """
    seen: dict[Hashable, _Read] = {}
    # The last settings read, their ids and what they gave: a check called again with the
    # very same objects (the scorer passes one entry's compiled settings, and the defaults, on
    # every trace) is answered by one comparison of ids. The settings tuple is kept, so the
    # ids cannot be reused by other objects; only settings immutable through and through are
    # kept (None, text, integers, booleans, tuples of text: the key's first form), so a list
    # changed in place is always read by value (proposals/0316-score-checks-glue.md).
    # One tuple, read and replaced whole, so threads sharing a reader never see the ids of
    # one call beside the answer of another.
    last: list[tuple[tuple[int, ...], tuple[Any, ...], Any]] = [((), (), None)]

    def reader(*settings: Any) -> _Read:
        ids = tuple(map(id, settings))
        known = last[0]
        if ids == known[0] and settings:
            found: _Read = known[2]
            return found
        key = _settings_key(settings)
        if key is None:
            return read(*settings)
        try:
            found = seen[key]
        except KeyError:
            found = read(*settings)
            if len(seen) >= READ_ONCE_SIZE:
                seen.clear()
            seen[key] = found
        if isinstance(key, tuple) and key[0] is True:  # immutable through and through
            last[0] = (ids, settings, found)
        return found

    reader.__doc__ = read.__doc__
    reader.__wrapped__ = read  # type: ignore[attr-defined]
    return reader


_PLAIN_TYPES = frozenset((type(None), str, bool, int))
"""Types whose values are equal only when they are the same setting (unlike floats)."""
_TEXT_TYPE = frozenset((str,))


def _settings_key(settings: tuple[Any, ...]) -> Hashable | None:
    kinds = tuple(map(type, settings))
    if _PLAIN_TYPES.issuperset(kinds) or all(  # the usual case, defaults: no walk
            kind in _PLAIN_TYPES or (kind is tuple and _TEXT_TYPE.issuperset(map(type, value)))
            for kind, value in zip(kinds, settings, strict=True)):
        return (True, settings, kinds)
    key: list[Hashable] = []
    for value in settings:
        kind = type(value)
        if kind is list or kind is tuple:
            items = tuple(_scalar_key(item) for item in value)
            if None in items:
                return None
            key.append((kind, items))
        else:
            one = _scalar_key(value)
            if one is None:
                return None
            key.append(one)
    return (False, tuple(key))


def _scalar_key(value: Any) -> Hashable | None:
    kind = type(value)
    if kind is float:
        return (kind, repr(value))
    if value is None or kind is str or kind is bool or kind is int:
        return (kind, value)
    return None

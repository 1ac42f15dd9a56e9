"""Comparing one executed call's arguments with one expected call, under an args mode.

The trajectory settings (docs/semantics.md#trajectory-matching) act in this order, the same on
both sides:

1. ``ignore_args``: argument paths matching a glob are removed. Paths are dotted through
   nested objects (``request.id``); ``*`` also crosses dots (``request.*``, ``*_id``); arrays
   and matcher objects are leaves.
2. ``defaults``: a top-level argument equal to its tool's declared default counts as absent
   (an expected plain value equal to it too). An expected matcher for such an argument is
   satisfied by an absent argument when it matches the absence or the default.
3. ``per_tool`` paths: only these argument paths are compared, both sides projected onto them
   and compared as in ``exact`` (a path absent on both sides agrees).
4. The args mode: ``exact`` same keys, each matching (a key whose matcher allows absence may
   be missing); ``superset`` every expected key matches, extra keys allowed; ``subset`` every
   executed key is expected and matches, expected keys may be missing; ``ignore`` names only.
   The direction never depends on the trajectory mode.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

import orjson

from openeval.errors import TestCaseError
from openeval.matching.matchers import (
    Expected,
    Mismatch,
    Verdict,
    compile_expected,
    is_matcher_object,
)
from openeval.values import (
    MAX_JSON_DEPTH,
    MISSING,
    canonical_key,
    container_key,
    json_equal,
    short_json,
)

ArgsMode = Literal["exact", "superset", "subset", "ignore"]
ARGS_MODES: tuple[str, ...] = get_args(ArgsMode)

MAX_COMPARISONS = 2_000_000
"""Most argument comparisons one match may make (seconds, not hours). Only many different
expected calls that an index cannot narrow down (all matchers) against many different executed
calls of the same tool come near it; past it the match is refused with an error saying so."""

ABSENT_KEY: Hashable = ("absent",)
"""The canonical key of an absent argument (no value's canonical key is this tuple)."""


def _plain_enough(values: Mapping[str, Any]) -> bool:
    """Return True when no value nests past MAX_JSON_DEPTH (checked only for long texts)."""
    stack = [(value, 1) for value in values.values()]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_JSON_DEPTH:
            return False
        if isinstance(item, Mapping):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend((v, depth + 1) for v in item)
    return True


@dataclass(frozen=True)
class CallRules:
    """How the calls of one tool are compared: the trajectory settings that apply to it.

    ``mode`` is None when ``paths`` lists the only argument paths compared.
    """

    mode: ArgsMode | None
    paths: tuple[str, ...] = ()
    ignore: re.Pattern[str] | None = None
    defaults: Mapping[str, Any] | None = None

    @property
    def passthrough(self) -> bool:
        """True when :meth:`normalize` has nothing to do (no ignored paths, defaults, paths)."""
        return self.ignore is None and not self.defaults and self.mode is not None

    def normalize(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return an executed call's arguments as they are compared: ignored paths and
        arguments equal to their default removed, projected onto ``paths`` when set. The
        result may be ``args`` itself: never change it."""
        if self.ignore is None and not self.defaults and self.mode is not None:
            return args if isinstance(args, dict) else dict(args or {})
        values: dict[str, Any] = dict(args) if args else {}
        if self.ignore is not None:
            values = _without_ignored(values, self.ignore, "", 0, plain_only=False)
        if self.defaults:
            for key, default in self.defaults.items():
                if key in values and json_equal(default, values[key]):
                    del values[key]
        if self.mode is None:
            return _project(values, self.paths)
        return values


def glob_pattern(globs: Sequence[str]) -> re.Pattern[str] | None:
    """Return one compiled pattern matching any of the fnmatch ``globs`` (None for none)."""
    if not globs:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(glob)})" for glob in globs))


def _without_ignored(
    values: Mapping[str, Any], ignore: re.Pattern[str], prefix: str, depth: int, *,
    plain_only: bool,
) -> dict[str, Any]:
    """Return ``values`` without the keys whose dotted path matches ``ignore`` (at any depth)."""
    out: dict[str, Any] = {}
    for key, value in values.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if ignore.fullmatch(path):
            continue
        descend = (
            isinstance(value, Mapping) and depth < MAX_JSON_DEPTH
            and not (plain_only and is_matcher_object(value))
        )
        out[key] = (
            _without_ignored(value, ignore, path, depth + 1, plain_only=plain_only)
            if descend else value
        )
    return out


def _project(values: Mapping[str, Any], paths: Sequence[str]) -> dict[str, Any]:
    """Return ``{path: value}`` for each dotted path present in ``values``."""
    out: dict[str, Any] = {}
    for path in paths:
        found = _at_path(values, path)
        if found is not MISSING:
            out[path] = found
    return out


def _at_path(values: Mapping[str, Any], path: str) -> Any:
    current: Any = values
    for part in path.split("."):
        if not isinstance(current, Mapping) or part not in current:
            return MISSING
        current = current[part]
    return current


class ExpectedCall:
    """One expected call, compiled under its tool's rules: test and explain executed args.

    ``fields`` maps each compared key (an argument name, or a path under ``per_tool`` paths)
    to its compiled expected value. ``key`` is equal for two expected calls that can only
    match the same executed calls (same tool, same arguments as written). A call whose
    arguments hold no matcher (``plain``, the usual case) also carries canonical keys
    (``whole`` and ``keyed``), so comparing it with executed arguments is comparing keys;
    its ``fields`` are compiled only when a mismatch must be explained.
    """

    __slots__ = (
        "_fields", "_keyed", "_literal", "_required", "defaults", "exact_plain", "index", "key",
        "plain", "root", "rules", "tool", "values", "whole",
    )

    def __init__(
        self, index: int, tool: str, args: Mapping[str, Any], rules: CallRules,
        root: str = "expected_tool_calls", source: str | Path | None = None,
    ) -> None:
        self.index = index
        self.tool = tool
        self.rules = rules
        self.root = root
        self.defaults: Mapping[str, Any] = rules.defaults or {}
        values: Mapping[str, Any] = args
        if rules.ignore is not None:
            values = _without_ignored(values, rules.ignore, "", 0, plain_only=True)
        if self.defaults:
            values = {
                key: value for key, value in values.items()
                if key not in self.defaults or is_matcher_object(value)
                or not json_equal(self.defaults[key], value)
            }
        if rules.mode is None:
            values = self._project_expected(values, self.where, source)
        self.values = values
        try:
            text: bytes | None = orjson.dumps(values, option=orjson.OPT_SORT_KEYS)
        except TypeError:
            text = None
        # No '"$' in the text: no key starts with "$", so no matcher. Nesting past the depth
        # limit (an error when compiled) needs at least two bytes per level.
        self.plain = text is not None and b'"$' not in text and (
            len(text) < 2 * MAX_JSON_DEPTH or _plain_enough(values)
        )
        self.whole: Hashable = container_key(values, text)
        self.key: Hashable = (tool, self.whole)
        # Executed args match exactly when their canonical key is ``whole``.
        self.exact_plain = self.plain and (rules.mode == "exact" or rules.mode is None)
        self._fields: dict[str, Expected] | None = None
        self._keyed: dict[str, Hashable] | None = None
        self._literal: dict[str, Hashable] | None = None
        self._required: frozenset[str] | None = None
        if not self.plain:
            self.compile(source)  # checks every matcher now, while the file is being read
            self._keyed = {}

    @property
    def where(self) -> str:
        """The JSON path of the call's arguments, for errors: ``expected_tool_calls[2].args``."""
        return f"{self.root}[{self.index}].args"

    @property
    def names(self) -> frozenset[str]:
        """The compared keys."""
        return frozenset(self.values)

    @property
    def required(self) -> frozenset[str]:
        """The keys an executed call must have: no matcher allowing absence, no default."""
        if self._required is None:
            if self.plain:
                self._required = frozenset(key for key in self.values if key not in self.defaults)
            else:
                self._required = frozenset(
                    key for key, field in self.fields.items()
                    if not field.allows_missing and key not in self.defaults
                )
        return self._required

    @property
    def keyed(self) -> dict[str, Hashable]:
        """The canonical key of each expected value (``plain`` calls; empty otherwise)."""
        if self._keyed is None:
            self._keyed = {key: canonical_key(value) for key, value in self.values.items()}
        return self._keyed

    @property
    def literal(self) -> dict[str, Hashable]:
        """The canonical key of each required key's plain expected value (for an index)."""
        if self._literal is None:
            if self.plain:
                keyed = self.keyed
                self._literal = {key: keyed[key] for key in self.required}
            else:
                self._literal = {
                    key: canonical_key(field.source) for key, field in self.fields.items()
                    if field.is_literal and key in self.required
                }
        return self._literal

    def compile(self, source: str | Path | None = None) -> dict[str, Expected]:
        """Return (and keep) the compiled expected value of each compared key."""
        if self._fields is None:
            where = self.where
            self._fields = {
                key: compile_expected(value, f"{where}.{key}", source=source)
                for key, value in self.values.items()
            }
        return self._fields

    @property
    def fields(self) -> dict[str, Expected]:
        """The compiled expected value of each compared key."""
        return self._fields if self._fields is not None else self.compile()

    def matches_keys(self, whole: Hashable, key_of: Callable[[str], Hashable],
                     names: Iterable[str]) -> bool:
        """Return whether executed args match, given their canonical keys (``plain`` only):
        ``whole`` for all of them, ``key_of(name)`` for one (``ABSENT_KEY`` when absent) and
        their ``names``."""
        mode = self.mode
        if mode == "ignore":
            return True
        if mode == "exact":
            return bool(whole == self.whole)
        keyed = self.keyed
        if mode == "superset":
            for key, wanted in keyed.items():  # noqa: SIM110 - a plain loop: no generator
                if key_of(key) != wanted:
                    return False
            return True
        for key in names:
            wanted = keyed.get(key, ABSENT_KEY)
            if wanted is ABSENT_KEY or key_of(key) != wanted:
                return False
        return True

    def _project_expected(
        self, values: Mapping[str, Any], where: str, source: str | Path | None
    ) -> Mapping[str, Any]:
        out: dict[str, Any] = {}
        for path in self.rules.paths:
            current: Any = values
            parts = path.split(".")
            for depth, part in enumerate(parts):
                if is_matcher_object(current):
                    stop = ".".join(parts[:depth])
                    raise TestCaseError(
                        f"per_tool path {path!r} goes through a matcher at {stop!r}; list "
                        "paths that end at or before a matcher",
                        source=source, location=where,
                    )
                if not isinstance(current, Mapping) or part not in current:
                    current = MISSING
                    break
                current = current[part]
            if current is not MISSING:
                out[path] = current
        return out

    @property
    def mode(self) -> ArgsMode:
        """The args mode applied: ``exact`` for a list of paths."""
        return self.rules.mode or "exact"

    def field_verdict(self, key: str, actual: Mapping[str, Any]) -> Verdict:
        """Return how the executed value at ``key`` (maybe absent) meets the expected one."""
        field = self.fields[key]
        value = actual.get(key, MISSING)
        if value is MISSING and key in self.defaults:
            if field.test(MISSING) is True:
                return True
            return field.test(self.defaults[key])
        return field.test(value)

    def test(self, actual: Mapping[str, Any]) -> Verdict:
        """Return whether the normalized executed args ``actual`` match (None: cannot tell)."""
        mode = self.mode
        if mode == "ignore":
            return True
        if mode != "superset":
            for key in actual:
                if key not in self.fields:
                    return False
        keys = actual if mode == "subset" else self.fields
        unknown = False
        for key in keys:
            verdict = self.field_verdict(key, actual)
            if verdict is False:
                return False
            unknown = unknown or verdict is None
        return None if unknown else True

    def explain(self, actual: Mapping[str, Any]) -> Mismatch | None:
        """Return the first argument (sorted) that keeps ``actual`` from matching, or None."""
        mode = self.mode
        if mode == "ignore":
            return None
        if mode == "superset":
            keys = sorted(self.fields, key=str)
        elif mode == "subset":
            keys = sorted(actual, key=str)
        else:
            keys = sorted(set(self.fields) | set(actual), key=str)
        for key in keys:
            field = self.fields.get(key)
            if field is None:
                return Mismatch(key, None, actual[key])
            if self.field_verdict(key, actual) is True:
                continue
            value = actual.get(key, MISSING)
            if value is MISSING and key in self.defaults:
                return Mismatch(
                    key, field.describe(), MISSING,
                    f"missing, and its default {short_json(self.defaults[key])} is not "
                    f"{field.describe()}",
                )
            found = field.explain(value, key)
            if found is not None:
                return found
            return Mismatch(key, field.describe(), value)
        return None

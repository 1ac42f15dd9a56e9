"""Comparing one executed call's arguments with one expected call, under an args mode.

The trajectory settings (CONTRACT 6.1) act in this order, the same on both sides:

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
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from openeval.errors import TestCaseError
from openeval.matching.matchers import (
    Expected,
    Mismatch,
    Verdict,
    compile_expected,
    is_matcher_object,
)
from openeval.values import MAX_JSON_DEPTH, MISSING, canonical_key, json_equal, short_json

ArgsMode = Literal["exact", "superset", "subset", "ignore"]
ARGS_MODES: tuple[str, ...] = get_args(ArgsMode)


@dataclass(frozen=True)
class CallRules:
    """How the calls of one tool are compared: the trajectory settings that apply to it.

    ``mode`` is None when ``paths`` lists the only argument paths compared.
    """

    mode: ArgsMode | None
    paths: tuple[str, ...] = ()
    ignore: re.Pattern[str] | None = None
    defaults: Mapping[str, Any] | None = None

    def normalize(self, args: Mapping[str, Any] | None) -> dict[str, Any]:
        """Return an executed call's arguments as they are compared: ignored paths and
        arguments equal to their default removed, projected onto ``paths`` when set."""
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
    match the same executed calls (same tool, same arguments as written).
    """

    __slots__ = ("defaults", "fields", "index", "key", "literal", "required", "rules", "tool")

    def __init__(
        self, index: int, tool: str, args: Mapping[str, Any], rules: CallRules, where: str,
        source: str | Path | None = None,
    ) -> None:
        self.index = index
        self.tool = tool
        self.rules = rules
        self.defaults: Mapping[str, Any] = rules.defaults or {}
        values: dict[str, Any] = dict(args)
        if rules.ignore is not None:
            values = _without_ignored(values, rules.ignore, "", 0, plain_only=True)
        for key, default in self.defaults.items():
            if key in values and not is_matcher_object(values[key]) and json_equal(
                default, values[key]
            ):
                del values[key]
        if rules.mode is None:
            values = self._project_expected(values, where, source)
        self.key: Hashable = (tool, canonical_key(values))
        self.fields: dict[str, Expected] = {
            key: compile_expected(value, f"{where}.{key}", source=source)
            for key, value in values.items()
        }
        self.required = frozenset(
            key for key, field in self.fields.items()
            if not field.allows_missing and key not in self.defaults
        )
        self.literal: dict[str, Hashable] = {
            key: canonical_key(field.source) for key, field in self.fields.items()
            if field.is_literal and key in self.required
        }

    def _project_expected(
        self, values: Mapping[str, Any], where: str, source: str | Path | None
    ) -> dict[str, Any]:
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

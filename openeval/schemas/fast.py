"""A fast yes/no check of a document against one of our schemas, for the hot path.

jsonschema walks a 40-step trace in about a millisecond, which is most of the cost of a
10,000-case suite. Our schemas use a small subset of JSON Schema, so this module compiles each
one into nested Python closures that answer only "valid or not", in the same terms as
jsonschema's Draft 2020-12 validator. :func:`openeval.schemas.validate` asks this check first
and runs jsonschema only when it says no, to word the precise message. A schema using a
keyword outside the subset gets no fast check (``compile_check`` returns None) and always goes
through jsonschema, so the subset can never silently accept what jsonschema would refuse.
``tests/test_schema_fast.py`` holds the two to agreement on generated and mutated documents.
See proposals/0001-result-files-and-pass-rate.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Check = Callable[[Any], bool]

# Keywords that only annotate; they never change the verdict.
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description", "$comment"})
_SUPPORTED = _ANNOTATIONS | {
    "type", "required", "properties", "additionalProperties", "items", "enum", "const",
    "minimum", "maximum", "minLength", "$ref",
}


class _Unsupported(Exception):
    """The schema uses a keyword this module does not implement."""


def _is_integer(value: Any) -> bool:
    # Draft 2020-12 counts 1.0 as an integer; bool is never a number.
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_CHECKS: dict[str, Check] = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "integer": _is_integer,
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema's ``enum``/``const`` see it, for scalar values."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    raise _Unsupported("enum/const of a non-scalar value")


def compile_check(schema: dict[str, Any]) -> Check | None:
    """Return a function telling whether a document fits ``schema``, or None if not possible.

    None means the schema uses a keyword this module does not implement.
    """
    defs = schema.get("$defs", {})
    compiled: dict[str, Check] = {}

    def ref(name: str) -> Check:
        # Late binding lets a definition refer to itself.
        def check(value: Any) -> bool:
            return compiled[name](value)

        return check

    def build(node: Any) -> Check:
        if node is True:
            return lambda v: True
        if node is False:
            return lambda v: False
        if not isinstance(node, dict):
            raise _Unsupported(repr(node))
        unknown = set(node) - _SUPPORTED
        if unknown:
            raise _Unsupported(", ".join(sorted(unknown)))
        checks: list[Check] = []
        if "$ref" in node:
            target = node["$ref"]
            prefix = "#/$defs/"
            if not isinstance(target, str) or not target.startswith(prefix):
                raise _Unsupported(f"$ref {target!r}")
            name = target[len(prefix):]
            if name not in defs:
                raise _Unsupported(f"$ref {target!r}")
            checks.append(ref(name))
        if "type" in node:
            names = [node["type"]] if isinstance(node["type"], str) else list(node["type"])
            tests = [_TYPE_CHECKS[n] for n in names]
            checks.append(lambda v: any(t(v) for t in tests))
        if "enum" in node:
            options = list(node["enum"])
            for option in options:
                _json_equal(option, option)
            checks.append(lambda v: any(_safe_equal(v, o) for o in options))
        if "const" in node:
            wanted = node["const"]
            _json_equal(wanted, wanted)
            checks.append(lambda v: _safe_equal(v, wanted))
        if "minimum" in node:
            low = node["minimum"]
            checks.append(lambda v: not _is_number(v) or v >= low)
        if "maximum" in node:
            high = node["maximum"]
            checks.append(lambda v: not _is_number(v) or v <= high)
        if "minLength" in node:
            shortest = node["minLength"]
            checks.append(lambda v: not isinstance(v, str) or len(v) >= shortest)
        if "items" in node:
            item = build(node["items"])
            checks.append(lambda v: not isinstance(v, list) or all(item(x) for x in v))
        checks += _object_checks(node, build)
        if len(checks) == 1:
            return checks[0]
        return lambda v: all(c(v) for c in checks)

    try:
        for name, definition in defs.items():
            compiled[name] = build(definition)
        return build(schema)
    except _Unsupported:
        return None


def _safe_equal(a: Any, b: Any) -> bool:
    try:
        return _json_equal(a, b)
    except _Unsupported:
        return False


def _object_checks(node: dict[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    required = tuple(node.get("required", ()))
    if required:
        checks.append(lambda v: not isinstance(v, dict) or all(k in v for k in required))
    properties = {k: build(s) for k, s in node.get("properties", {}).items()}
    extra_schema = node.get("additionalProperties", True)
    extra: Check | None = None if extra_schema is True else build(extra_schema)
    if not properties and extra is None:
        return checks

    def check_object(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for key, item in value.items():
            test = properties.get(key)
            if test is not None:
                if not test(item):
                    return False
            elif extra is not None and not extra(item):
                return False
        return True

    checks.append(check_object)
    return checks

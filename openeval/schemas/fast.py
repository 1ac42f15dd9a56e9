"""A fast yes/no check of a document against one of our schemas, for the hot path.

jsonschema walks a 40-step trace in about a millisecond, which is most of the cost of a
10,000-case suite. Our schemas use a small subset of JSON Schema, so this module compiles each
one into nested Python closures that answer only "valid or not", in the same terms as
jsonschema's Draft 2020-12 validator. :func:`openeval.schemas.validate` asks this check first
and runs jsonschema only when it says no, to word the precise message. A schema using a
keyword outside the subset gets no fast check (``compile_check`` returns None) and always goes
through jsonschema, so the subset can never silently accept what jsonschema would refuse.
``tests/schemas/test_schema_fast.py`` holds the two to agreement on generated and mutated documents.
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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_KINDS: dict[type, str] = {
    dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null",
    int: "int", float: "float",
}


def _kind(value: Any) -> str:
    """Return the JSON kind of ``value`` (``int`` and ``float`` kept apart for ``integer``)."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        return kind
    # Subclasses (an OrderedDict, an IntEnum ...) are rare: classify them as jsonschema does.
    for python_type, name in _KINDS.items():
        if isinstance(value, python_type):
            return name
    return "other"


def _type_check(names: list[str]) -> Check:
    if not set(names) <= {"object", "array", "string", "boolean", "null", "integer", "number"}:
        raise _Unsupported(f"type {names!r}")
    accepted = {n for n in names if n not in ("integer", "number")}
    if "number" in names:
        accepted |= {"int", "float"}
    elif "integer" in names:
        accepted.add("int")
    whole_floats = "integer" in names and "number" not in names

    def check(value: Any) -> bool:
        kind = _KINDS.get(type(value)) or _kind(value)
        if kind in accepted:
            return True
        # Draft 2020-12 counts 1.0 as an integer.
        return whole_floats and kind == "float" and bool(value.is_integer())

    return check


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
            checks.append(_type_check(names))
        if "enum" in node:
            options = list(node["enum"])
            for option in options:
                _json_equal(option, option)
            checks.append(_enum_check(options))
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
            checks.append(_items_check(build(node["items"])))
        checks += _object_checks(node, build)
        return _all_of(checks)

    try:
        for name, definition in defs.items():
            compiled[name] = build(definition)
        return build(schema)
    except _Unsupported:
        return None


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return lambda v: True
    if len(checks) == 1:
        return checks[0]
    first, *rest = checks

    def check(value: Any) -> bool:
        if not first(value):
            return False
        for test in rest:  # noqa: SIM110 - a plain loop: no generator on the hot path
            if not test(value):
                return False
        return True

    return check


def _items_check(item: Check) -> Check:
    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        for element in value:  # noqa: SIM110 - a plain loop: no generator on the hot path
            if not item(element):
                return False
        return True

    return check


def _enum_check(options: list[Any]) -> Check:
    strings = frozenset(o for o in options if isinstance(o, str))

    def check(value: Any) -> bool:
        if type(value) is str:
            return value in strings
        return any(_safe_equal(value, o) for o in options)

    return check


def _safe_equal(a: Any, b: Any) -> bool:
    try:
        return _json_equal(a, b)
    except _Unsupported:
        return False


_SURE_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "null": (type(None),), "integer": (int,), "number": (int, float),
}


def _sure_types(node: Any) -> frozenset[type]:
    """Return the exact Python types a node surely accepts when it only constrains the type.

    Lets an object check skip a function call for most values; anything else (a subclass, a
    whole float for ``integer``, a rejection) still goes through the node's full check.
    """
    if not isinstance(node, dict) or set(node) - _ANNOTATIONS != {"type"}:
        return frozenset()
    names = [node["type"]] if isinstance(node["type"], str) else list(node["type"])
    return frozenset(t for n in names for t in _SURE_TYPES.get(n, ()))


def _object_checks(node: dict[str, Any], build: Callable[[Any], Check]) -> list[Check]:
    checks: list[Check] = []
    required = tuple(node.get("required", ()))
    if required:

        def check_required(value: Any) -> bool:
            if not isinstance(value, dict):
                return True
            for key in required:  # noqa: SIM110 - a plain loop: no generator on the hot path
                if key not in value:
                    return False
            return True

        checks.append(check_required)
    properties = {
        k: (_sure_types(s), build(s)) for k, s in node.get("properties", {}).items()
    }
    extra_schema = node.get("additionalProperties", True)
    extra: Check | None = None if extra_schema is True else build(extra_schema)
    if not properties and extra is None:
        return checks

    def check_object(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for key, item in value.items():
            entry = properties.get(key)
            if entry is not None:
                if type(item) in entry[0]:
                    continue
                if not entry[1](item):
                    return False
            elif extra is not None and not extra(item):
                return False
        return True

    checks.append(check_object)
    return checks

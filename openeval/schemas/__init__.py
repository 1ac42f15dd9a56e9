"""JSON Schemas shipped with OpenEval, and the one function that applies them.

The schema files in this folder are the published contract of each file format (test case,
trace, result, summary, suite configuration); :func:`validate` checks a parsed document against
one and raises an error that names the file, the JSON path and what was expected, e.g.
``testcase.json: expected_tool_calls[2].tool: expected a string``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import orjson

from openeval.errors import OpenEvalError

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

SchemaName = Literal[
    "trace", "testcase", "result", "summary", "result_v1", "summary_v1", "result_v0", "config"
]

_TYPE_WORDS = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "true or false",
    "object": "a JSON object",
    "array": "a list",
    "null": "null",
}


@cache
def load_schema(name: SchemaName) -> dict[str, Any]:
    """Return the parsed JSON Schema called ``name`` (``trace``, ``testcase`` ...)."""
    text = files(__package__).joinpath(f"{name}.schema.json").read_bytes()
    schema: dict[str, Any] = orjson.loads(text)
    return schema


@cache
def _fast_check(name: SchemaName) -> Callable[[Any], bool] | None:
    from openeval.schemas.fast import compile_check

    return compile_check(load_schema(name))


@cache
def _validator(name: SchemaName) -> Validator:
    from jsonschema import Draft202012Validator

    validator: Validator = Draft202012Validator(load_schema(name))
    return validator


def json_path(parts: Any) -> str:
    """Return a path like ``steps[3].tool_args`` from a sequence of keys and indices."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _describe(error: ValidationError) -> tuple[str, str]:
    """Return ``(path, what was expected)`` for one schema violation."""
    path = json_path(error.absolute_path)
    kind = error.validator
    if kind == "type":
        wanted: Any = error.validator_value
        names = [wanted] if isinstance(wanted, str) else list(wanted)
        expected = " or ".join(_TYPE_WORDS.get(n, n) for n in names)
        return path, f"expected {expected}, got {_type_word(error.instance)}"
    if kind == "required":
        missing = error.message.split("'")[1] if "'" in error.message else error.message
        return path, f"missing required key {missing!r}"
    if kind == "additionalProperties":
        schema: Any = error.schema
        instance: Any = error.instance
        allowed = sorted(schema.get("properties", {}))
        extra = sorted(set(instance) - set(allowed))
        hint = f"; expected one of: {', '.join(allowed)}" if allowed else ""
        where = json_path([*error.absolute_path, extra[0]]) if extra else path
        return where, f"unknown key {extra[0]!r}{hint}" if extra else error.message
    if kind == "enum":
        choices: Any = error.validator_value
        options = ", ".join(repr(v) for v in choices)
        return path, f"expected one of {options}, got {error.instance!r}"
    if kind in ("minimum", "maximum", "minLength"):
        return path, f"{error.instance!r} is out of range ({kind} {error.validator_value})"
    return path, error.message


def schema_error(schema: Any) -> str | None:
    """Return why ``schema`` (a user's JSON Schema) is not a valid Draft 2020-12 schema, or None."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as exc:
        where = json_path(exc.absolute_path)
        return f"{where}: {exc.message}" if where else exc.message
    except RecursionError:
        return "nested too deeply"
    return None


def schema_problems(
    value: Any, schema: Any, *, limit: int, max_subject: int | None = None,
    search: Callable[[str, str], bool] | None = None,
) -> list[str]:
    """Return where ``value`` breaks a user's JSON Schema ``schema``, as ``$.path: what`` lines.

    The project's one schema validator (jsonschema, Draft 2020-12) with its messages worded as
    :func:`validate` words them; shortest path first, then document order; at most ``limit``.
    ``schema`` must be valid (:func:`schema_error`). A value nested past the validator's reach
    is one problem, never a crash. With ``max_subject``, a ``pattern`` or ``patternProperties``
    regex searches at most that many characters (Python's ``re`` cannot be stopped once
    started): a longer string or key is a problem ("not matched"), never a match. With
    ``search``, the patterns are searched by it (``search(pattern, text)``: whether
    ``re.search`` finds a match), which bounds its time (the caller's CPU budget,
    proposals/0310-regex-cpu-budget.md). Refusing the patterns that backtrack exponentially is
    the caller's (the schema is a user's).
    """
    found: list[ValidationError] = []
    try:
        for problem in _validator_class(max_subject, search)(schema).iter_errors(value):
            found.append(problem)
            if len(found) >= limit:
                break
    except RecursionError:
        return ["$: nested too deeply to check against the schema"]
    found.sort(key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
    lines = []
    for problem in found:
        path, what = _describe(problem)
        where = "$" + (path if path.startswith("[") or not path else f".{path}")
        lines.append(f"{where}: {what}")
    return lines


def _type_word(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true or false"
    for python_type, word in ((str, "a string"), (int, "an integer"), (float, "a number"),
                              (dict, "a JSON object"), (list, "a list")):
        if isinstance(value, python_type):
            return word
    return type(value).__name__


def validate(
    document: Any,
    schema: SchemaName,
    *,
    source: str | Path | None = None,
    error: type[OpenEvalError] = OpenEvalError,
) -> None:
    """Return None when ``document`` fits ``schema``; else raise ``error`` for the first problem.

    The first problem is the one with the shortest path, then the first in document order, so
    the message is the same on every run. A fast structural check answers first; jsonschema
    runs only to word the message when it refuses (see :mod:`openeval.schemas.fast`).
    """
    fast = _fast_check(schema)
    if fast is not None and fast(document):
        return
    validator = _validator(schema)
    problems = list(validator.iter_errors(document))
    if not problems:
        return
    first = min(problems, key=lambda e: (len(e.absolute_path), [str(p) for p in e.absolute_path]))
    path, expected = _describe(first)
    raise error(expected, source=source, location=path or None)


@cache
def _validator_class(
    max_subject: int | None, search: Callable[[str, str], bool] | None = None
) -> Any:
    """Draft 2020-12, its ``pattern`` and ``patternProperties`` searching bounded strings with
    ``search`` (``re.search`` when None)."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from jsonschema.validators import extend

    if max_subject is None and search is None:
        return Draft202012Validator

    plain_pattern, plain_properties = (
        (Draft202012Validator.VALIDATORS["pattern"],
         Draft202012Validator.VALIDATORS["patternProperties"]) if search is None
        else searching_keywords(search))

    def too_long(text: str, what: str) -> ValidationError:
        return ValidationError(
            f"{what} of {len(text):,} characters, longer than the {max_subject:,} a "
            "schema pattern searches: not matched")

    def pattern(validator: Any, wanted: Any, instance: Any, schema: Any) -> Any:
        if max_subject is not None and isinstance(instance, str) and len(instance) > max_subject:
            yield too_long(instance, "a string")
            return
        yield from plain_pattern(validator, wanted, instance, schema)

    def pattern_properties(validator: Any, wanted: Any, instance: Any, schema: Any) -> Any:
        if max_subject is not None and isinstance(instance, dict):
            long_key = next((k for k in instance if len(k) > max_subject), None)
            if long_key is not None:
                yield too_long(long_key, "a key")
                return
        yield from plain_properties(validator, wanted, instance, schema)

    return extend(Draft202012Validator, {"pattern": pattern,  # type: ignore[no-untyped-call]
                                         "patternProperties": pattern_properties})


def searching_keywords(search: Callable[[str, str], bool]) -> tuple[Any, Any]:
    """Return jsonschema's ``pattern`` and ``patternProperties`` keywords, the same in every
    draft, with ``search(pattern, text)`` in place of their ``re.search``: the same errors, in
    the same order, under the caller's bound on the search's time."""
    from jsonschema.exceptions import ValidationError

    def pattern(validator: Any, wanted: Any, instance: Any, schema: Any) -> Any:
        if validator.is_type(instance, "string") and not search(wanted, instance):
            yield ValidationError(f"{instance!r} does not match {wanted!r}")

    def pattern_properties(validator: Any, wanted: Any, instance: Any, schema: Any) -> Any:
        if not validator.is_type(instance, "object"):
            return
        for each, subschema in wanted.items():
            for key, value in instance.items():
                if search(each, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=each)

    return pattern, pattern_properties

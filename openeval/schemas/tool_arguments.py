"""Validating a tool call's arguments against the JSON Schema of the tool's parameters.

The schema comes from a trace (``AgentTrace.tool_definitions``), which is input a pull request
author controls: the caller bounds its size, depth and patterns first, and refuses every
``$ref`` that does not point inside the schema (``#...``), because jsonschema's default
registry would fetch a remote one (:mod:`openeval.checks.tool_schema`). jsonschema is imported
on first use, as everywhere in :mod:`openeval.schemas`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, NamedTuple

from openeval.errors import OpenEvalError


class ArgumentError(NamedTuple):
    """One rule the arguments break."""

    path: str
    """The dotted argument path (``filter.status``); ``(arguments)`` for the object itself."""
    message: str
    rule: str
    """The schema keyword broken (``type``, ``required``, ``enum`` ...)."""


def tool_validator(schema: Any, search: Callable[[str, str], bool] | None = None) -> Any:
    """Return a validator for ``schema`` (its ``$schema`` picks the draft, 2020-12 by default);
    with ``search``, its ``pattern`` and ``patternProperties`` search with it (the caller's
    bound on a user regex's time, :func:`openeval.schemas.searching_keywords`).

    Raises OpenEvalError when ``schema`` is not a valid JSON Schema.
    """
    from jsonschema.exceptions import SchemaError
    from jsonschema.validators import Draft202012Validator, validator_for

    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError as exc:
        raise OpenEvalError(f"not a valid JSON Schema: {exc.message}") from None
    return (cls if search is None else _searching(cls, search))(schema)


@cache
def _searching(cls: Any, search: Callable[[str, str], bool]) -> Any:
    from jsonschema.validators import extend

    from openeval.schemas import searching_keywords

    pattern, pattern_properties = searching_keywords(search)
    return extend(cls, {"pattern": pattern,  # type: ignore[no-untyped-call]
                        "patternProperties": pattern_properties})


def argument_errors(validator: Any, args: Any) -> list[ArgumentError]:
    """Return every rule ``args`` break, sorted by path.

    Raises OpenEvalError when the schema cannot be applied (a ``$ref`` to a place the schema
    does not have).
    """
    try:
        errors = sorted(validator.iter_errors(args), key=lambda e: [str(p) for p in e.path])
    except OpenEvalError:
        raise  # the caller's own (a pattern's search that gave up): already worded
    except Exception as exc:  # jsonschema's reference errors have no public base class
        raise OpenEvalError(f"the tool's schema could not be applied: {exc}") from None
    return [
        ArgumentError(".".join(str(p) for p in error.absolute_path) or "(arguments)",
                      error.message, str(error.validator))
        for error in errors
    ]

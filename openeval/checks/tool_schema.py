"""Check that each tool call's arguments fit the tool's own schema, as the trace records it.

The tools an agent was offered come with JSON Schemas for their parameters (OpenAI and
Anthropic ``tools``, OTel ``gen_ai.tool.definitions``, OpenInference ``llm.tools``, MCP
``tools/list``); the adapters keep them on the trace as ``AgentTrace.tool_definitions``. This
check needs no expected values, so it also judges production traces (``openeval score``).

A trace is the pull request author's input, and so are the schemas in it: each schema is
bounded before it is used (:data:`MAX_SCHEMA_BYTES`, :data:`MAX_SCHEMA_DEPTH`), a ``pattern``
that backtracks exponentially is refused (``backtracking_risk``), and so is any ``$ref``
that does not point inside the schema, which jsonschema would otherwise fetch. A refused
schema fails the check, naming the tool and why. Every search of a schema's pattern has a CPU
budget: one that uses it up errors the check, naming the pattern
(proposals/0310-regex-cpu-budget.md). See proposals/0152-tool-schema-conformance.md.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any

import orjson

from openeval.checks import _settings, util
from openeval.checks._steps import TraceInput, read_trace, tool_calls
from openeval.errors import OpenEvalError
from openeval.matching.regex_budget import RegexGaveUp, bounded_search
from openeval.models import AgentTrace
from openeval.scores import Scores
from openeval.values import short_json

MAX_SCHEMA_BYTES = 65_536
"""Largest parameters schema used, as compact JSON; a larger one is refused."""
MAX_SCHEMA_DEPTH = 32
"""Deepest nesting of a parameters schema; a deeper one is refused."""
_NAMED_LIMIT = 5
_REGEX_KEYS = ("pattern",)
_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")
_ERRORS_SHOWN = 3


@util.declares("tool_schema_conformance")
def tool_schema_conformance(
    ctx: TraceInput, *, include_denied: bool = False, name: str = "tool_schema_conformance",
) -> Scores:
    """Check every tool call's arguments against the tool definitions the same trace records.

    Each call must name a defined tool, have a JSON object as arguments, and those arguments
    must validate against the tool's ``parameters`` schema (jsonschema; the schema's
    ``$schema`` picks the draft, 2020-12 by default). Denied calls never ran and are left out
    unless ``include_denied``. Not applicable (no verdict) when the trace records no tool
    definitions, or when a list of steps or spans is given instead of a trace.

    Args:
        ctx: A context or a trace.
        include_denied: Also check calls that were denied.
        name: Name of the score.

    Returns:
        tool_schema_conformance (BOOLEAN): every checked call fits its tool's schema; the
            comment names each call that does not (step, tool, argument path, the rule
            broken). A CATEGORICAL ``no definitions`` score (n.a.) when there is nothing to
            check against.
    """
    check = "tool_schema_conformance"
    primary = _settings.score_name(name, "tool_schema_conformance", check)
    include_denied = _settings.boolean(include_denied, False, check, "include_denied")
    trace = _trace_of(ctx)
    definitions = trace.tool_definitions if trace is not None else []
    if not definitions:
        return Scores([util.categorical_score(
            primary, "no definitions", "the trace records no tool definitions to check against")])
    schemas, refused = _schemas(definitions)
    calls = [c for c in tool_calls(read_trace(ctx, check)) if include_denied or not c.denied]
    problems: list[str] = []
    for call in calls:
        label = f"step {call.position} {call.name or '(no tool name)'}"
        if call.name in refused:
            problems.append(f"{label}: the tool's schema was refused ({refused[call.name]})")
        elif call.name not in schemas:
            problems.append(f"{label}: no tool of that name is defined "
                            f"({len(schemas) + len(refused)} defined)")
        elif call.args_problem is not None:
            problems.append(f"{label}: {call.args_problem}")
        else:
            broken = _errors(schemas[call.name], call.args)
            if broken is not None:
                problems.append(f"{label}: {broken}")
    if problems:
        comment = util.join_problems(problems, _NAMED_LIMIT)
    elif calls:
        comment = ("1 call fits its tool's schema" if len(calls) == 1
                   else f"{len(calls)} calls fit their tools' schemas")
    else:
        comment = "no tool calls to check"
    return Scores([util.boolean_score(primary, not problems, comment)])


def _trace_of(ctx: TraceInput) -> AgentTrace | None:
    from openeval.checks._context import CheckContext

    if isinstance(ctx, AgentTrace):
        return ctx
    if isinstance(ctx, CheckContext):
        return ctx.trace
    return None


def _schemas(definitions: list[dict[str, Any]]) -> tuple[dict[str, Any], dict[str, str]]:
    """Return the usable validator per tool name, and why each refused tool's schema was."""
    from openeval.schemas.tool_arguments import tool_validator

    schemas: dict[str, Any] = {}
    refused: dict[str, str] = {}
    for definition in definitions:
        if not isinstance(definition, Mapping) or not isinstance(definition.get("name"), str):
            continue
        tool = definition["name"]
        parameters = definition.get("parameters")
        if parameters is None:
            parameters = {"type": "object"}
        why = _refusal(parameters)
        if why is not None:
            refused[tool] = why
            continue
        try:
            schemas[tool] = tool_validator(parameters, _search)
        except OpenEvalError as exc:
            refused[tool] = _short(exc.message)
    return schemas, refused


def _search(pattern: str, text: str) -> bool:
    """jsonschema's ``re.search(pattern, text)``, under the budget of every user regex."""
    found = bounded_search(re.compile(pattern), text, "tool_schema_conformance: the pattern")
    return found is not None


def _refusal(schema: Any) -> str | None:
    from openeval.matching.regex_bounds import backtracking_risk

    if not isinstance(schema, (Mapping, bool)):
        return f"expected a JSON Schema object, got {short_json(schema)}"
    try:
        size = len(orjson.dumps(schema))
    except TypeError:
        return "not JSON"
    if size > MAX_SCHEMA_BYTES:
        return f"{size:,} bytes, above the {MAX_SCHEMA_BYTES:,} allowed"
    for depth, key, value in _walk(schema):
        if depth > MAX_SCHEMA_DEPTH:
            return f"nested deeper than {MAX_SCHEMA_DEPTH} levels"
        if key in _REF_KEYS and not (isinstance(value, str) and value.startswith("#")):
            return f"{key} {short_json(value)} points outside the schema (never fetched)"
        if key in _REGEX_KEYS and isinstance(value, str) and backtracking_risk(value):
            return f"pattern {short_json(value)} can backtrack without bound"
        if key == "patternProperties" and isinstance(value, Mapping):
            for pattern in value:
                if backtracking_risk(str(pattern)):
                    return f"pattern {short_json(pattern)} can backtrack without bound"
    return None


def _walk(value: Any) -> Iterator[tuple[int, str | None, Any]]:
    stack: list[tuple[int, str | None, Any]] = [(1, None, value)]
    while stack:
        depth, key, item = stack.pop()
        yield depth, key, item
        if depth > MAX_SCHEMA_DEPTH:
            return
        if isinstance(item, Mapping):
            stack.extend((depth + 1, str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((depth + 1, None, v) for v in item)


def _errors(validator: Any, args: Any) -> str | None:
    """Return ``path: message (rule)`` for the first errors, by path, or None when valid."""
    from openeval.schemas.tool_arguments import argument_errors

    try:
        errors = argument_errors(validator, args)
    except RegexGaveUp:
        raise  # an errored check, not a call that breaks its schema
    except OpenEvalError as exc:
        return _short(exc.message)
    if not errors:
        return None
    parts = [f"{e.path}: {_short(e.message)} (rule {e.rule})" for e in errors[:_ERRORS_SHOWN]]
    if len(errors) > _ERRORS_SHOWN:
        parts.append(f"+{len(errors) - _ERRORS_SHOWN} more")
    return ", ".join(parts)


def _short(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

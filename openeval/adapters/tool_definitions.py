"""The tools an agent was offered, as ``AgentTrace.tool_definitions`` holds them.

Every vendor writes a tool list of its own shape; this module reads them all into
``{"name", "description", "parameters"}`` (``parameters`` a JSON Schema object, ``{}`` when the
source gives none):

- OpenAI Chat Completions: ``{"type": "function", "function": {name, description, parameters}}``;
- OpenAI Responses, Agents SDK, MCP: ``{"type": "function", name, description, parameters}``
  (also ``inputSchema`` / ``input_schema`` / ``params_json_schema``);
- Anthropic: ``{name, description, input_schema}``; server tools ``{"type": "web_search_...",
  "name": "web_search"}``;
- a built-in tool with no name (OpenAI ``{"type": "web_search"}``) is named by its type.

An entry with neither a name nor a type is an error at its place: a tool list is what a
schema check compares calls against, so a dropped entry would let a call pass unchecked.
"""

from __future__ import annotations

from typing import Any

from openeval.adapters._toolkit import Errors, join_path

_SCHEMA_KEYS = ("parameters", "input_schema", "inputSchema", "params_json_schema", "json_schema")


def tool_definitions(tools: Any, errors: Errors, location: str) -> list[dict[str, Any]]:
    """Return the definitions of a vendor's ``tools`` list; raise TraceFormatError at a bad
    entry. None gives ``[]``."""
    if tools is None:
        return []
    entries = errors.require_list(tools, location, "a list of tools")
    return [_definition(entry, errors, join_path(location, i)) for i, entry in enumerate(entries)]


def _definition(entry: Any, errors: Errors, location: str) -> dict[str, Any]:
    entry = errors.require_dict(entry, location, "a tool")
    body = entry.get("function") if isinstance(entry.get("function"), dict) else entry
    name = body.get("name")
    if not isinstance(name, str) or not name:
        kind = entry.get("type")
        if not isinstance(kind, str) or not kind or kind == "function":
            raise errors("expected a tool with a non-empty 'name'", location)
        name = kind
    description = body.get("description")
    schema: Any = {}
    for key in _SCHEMA_KEYS:
        if isinstance(body.get(key), dict):
            schema = body[key]
            break
    return {
        "name": name,
        "description": description if isinstance(description, str) else "",
        "parameters": schema,
    }


def merge_definitions(
    known: list[dict[str, Any]], more: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Return ``known`` followed by the definitions of ``more`` whose name it lacks (each
    response of a run repeats the same tools; the first definition of a name wins)."""
    names = {definition["name"] for definition in known}
    merged = list(known)
    for definition in more:
        if definition["name"] not in names:
            names.add(definition["name"])
            merged.append(definition)
    return merged

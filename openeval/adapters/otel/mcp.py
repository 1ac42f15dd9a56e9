"""MCP ``tools/call`` spans: one tool call however many spans record it.

The MCP SDKs record each ``tools/call`` twice, a client span and a server span (both may say
``gen_ai.operation.name=execute_tool``), linked by ``jsonrpc.request.id`` within one
``mcp.session.id`` and by the trace context the client sends; an agent framework often adds
its own ``execute_tool`` span around the client's. All of them are one call.
:func:`one_span_per_call` keeps one span per call: the framework's own span when there is one
(it holds the arguments and the result), else the server span (it holds the error), else the
client span. MCP spans record no arguments: :data:`NO_ARGUMENTS` says so in the trace.
"""

from __future__ import annotations

from dataclasses import replace

from openeval.adapters.otel.otlp import Span

TOOLS_CALL = "tools/call"
NO_ARGUMENTS = (
    "MCP spans record which tool was called, not its arguments: record the agent's own "
    "execute_tool spans with content capture on (for OpenTelemetry GenAI instrumentations, "
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true), or the model spans' messages, "
    "to judge arguments"
)
"""The ``not_recorded`` note of a trace whose tool calls come from MCP spans alone."""


def is_mcp_call(span: Span) -> bool:
    """Return True for a client or server span of one MCP ``tools/call``."""
    return span.attributes.get("mcp.method.name") == TOOLS_CALL


def _tool_name(span: Span) -> str:
    name = span.attributes.get("gen_ai.tool.name")
    if isinstance(name, str) and name:
        return name
    return span.name.rsplit(" ", 1)[-1] if " " in span.name else ""


def _key(span: Span) -> tuple[str | None, str | None, str]:
    attrs = span.attributes
    session, request = attrs.get("mcp.session.id"), attrs.get("jsonrpc.request.id")
    return (str(session) if session is not None else None,
            str(request) if request is not None else None, _tool_name(span))


def _is_framework_tool(span: Span) -> bool:
    op = span.attributes.get("gen_ai.operation.name")
    return (op == "execute_tool" or span.name.startswith("execute_tool ")) and not is_mcp_call(span)


def one_span_per_call(spans: list[Span]) -> tuple[list[Span], bool]:
    """Return the spans with each MCP call's redundant spans left out, and whether a call is
    read from MCP spans alone (so its arguments are unknown)."""
    calls = [s for s in spans if is_mcp_call(s)]
    if not calls:
        return spans, False
    by_id = {s.span_id: s for s in spans if s.span_id}
    groups: dict[str, list[Span]] = {}
    by_key: dict[tuple[str | None, str | None, str], str] = {}
    for span in calls:
        # A server span under the client's span (the trace context the client sends) joins
        # its group; so do spans naming the same session, request id and tool.
        anchor, seen = span, {span.span_id}
        while (parent := by_id.get(anchor.parent_id)) is not None and is_mcp_call(parent):
            if parent.span_id in seen:  # a cycle of parents: hostile input, stop climbing
                break
            anchor = parent
            seen.add(parent.span_id)
        name = anchor.span_id or f"#{id(anchor)}"
        key = _key(span)
        if key[1] is not None:
            name = by_key.setdefault(key, name)
        groups.setdefault(name, []).append(span)
    dropped: set[int] = set()
    alone = False
    for group in groups.values():
        if any(_has_framework_ancestor(s, by_id) for s in group):
            dropped.update(id(s) for s in group)
            continue
        keep = _representative(group)
        dropped.update(id(s) for s in group if s is not keep)
        alone = True
    out: list[Span] = []
    for span in spans:
        if id(span) in dropped:
            continue
        if is_mcp_call(span) and span.attributes.get("gen_ai.operation.name") != "execute_tool":
            span = replace(span, attributes={**span.attributes,
                                             "gen_ai.operation.name": "execute_tool",
                                             "gen_ai.tool.name": _tool_name(span)})
        out.append(span)
    return out, alone


def _has_framework_ancestor(span: Span, by_id: dict[str, Span]) -> bool:
    seen: set[str] = set()
    parent = by_id.get(span.parent_id)
    while parent is not None and parent.span_id not in seen:
        if _is_framework_tool(parent):
            return True
        seen.add(parent.span_id)
        parent = by_id.get(parent.parent_id)
    return False


def _representative(group: list[Span]) -> Span:
    servers = [s for s in group if s.kind == "server"]
    return (servers or group)[0]

"""What the OpenAI and Anthropic adapters share: chat-shaped input turned into trace steps.

Both formats are lists of role messages in which a model turn asks for tool calls and a later
message carries their results. This module holds the pieces that do not depend on the vendor:
joining content parts into text, turning model turns into steps and messages, pairing results
with calls, and telling the two vendors' lists apart by content. The mapping decisions are
written down in ``proposals/0012-openai-adapter.md`` and ``proposals/0013-anthropic-adapter.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openeval.adapters._toolkit import (
    CallPairing,
    Errors,
    Turns,
    require_activity,
    task_id_from_path,
    to_plain,
)
from openeval.adapters.base import TraceSource, apply_envelope, given_value, split_envelope
from openeval.adapters.tool_args import ToolArgs
from openeval.adapters.tool_definitions import merge_definitions, tool_definitions
from openeval.jsonio import dump_json_compact, join_path
from openeval.models import AgentTrace, MessageRole, TraceStep

PAYLOAD_KEY = "messages"
"""The key holding the message list in a wrapped document (``{"messages": [...], ...}``)."""

Vendor = Literal["openai", "anthropic", "plain"]


TEXT_PART_KEYS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
"""Content part type -> the key holding its text, across both vendors' message formats."""


def content_text(
    content: Any, errors: Errors, location: str, *, placeholders: bool = False
) -> str:
    """Return the text of a message's content: a string, or a list of content parts.

    Text parts are joined with newlines. Other parts (images, files, audio) are left out, or
    shown as ``[<type>]`` when ``placeholders`` is set (for tool results, where a reader should
    see that something non-textual came back). None gives ``""``. Any other shape raises
    TraceFormatError.
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise errors("expected a string or a list of content parts", location)
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            raise errors("expected a content part object", join_path(location, index))
        kind = part.get("type")
        key = TEXT_PART_KEYS.get(kind) if isinstance(kind, str) else None
        text = part.get(key) if key else None
        if isinstance(text, str):
            texts.append(text)
        elif placeholders:
            texts.append(f"[{kind}]" if isinstance(kind, str) else dump_json_compact(part))
    return "\n".join(texts)


@dataclass
class Turn:
    """One model turn: its reasoning, its text, its tool calls and the call's telemetry."""

    provider: str | None
    reasoning: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    calls: list[tuple[TraceStep, str | None, bool]] = field(default_factory=list)
    """(step, call id, whether a later result may pair with it) for each tool call."""
    model: str | None = None
    finish_reason: str | None = None
    tokens: dict[str, int] | None = None
    latency_ms: float | None = None
    timestamp: float = 0.0
    answer: str | None = None
    """The turn's answer when it is not simply its text after no client call: set for a
    turn whose server-side tools ran inside it and whose last text block answers."""
    calls_before_text: int = 0
    """How many of :attr:`calls` were recorded before the turn's first text, for a source
    that keeps a turn's parts in order (Anthropic blocks, Responses items): the thought step
    goes there, so a turn that called first and spoke after reads in that order."""

    def say(self, text: str) -> None:
        """Append a text part recorded after the calls appended so far."""
        if text and not any(self.texts):
            self.calls_before_text = len(self.calls)
        self.texts.append(text)

    @property
    def text(self) -> str:
        """Return the turn's visible text, its parts joined by newlines."""
        texts = self.texts
        if len(texts) < 2:  # most turns: no join to make
            return texts[0] if texts else ""
        return "\n".join(t for t in texts if t)


class StepList:
    """Collects steps and the conversation in execution order; pairs results with calls.

    Pairing follows :class:`~openeval.adapters._toolkit.CallPairing`; turns, messages and the
    final output follow :class:`~openeval.adapters._toolkit.Turns`.
    """

    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self.pairing = CallPairing()
        self.turns = Turns()
        self.tool_definitions: list[dict[str, Any]] = []
        """The tools offered, where the source records them (a Response's ``tools``)."""

    def add_message(self, role: MessageRole, text: str) -> None:
        """Append a system or user message (they make no step)."""
        self.turns.say(role, text)

    def add_turn(self, turn: Turn) -> None:
        """Append a turn's steps: its reasoning, one thought with the telemetry, its calls."""
        number = self.turns.start()
        steps = self.steps
        reasoning = "\n".join(r for r in turn.reasoning if r) if turn.reasoning else ""
        if reasoning:
            steps.append(
                TraceStep(
                    step_id=0,
                    type="thought",
                    content=reasoning,
                    timestamp=turn.timestamp,
                    provider=turn.provider,
                    model=turn.model,
                    turn=number,
                )
            )
        text = turn.text
        thought = TraceStep(
            step_id=0,
            type="thought",
            content=text,
            timestamp=turn.timestamp,
            finish_reason=turn.finish_reason,
            provider=turn.provider,
            model=turn.model,
            tokens=turn.tokens,
            latency_ms=turn.latency_ms,
            turn=number,
        )
        self.turns.say("assistant", text, turn=number)
        # The parts as recorded: the calls made before the turn's first text, then its text.
        before = turn.calls_before_text
        asked = False
        for n, (step, call_id, awaits_result) in enumerate(turn.calls):
            if n == before:
                steps.append(thought)
            step.timestamp = turn.timestamp
            step.turn = number
            steps.append(step)
            if awaits_result:
                asked = True
                self.pairing.expect(step, call_id)
        if before >= len(turn.calls):
            steps.append(thought)
        if turn.answer is not None:
            self.turns.answer(turn.answer, asked_for_tools=False)
        else:
            self.turns.answer(text, asked_for_tools=asked)

    def add_result(
        self,
        *,
        call_id: str | None,
        text: str,
        error: str | None = None,
        tool_name: str | None = None,
    ) -> None:
        """Attach a tool result to its call, or append it as an unpaired ``tool_result`` step."""
        call = self.pairing.take(call_id, tool_name)
        if call is None:
            self.steps.append(
                TraceStep(
                    step_id=0,
                    type="tool_result",
                    content=text,
                    tool_name=tool_name,
                    tool_result=text,
                    error=error,
                )
            )
        else:
            call.tool_result = text
            if error is not None:
                call.error = error if call.error is None else f"{call.error}; {error}"
        self.turns.say("tool", text, name=call.tool_name if call is not None else tool_name)

    def finished(self) -> list[TraceStep]:
        """Return the steps, numbered 1..n in execution order."""
        for number, step in enumerate(self.steps, start=1):
            step.step_id = number
        return self.steps

    def trace(
        self, task_id: str, errors: Errors, metadata: dict[str, Any] | None = None
    ) -> AgentTrace:
        """Return the trace these steps and messages make.

        Raises TraceFormatError when they make nothing (no step, no text): the input held no
        message this reader understands.
        """
        trace = AgentTrace(
            task_id=task_id,
            input=self.turns.first_user_text,
            steps=self.finished(),
            final_output=self.turns.final_output,
            metadata=metadata or {},
            messages=self.turns.messages,
            signals=[],  # chat messages record no denial and no replay
            # (docs/semantics.md#no-vacuous-passes)
            tool_definitions=self.tool_definitions,
        )
        skipped = (metadata or {}).get("skipped_item_types")
        also = f" (skipped item types: {', '.join(skipped)})" if skipped else ""
        return require_activity(trace, errors, f"no model turn, tool call or message{also}")


LANGCHAIN_TYPES = frozenset({"human", "ai", "tool", "system", "chat", "function"})
"""The ``type`` of a LangChain message (``BaseMessage.model_dump()``, ``messages_to_dict``)."""


def refuse_langchain(item: dict[str, Any], errors: Errors, location: str) -> None:
    """Raise when ``item`` is a LangChain message, naming the reader that reads it.

    LangGraph's ``result["messages"]`` is a list of LangChain messages; read as a vendor's
    chat messages it would give an empty trace, which says nothing of what went wrong.
    """
    kind = item.get("type")
    if "role" not in item and isinstance(kind, str) and kind in LANGCHAIN_TYPES:
        raise errors(
            f"a LangChain message (type {kind!r}), not this format's; read LangChain "
            "messages with from_langchain_messages (or --format langchain)",
            location,
        )


def tool_call_step(
    name: str, arguments: ToolArgs, *, tool_result: str | None = None, error: str | None = None
) -> TraceStep:
    """Return a ``tool_call`` step, with the raw text and error when the arguments are broken."""
    if arguments.error is None and error is None:
        joined = None
    else:
        joined = "; ".join(e for e in (arguments.error, error) if e) or None
    return TraceStep(
        step_id=0,
        type="tool_call",
        content=arguments.raw,
        tool_name=name,
        tool_args=arguments.args,
        tool_result=tool_result,
        error=joined,
    )


Converter = Callable[[Any, str, Errors], AgentTrace]
"""``convert(payload, task_id, errors)``: reads one vendor's plain payload into a trace."""

FastConverter = Callable[[Any, str, Errors], "AgentTrace | None"]
"""A converter for the common shape of a payload, tried first: the same trace as the
:data:`Converter`, or None to leave the payload to it. It may be handed a payload that is not
plain JSON yet (SDK objects), and must return None for it."""


TOOLS_KEY = "tools"
"""The key of a wrapped document holding the tools offered (the request's ``tools``)."""


def _split_tools(document: Any) -> tuple[Any, Any]:
    """Return ``(document without its tools, tools)`` for a wrapped document that records the
    request's ``tools`` beside its messages; ``(document, None)`` otherwise."""
    if isinstance(document, dict) and PAYLOAD_KEY in document and TOOLS_KEY in document:
        rest = {key: value for key, value in document.items() if key != TOOLS_KEY}
        return rest, document[TOOLS_KEY]
    return document, None


def _with_tools(trace: AgentTrace, tools: Any, errors: Errors) -> AgentTrace:
    if tools is not None:
        given = tool_definitions(tools, errors, TOOLS_KEY)
        trace.tool_definitions = merge_definitions(given, trace.tool_definitions)
    return trace


def trace_from_file(
    source: TraceSource, convert: Converter, *, fast: FastConverter | None = None
) -> AgentTrace:
    """Return the trace in a bare or wrapped message document, read with ``fast`` when it
    reads it, else with ``convert``."""
    document, tools = _split_tools(source.document())
    payload, overrides = split_envelope(document, PAYLOAD_KEY)
    errors = Errors(source.path)
    task_id = task_id_from_path(source.path)
    read = fast(payload, task_id, errors) if fast is not None else None
    if read is None:
        read = convert(payload, task_id, errors)
    trace = _with_tools(read, tools, errors)
    return apply_envelope(trace, overrides, source.path)


def trace_from_objects(
    messages: Any,
    convert: Converter,
    *,
    task_id: str,
    given: dict[str, Any],
    fast: FastConverter | None = None,
) -> AgentTrace:
    """Return the trace of in-memory messages (dicts or SDK objects, bare or wrapped).

    ``convert(payload, task_id, errors)`` reads the plain payload; ``given`` holds the caller's
    explicit envelope values (None or empty means "not given") and wins over a wrapped one.
    ``fast``, when given, is tried first on a bare list as it came, before the copy that
    ``convert`` needs (it refuses anything that is not plain JSON already).
    """
    errors = Errors(None)
    trace = fast(messages, task_id, errors) if fast is not None and type(messages) is list \
        else None
    if trace is not None:
        overrides: dict[str, Any] = {}
    else:
        plain, tools = _split_tools(to_plain(messages, errors, PAYLOAD_KEY))
        payload, overrides = split_envelope(plain, PAYLOAD_KEY)
        trace = _with_tools(convert(payload, task_id, errors), tools, errors)
    overrides.update({key: value for key, value in given.items() if given_value(key, value)})
    # Nothing to set: the trace as read (apply_envelope would copy it unchanged).
    return apply_envelope(trace, overrides, Path("<messages>")) if overrides else trace


# --- telling the two vendors' message lists apart -------------------------------------------

OPENAI_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
ANTHROPIC_ROLES = frozenset({"system", "user", "assistant"})
OPENAI_ITEM_TYPES = frozenset({
    "function_call", "function_call_output", "custom_tool_call", "custom_tool_call_output",
    "reasoning", "mcp_call", "mcp_list_tools", "mcp_approval_request", "mcp_approval_response",
    "item_reference", "compaction",
})
"""Responses API item types besides ``message`` (``*_call`` / ``*_call_output`` also count)."""
ANTHROPIC_BLOCKS = frozenset({
    "tool_use", "tool_result", "thinking", "redacted_thinking", "server_tool_use",
})
OPENAI_PARTS = frozenset({
    "input_text", "output_text", "refusal", "image_url", "input_image", "input_file",
    "input_audio",
})


def is_responses_item_type(kind: str) -> bool:
    """True for a Responses API item type other than ``message``."""
    return kind in OPENAI_ITEM_TYPES or kind.endswith(("_call", "_call_output"))


def _is_anthropic_block(kind: Any) -> bool:
    return isinstance(kind, str) and (kind in ANTHROPIC_BLOCKS or kind.endswith("_tool_result"))


def sniff(document: Any) -> tuple[Vendor | None, str]:
    """Return which vendor's message format ``document`` is in, or None and the reason why not.

    ``"plain"`` is a list of role messages with text only, which both vendors could have
    written. Never raises; looks only at keys and block types, never at text.
    """
    payload, _ = split_envelope(_split_tools(document)[0], PAYLOAD_KEY)
    if isinstance(payload, dict):
        if payload.get("object") in ("chat.completion", "response"):
            return "openai", ""
        if (
            payload.get("type") == "message"
            and payload.get("role") == "assistant"
            and isinstance(payload.get("content"), list)
        ):
            return "anthropic", ""
        return None, "a JSON object that is no chat.completion, response or message"
    if not isinstance(payload, list):
        return None, "not a JSON list of messages" if payload is not None else "not JSON"
    if not payload:
        return None, "an empty list"
    openai_hit = anthropic_hit = False
    for index, item in enumerate(payload):
        if not isinstance(item, dict):
            return None, f"item {index} is not a JSON object"
        if item.get("object") in ("chat.completion", "response"):
            openai_hit = True
            continue
        kind, role = item.get("type"), item.get("role")
        if kind is not None and kind != "message":
            if not isinstance(kind, str) or not is_responses_item_type(kind):
                return None, f"item {index} has an unknown type {kind!r}"
            openai_hit = True
            continue
        if not isinstance(role, str) or role not in OPENAI_ROLES:
            return None, f"item {index} has no known 'role'"
        if role in ("tool", "function", "developer") or item.get("tool_calls") or item.get(
            "function_call"
        ):
            openai_hit = True
        if "stop_reason" in item:
            anthropic_hit = True
        content = item.get("content")
        if isinstance(content, list):
            for block in content:
                block_kind = block.get("type") if isinstance(block, dict) else None
                if not isinstance(block_kind, str):
                    continue
                if _is_anthropic_block(block_kind):
                    anthropic_hit = True
                elif block_kind in OPENAI_PARTS:
                    openai_hit = True
    if openai_hit and anthropic_hit:
        return None, "mixes OpenAI and Anthropic message shapes"
    if openai_hit:
        return "openai", ""
    if anthropic_hit:
        return "anthropic", ""
    return "plain", ""

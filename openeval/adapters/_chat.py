"""What the OpenAI and Anthropic adapters share: chat-shaped input turned into trace steps.

Both formats are lists of role messages in which a model turn asks for tool calls and a later
message carries their results. This module holds the pieces that do not depend on the vendor:
turning SDK objects into plain JSON values, reading tool arguments, joining content parts into
text, pairing results with calls, and telling the two vendors' lists apart by content. The
mapping decisions are written down in ``proposals/0012-openai-adapter.md`` and
``proposals/0013-anthropic-adapter.md``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openeval.adapters.base import TraceSource, apply_envelope, split_envelope
from openeval.adapters.tool_args import ToolArgs
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json_compact
from openeval.models import AgentTrace, TraceStep

PAYLOAD_KEY = "messages"
"""The key holding the message list in a wrapped document (``{"messages": [...], ...}``)."""

Vendor = Literal["openai", "anthropic", "plain"]


def to_plain(value: Any, *, source: Path | None, location: str) -> Any:
    """Return ``value`` as plain JSON values, calling ``model_dump`` on SDK objects inside it.

    Dicts, lists and scalars pass through (recursively); pydantic models (the ``openai`` and
    ``anthropic`` SDK types) are dumped without importing their SDK. Anything else raises
    TraceFormatError naming where it sits.
    """
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if isinstance(value, Mapping):
        return {
            str(key): to_plain(item, source=source, location=f"{location}.{key}")
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [
            to_plain(item, source=source, location=f"{location}[{index}]")
            for index, item in enumerate(value)
        ]
    dumped = _dump_object(value)
    if dumped is None:
        raise TraceFormatError(
            f"expected a dict, list or SDK object, got {type(value).__name__}",
            source=source,
            location=location or None,
        )
    return to_plain(dumped, source=source, location=location)


def _dump_object(value: Any) -> Any:
    """Return the dict an SDK object dumps to, or None when it has no dump method."""
    for method, kwargs in (
        ("model_dump", {"mode": "json", "by_alias": True}),
        ("model_dump", {}),
        ("to_dict", {}),
        ("dict", {}),
    ):
        dump = getattr(value, method, None)
        if not callable(dump):
            continue
        try:
            return dump(**kwargs)
        except TypeError:
            continue  # an older signature without these keywords: try the next form
    return None



TEXT_PART_KEYS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
"""Content part type -> the key holding its text, across both vendors' message formats."""


def content_text(
    content: Any, *, source: Path | None, location: str, placeholders: bool = False
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
        raise TraceFormatError(
            "expected a string or a list of content parts",
            source=source,
            location=location,
        )
    texts: list[str] = []
    for index, part in enumerate(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        if not isinstance(part, dict):
            raise TraceFormatError(
                "expected a content part object", source=source, location=f"{location}[{index}]"
            )
        kind = part.get("type")
        key = TEXT_PART_KEYS.get(kind) if isinstance(kind, str) else None
        text = part.get(key) if key else None
        if isinstance(text, str):
            texts.append(text)
        elif placeholders:
            texts.append(f"[{kind}]" if isinstance(kind, str) else dump_json_compact(part))
    return "\n".join(texts)


def require_str(
    container: dict[str, Any], key: str, *, source: Path | None, location: str
) -> str:
    """Return ``container[key]`` when it is a non-empty string; else raise TraceFormatError."""
    value = container.get(key)
    if not isinstance(value, str) or not value:
        raise TraceFormatError(
            f"expected a non-empty string at {key!r}", source=source, location=f"{location}.{key}"
        )
    return value


def optional_str(container: dict[str, Any], key: str) -> str | None:
    """Return ``container[key]`` when it is a non-empty string, else None."""
    value = container.get(key)
    return value if isinstance(value, str) and value else None


def require_dict(value: Any, *, source: Path | None, location: str, what: str) -> dict[str, Any]:
    """Return ``value`` when it is a JSON object; else raise TraceFormatError naming ``what``."""
    if not isinstance(value, dict):
        raise TraceFormatError(f"expected {what} (a JSON object)", source=source, location=location)
    return value


def require_list(value: Any, *, source: Path | None, location: str, what: str) -> list[Any]:
    """Return ``value`` when it is a JSON list; else raise TraceFormatError naming ``what``."""
    if not isinstance(value, list):
        raise TraceFormatError(f"expected {what} (a JSON list)", source=source, location=location)
    return value


def token_counts(pairs: Sequence[tuple[str, Any]]) -> dict[str, int] | None:
    """Return ``{name: count}`` for the pairs whose count is an int; None when none is."""
    counts = {
        name: value
        for name, value in pairs
        if isinstance(value, int) and not isinstance(value, bool)
    }
    return counts or None


@dataclass
class Turn:
    """One model turn: its reasoning, its text, its tool calls and the call's telemetry."""

    provider: str
    reasoning: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    calls: list[tuple[TraceStep, str | None, bool]] = field(default_factory=list)
    """(step, call id, whether a later result may pair with it) for each tool call."""
    model: str | None = None
    finish_reason: str | None = None
    tokens: dict[str, int] | None = None
    latency_ms: float | None = None
    timestamp: float = 0.0

    @property
    def text(self) -> str:
        """Return the turn's visible text, its parts joined by newlines."""
        return "\n".join(t for t in self.texts if t)


class StepList:
    """Collects steps in execution order and pairs tool results with their calls.

    A result pairs with the unanswered call that has its id; a result without an id (or whose
    id no call carries, while some calls carry none) pairs with the oldest unanswered call.
    A result that finds no call becomes a ``tool_result`` step of its own.
    """

    def __init__(self) -> None:
        self.steps: list[TraceStep] = []
        self._open: list[tuple[TraceStep, str | None]] = []
        self.final_output = ""

    def add_turn(self, turn: Turn) -> None:
        """Append a turn's steps: its reasoning, one thought with the telemetry, its calls."""
        reasoning = "\n".join(r for r in turn.reasoning if r)
        if reasoning:
            self.steps.append(
                TraceStep(
                    step_id=0,
                    type="thought",
                    content=reasoning,
                    timestamp=turn.timestamp,
                    provider=turn.provider,
                    model=turn.model,
                )
            )
        self.steps.append(
            TraceStep(
                step_id=0,
                type="thought",
                content=turn.text,
                timestamp=turn.timestamp,
                finish_reason=turn.finish_reason,
                provider=turn.provider,
                model=turn.model,
                tokens=turn.tokens,
                latency_ms=turn.latency_ms,
            )
        )
        if turn.text:
            self.final_output = turn.text
        for step, call_id, awaits_result in turn.calls:
            step.timestamp = turn.timestamp
            self.steps.append(step)
            if awaits_result:
                self._open.append((step, call_id))

    def add_result(
        self,
        *,
        call_id: str | None,
        text: str,
        error: str | None = None,
        tool_name: str | None = None,
    ) -> None:
        """Attach a tool result to its call, or append it as an unpaired ``tool_result`` step."""
        call = self._take_call(call_id, tool_name)
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
            return
        call.tool_result = text
        if error is not None:
            call.error = error if call.error is None else f"{call.error}; {error}"

    def _take_call(self, call_id: str | None, tool_name: str | None) -> TraceStep | None:
        candidates = list(enumerate(self._open))
        if call_id is not None:
            by_id = [(i, c) for i, c in candidates if c[1] == call_id]
            candidates = by_id or [(i, c) for i, c in candidates if c[1] is None]
        if tool_name is not None:
            named = [(i, c) for i, c in candidates if c[0].tool_name == tool_name]
            candidates = named or candidates
        if not candidates:
            return None
        index, (step, _) = candidates[0]
        del self._open[index]
        return step

    def finished(self) -> list[TraceStep]:
        """Return the steps, numbered 1..n in execution order."""
        for number, step in enumerate(self.steps, start=1):
            step.step_id = number
        return self.steps


def tool_call_step(
    name: str, arguments: ToolArgs, *, tool_result: str | None = None, error: str | None = None
) -> TraceStep:
    """Return a ``tool_call`` step, with the raw text and error when the arguments are broken."""
    errors = [e for e in (arguments.error, error) if e]
    return TraceStep(
        step_id=0,
        type="tool_call",
        content=arguments.raw,
        tool_name=name,
        tool_args=arguments.args,
        tool_result=tool_result,
        error="; ".join(errors) or None,
    )


Converter = Callable[[Any, str, Path | None], AgentTrace]
"""``convert(payload, task_id, source)``: reads one vendor's plain payload into a trace."""


def trace_from_file(source: TraceSource, convert: Converter) -> AgentTrace:
    """Return the trace in a bare or wrapped message document, read with ``convert``."""
    payload, overrides = split_envelope(source.document(), PAYLOAD_KEY)
    trace = convert(payload, task_id_for(source.path), source.path)
    return apply_envelope(trace, overrides, source.path)


def trace_from_objects(
    messages: Any,
    convert: Converter,
    *,
    task_id: str,
    given: dict[str, Any],
) -> AgentTrace:
    """Return the trace of in-memory messages (dicts or SDK objects, bare or wrapped).

    ``convert(payload, task_id, source)`` reads the plain payload; ``given`` holds the caller's
    explicit envelope values (None or empty means "not given") and wins over a wrapped one.
    """
    try:
        plain = to_plain(messages, source=None, location=PAYLOAD_KEY)
    except RecursionError:
        raise TraceFormatError("messages nested too deeply to read") from None
    payload, overrides = split_envelope(plain, PAYLOAD_KEY)
    trace = convert(payload, task_id, None)
    overrides.update({key: value for key, value in given.items() if value})
    return apply_envelope(trace, overrides, Path("<messages>"))


def task_id_for(path: Path) -> str:
    """Return the default task id of a trace file: its name without any extension."""
    return path.name.split(".", 1)[0] or path.stem


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
    payload, _ = split_envelope(document, PAYLOAD_KEY)
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

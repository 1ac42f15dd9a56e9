"""Anthropic traces: Messages API conversations and whole ``Message`` responses.

Reads, as plain JSON or as the ``anthropic`` SDK's objects (dumped without importing the SDK), a
list of ``{"role": ..., "content": ...}`` messages whose content is a string or content blocks:
``text``, ``thinking``, ``tool_use`` (and server-side ``server_tool_use`` with its
``*_tool_result``), and ``tool_result`` blocks paired to their call by ``tool_use_id``
(``is_error`` fills the step's ``error``). A whole ``Message`` response, alone or inside the list,
also gives the turn's model, ``stop_reason`` and usage.

Each assistant message becomes a ``thought`` step (its text, with provider, model, stop reason
and tokens) and one ``tool_call`` step per ``tool_use`` block, in the order of the blocks (the
thought where the first text block is), all carrying the turn's number; thinking text, when
present, is a ``thought`` step before them. User and system messages
make no step. Every message is kept in ``messages``; the first user text is the trace's
``input``, the last turn's text its ``final_output``. See ``proposals/0013-anthropic-adapter.md``.
"""

from __future__ import annotations

from typing import Any

from openeval.adapters._chat import (
    ANTHROPIC_ROLES,
    PAYLOAD_KEY,
    StepList,
    Turn,
    content_text,
    refuse_langchain,
    sniff,
    tool_call_step,
    trace_from_file,
    trace_from_objects,
)
from openeval.adapters._toolkit import Errors, optional_str, token_counts
from openeval.adapters.base import TraceSource
from openeval.adapters.tool_args import parse_tool_args
from openeval.jsonio import dump_json_compact
from openeval.models import AgentTrace

PROVIDER = "anthropic"
DEFAULT_TASK_ID = "anthropic_task"
"""Task id of a trace built from Python objects when none is given."""

CALL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Content blocks in which the model calls a tool."""


def from_anthropic_messages(
    messages: Any,
    task_id: str = DEFAULT_TASK_ID,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of an Anthropic Messages conversation.

    ``messages`` is a list of role messages, or a ``Message`` response (dicts or ``anthropic``
    SDK objects, mixed freely: a ``Message`` may stand in the list for the assistant turn it
    answered), or either wrapped as ``{"messages": ..., "task_id": ..., "actual_state": ...}``.
    ``final_output`` and ``input`` replace what the messages say when given (an empty
    ``final_output`` keeps the last turn's text). Raises TraceFormatError naming the JSON path
    of anything malformed.
    """
    given = {
        "final_output": final_output, "input": input, "actual_state": actual_state,
        "metadata": metadata, "initial_state": initial_state,
    }
    return trace_from_objects(messages, _convert, task_id=task_id, given=given)


class AnthropicAdapter:
    """Reads Anthropic Messages API conversations (content blocks) and ``Message`` JSON."""

    name = "anthropic"
    description = (
        "Anthropic Messages list with tool_use/tool_result/thinking blocks, or a Message "
        '(bare or wrapped as {"messages": ...})'
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for a document holding Anthropic content blocks or a Message, else why not.

        A list of text-only messages is left to the ``openai`` adapter (force this one with
        ``--format anthropic``); this adapter reads it all the same.
        """
        document = source.document_or_none()
        if document is None:
            return "not a JSON document"
        vendor, reason = sniff(document)
        if vendor == "openai":
            return "holds OpenAI shapes (tool_calls, role 'tool', Responses items)"
        if vendor == "plain":
            return "no Anthropic content block (tool_use, tool_result, thinking)"
        return reason if vendor is None else None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the JSON path if broken."""
        return trace_from_file(source, _convert)


ADAPTER = AnthropicAdapter()


def _convert(payload: Any, task_id: str, errors: Errors) -> AgentTrace:
    reader = _Reader(errors)
    if isinstance(payload, dict) and payload.get("type") == "message":
        reader.read_message(payload, "")
    elif isinstance(payload, list):
        for index, message in enumerate(payload):
            location = f"{PAYLOAD_KEY}[{index}]"
            message = errors.require_dict(message, location, "a message")
            reader.read_message(message, location)
    else:
        raise errors('expected a list of messages or a Message ({"type": "message", ...})')
    return reader.steps.trace(task_id, errors)


class _Reader:
    def __init__(self, errors: Errors) -> None:
        self.errors = errors
        self.steps = StepList()

    def read_message(self, message: dict[str, Any], location: str) -> None:
        """Read one message: an assistant turn, or user content (input text, tool results)."""
        prefix = f"{location}." if location else ""
        refuse_langchain(message, self.errors, location)
        role = message.get("role")
        if not isinstance(role, str) or role not in ANTHROPIC_ROLES:
            raise self.errors(
                f"unknown role {role!r}; expected one of: {', '.join(sorted(ANTHROPIC_ROLES))}",
                f"{prefix}role",
            )
        content_at = f"{prefix}content"
        content = message.get("content")
        if content is None or isinstance(content, str):
            blocks: list[Any] = [{"type": "text", "text": content or ""}]
        elif isinstance(content, list):
            blocks = content
        else:
            raise self.errors("expected a string or a list of content blocks", content_at)
        if role == "assistant":
            self._read_turn(message, blocks, content_at)
        elif role == "user":
            self._read_user(blocks, content_at)
        else:
            # A system message is configuration, not a step (the API takes it outside the
            # list); the conversation keeps it.
            self.steps.add_message("system", content_text(blocks, self.errors, content_at))

    def _read_turn(self, message: dict[str, Any], blocks: list[Any], location: str) -> None:
        turn = Turn(
            provider=PROVIDER,
            model=optional_str(message, "model"),
            finish_reason=optional_str(message, "stop_reason"),
            tokens=_tokens(message.get("usage")),
        )
        # Server tools (web search, code execution) answer inside the same assistant message.
        inline_results: list[tuple[str | None, str, str | None]] = []
        client_calls = False
        last_text: str | None = None
        for index, block in enumerate(blocks):
            block_at = f"{location}[{index}]"
            block = self.errors.require_dict(block, block_at, "a block")
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str):
                    turn.say(text)
                    last_text = text
            elif kind == "thinking":
                thinking = block.get("thinking")
                if isinstance(thinking, str):
                    turn.reasoning.append(thinking)
            elif isinstance(kind, str) and kind in CALL_BLOCKS:
                name = self.errors.require_str(block, "name", block_at)
                step = tool_call_step(name, parse_tool_args(block.get("input")))
                turn.calls.append((step, optional_str(block, "id"), True))
                client_calls = client_calls or kind == "tool_use"
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                inline_results.append(self._server_result(block, block_at))
            # redacted_thinking is opaque by design; images and documents carry no step.
        if inline_results and not client_calls:
            # Server tools ran inside this message and nothing waits for the client: the
            # message ends the run, and its last text block, written after the tools' results,
            # is the answer (the earlier blocks narrate the search).
            turn.answer = last_text or ""
        self.steps.add_turn(turn)
        for call_id, text, error in inline_results:
            self.steps.add_result(call_id=call_id, text=text, error=error)

    def _read_user(self, blocks: list[Any], location: str) -> None:
        texts: list[str] = []
        for index, block in enumerate(blocks):
            block_at = f"{location}[{index}]"
            block = self.errors.require_dict(block, block_at, "a block")
            kind = block.get("type")
            if kind == "text":
                text = block.get("text")
                if isinstance(text, str):
                    texts.append(text)
            elif kind == "tool_result":
                text = content_text(
                    block.get("content"), self.errors, f"{block_at}.content", placeholders=True
                )
                is_error = block.get("is_error") is True
                self.steps.add_result(
                    call_id=optional_str(block, "tool_use_id"),
                    text=text,
                    error=(text or "the tool reported an error") if is_error else None,
                )
        text = "\n".join(t for t in texts if t)
        if text:
            self.steps.add_message("user", text)

    def _server_result(
        self, block: dict[str, Any], location: str
    ) -> tuple[str | None, str, str | None]:
        """Return (call id, result text, error) of a server tool's result block."""
        content = block.get("content")
        error: str | None = None
        if isinstance(content, dict):
            kind = content.get("type")
            if isinstance(kind, str) and kind.endswith("_error"):
                code = content.get("error_code")
                error = str(code) if code is not None else kind
        if block.get("is_error") is True and error is None:
            error = "the tool reported an error"
        if isinstance(content, str):
            text = content
        elif isinstance(content, list) and all(
            isinstance(part, dict) and part.get("type") == "text" for part in content
        ):
            text = content_text(content, self.errors, f"{location}.content")
        else:
            text = dump_json_compact(content)
        return optional_str(block, "tool_use_id"), text, error


def _tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    details = usage.get("output_tokens_details")
    details = details if isinstance(details, dict) else {}
    return token_counts([
        ("input", usage.get("input_tokens")),
        ("output", usage.get("output_tokens")),
        ("cache_read", usage.get("cache_read_input_tokens")),
        ("cache_write", usage.get("cache_creation_input_tokens")),
        ("reasoning", details.get("thinking_tokens")),
    ])

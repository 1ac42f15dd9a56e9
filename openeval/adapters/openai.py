"""OpenAI traces: Chat Completions message lists, ``ChatCompletion`` and Responses API items.

Reads, as plain JSON or as the ``openai`` SDK's objects (dumped without importing the SDK):

- a Chat Completions message list (``tool_calls`` with JSON-text arguments, legacy
  ``function_call``, ``role: "tool"`` results paired by ``tool_call_id``);
- a whole ``ChatCompletion`` response, alone or inside the list;
- Responses API items (``message``, ``reasoning``, ``function_call`` / ``function_call_output``
  paired by ``call_id``, built-in ``*_call`` items), and a whole ``Response`` with its ``output``.

Each model turn becomes a ``thought`` step (its text, with provider, model, finish reason and
tokens) followed by one ``tool_call`` step per call (for Responses items, in recorded order:
the thought where the first message is), all carrying the turn's number; reasoning text, when
present, is a ``thought`` step before them. User, system and developer
messages make no step. Every message is kept in ``messages``; the first user text is the
trace's ``input``, the last turn's text its ``final_output``. See
``proposals/0012-openai-adapter.md`` for every mapping rule.
"""

from __future__ import annotations

import math
from typing import Any, TypeGuard

from openeval.adapters._chat import (
    OPENAI_ROLES,
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
from openeval.adapters._toolkit import SCALAR_TYPES, Errors, optional_str, token_counts
from openeval.adapters.base import TraceSource
from openeval.adapters.tool_args import ToolArgs, decoded_object, parse_tool_args
from openeval.adapters.tool_definitions import merge_definitions, tool_definitions
from openeval.models import AgentTrace, TraceStep

PROVIDER = "openai"
DEFAULT_TASK_ID = "openai_task"
"""Task id of a trace built from Python objects when none is given (as in openeval-core 0.2.1)."""


def from_openai_messages(
    messages: Any,
    task_id: str = DEFAULT_TASK_ID,
    final_output: str = "",
    *,
    input: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of an OpenAI conversation.

    ``messages`` is a Chat Completions message list, Responses API items, a ``ChatCompletion``
    or ``Response`` (dicts or ``openai`` SDK objects, mixed freely), or any of them wrapped as
    ``{"messages": ..., "task_id": ..., "actual_state": ...}``. ``final_output`` and ``input``
    replace what the messages say when given (an empty ``final_output`` keeps the last
    turn's text). Raises TraceFormatError naming the JSON path of anything malformed.
    """
    given = {
        "final_output": final_output, "input": input, "actual_state": actual_state,
        "metadata": metadata, "initial_state": initial_state,
    }
    return trace_from_objects(messages, _convert, task_id=task_id, given=given, fast=_convert_plain)


class OpenAIAdapter:
    """Reads OpenAI Chat Completions messages, ``ChatCompletion`` JSON and Responses items."""

    name = "openai"
    description = (
        "OpenAI Chat Completions message list, ChatCompletion, or Responses API items/Response "
        '(bare or wrapped as {"messages": ...})'
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for an OpenAI-shaped document (or a text-only message list), else why not."""
        document = source.document_or_none()
        if document is None:
            return "not a JSON document"
        vendor, reason = sniff(document)
        if vendor == "anthropic":
            return "holds Anthropic content blocks (tool_use, tool_result, thinking)"
        return reason if vendor is None else None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the JSON path if broken."""
        return trace_from_file(source, _convert, fast=_convert_plain)


ADAPTER = OpenAIAdapter()


def _convert(payload: Any, task_id: str, errors: Errors) -> AgentTrace:
    reader = _Reader(errors)
    reader.read(payload)
    metadata: dict[str, Any] = {}
    if reader.skipped:
        metadata["skipped_item_types"] = sorted(reader.skipped)
    return reader.steps.trace(task_id, errors, metadata)


_PLAIN_KEYS = {
    "assistant": frozenset({"role", "content", "name", "tool_calls", "refusal"}),
    "tool": frozenset({"role", "content", "name", "tool_call_id"}),
    "user": frozenset({"role", "content", "name"}),
    "system": frozenset({"role", "content", "name"}),
    "developer": frozenset({"role", "content", "name"}),
}
"""The keys the one-pass reader reads, by role: a message with any other key is left to the
general reader."""
_PLAIN_CALL_KEYS = frozenset({"id", "type", "function"})
_PLAIN_FUNCTION_KEYS = frozenset({"name", "arguments"})


def _convert_plain(payload: Any, task_id: str, errors: Errors) -> AgentTrace | None:
    """:func:`_convert` for the common case, or None to leave the payload to it.

    The common case is a Chat Completions list of plain dicts: text content, function calls
    with JSON-text arguments, tool results. Read as the general reader reads it (the same
    StepList and Turn), without copying the payload first and without a JSON path per value:
    anything outside that shape, every malformed value included, returns None, so the general
    reader decides and raises its own located error (proposals/0275-one-pass-chat-reader.md).
    Every container the trace gets is built here, so it shares nothing mutable with the
    payload, as the copy guaranteed.
    """
    if type(payload) is not list:
        return None
    steps = StepList()
    for message in payload:
        if type(message) is not dict:
            return None
        role = message.get("role")
        keys = _PLAIN_KEYS.get(role) if type(role) is str else None
        if keys is None or not message.keys() <= keys:
            return None  # a function result, a Responses item, a role the reader refuses ...
        content = message.get("content")
        if type(content) is not str:
            if content is not None:
                return None
            content = ""
        if "name" in message and type(message["name"]) not in SCALAR_TYPES:
            return None
        if role == "tool":
            call_id = message.get("tool_call_id")
            if type(call_id) not in SCALAR_TYPES:
                return None
            steps.add_result(call_id=call_id if type(call_id) is str and call_id else None,
                             text=content)
        elif role == "assistant":
            turn = _plain_turn(message, content)
            if turn is None:
                return None
            steps.add_turn(turn)
        else:
            steps.add_message("user" if role == "user" else "system", content)
    return steps.trace(task_id, errors, {})


def _plain_turn(message: dict[str, Any], content: str) -> Turn | None:
    """Return an assistant message as :meth:`_Reader._read_assistant` reads it, or None."""
    refusal = message.get("refusal")
    if type(refusal) not in SCALAR_TYPES:
        return None
    texts = [content] if content else []
    if type(refusal) is str and refusal:
        texts.append(refusal)
    turn = Turn(PROVIDER, [], texts)
    tool_calls = message.get("tool_calls")
    if tool_calls is None:
        return turn
    if type(tool_calls) is not list:
        return None
    for call in tool_calls:
        if type(call) is not dict or not call.keys() <= _PLAIN_CALL_KEYS:
            return None
        kind = call.get("type")
        call_id = call.get("id")
        function = call.get("function")
        if (kind is not None and kind != "function") or type(call_id) not in SCALAR_TYPES \
                or type(function) is not dict or not function.keys() <= _PLAIN_FUNCTION_KEYS:
            return None
        name = function.get("name")
        arguments = function.get("arguments")
        if type(name) is not str or not name:
            return None
        if type(arguments) is str:
            decoded = decoded_object(arguments)
            step = TraceStep(step_id=0, type="tool_call", tool_name=name, tool_args=decoded) \
                if decoded is not None else tool_call_step(name, parse_tool_args(arguments))
        elif arguments is None:
            step = tool_call_step(name, parse_tool_args(None))
        else:
            return None
        turn.calls.append((step, call_id if type(call_id) is str and call_id else None, True))
    return turn


class _Reader:
    """One pass over the items, in order; Responses items of one model turn gather in a Turn."""

    def __init__(self, errors: Errors) -> None:
        self.errors = errors
        self.steps = StepList()
        self.turn: Turn | None = None
        self.skipped: set[str] = set()

    def read(self, payload: Any) -> None:
        if isinstance(payload, dict):
            self._read_object(payload, "")
        elif isinstance(payload, list):
            for index, item in enumerate(payload):
                location = f"{PAYLOAD_KEY}[{index}]"
                item = self.errors.require_dict(item, location, "a message")
                if item.get("object") in ("chat.completion", "response"):
                    self._read_object(item, location + ".")
                else:
                    self._read_item(item, location)
        else:
            raise self.errors(
                "expected a list of messages or items, a chat.completion or a response"
            )
        self._close_turn()

    # --- whole responses ---------------------------------------------------------------------

    def _read_object(self, document: dict[str, Any], prefix: str) -> None:
        kind = document.get("object")
        if kind == "chat.completion":
            self._read_completion(document, prefix)
        elif kind == "response":
            self._read_response(document, prefix)
        else:
            raise self.errors(
                "expected a list of messages, or an object with 'object' \"chat.completion\" "
                'or "response"',
                f"{prefix}object" if prefix else None,
            )

    def _read_completion(self, document: dict[str, Any], prefix: str) -> None:
        location = f"{prefix}choices"
        choices = self.errors.require_list(document.get("choices"), location, "choices")
        if not choices:
            raise self.errors("expected at least one choice", location)
        if len(choices) > 1:
            # n > 1 asks for alternative answers, and nothing in the response says which one
            # the agent went on with: reading one would drop the others' tool calls unseen.
            raise self.errors(
                f"{len(choices)} choices (a request with n={len(choices)}): a trace holds the "
                "one answer the agent went on with; keep that choice alone, or write each "
                "choice as a trace of its own",
                location,
            )
        choice = self.errors.require_dict(choices[0], f"{location}[0]", "a choice")
        message_at = f"{location}[0].message"
        message = self.errors.require_dict(choice.get("message"), message_at, "a message")
        self._close_turn()
        turn = self._new_turn(document, created_key="created")
        turn.finish_reason = optional_str(choice, "finish_reason")
        turn.tokens = _chat_tokens(document.get("usage"))
        self._read_assistant(message, message_at, turn)

    def _read_response(self, document: dict[str, Any], prefix: str) -> None:
        location = f"{prefix}output"
        output = self.errors.require_list(document.get("output"), location, "output items")
        self._close_turn()
        turn = self.turn = self._new_turn(document, created_key="created_at")
        self.steps.tool_definitions = merge_definitions(
            self.steps.tool_definitions,
            tool_definitions(document.get("tools"), self.errors, f"{prefix}tools"),
        )
        turn.tokens = _responses_tokens(document.get("usage"))
        started = _seconds(document.get("created_at"))
        ended = _seconds(document.get("completed_at"))
        if started and ended >= started:
            turn.latency_ms = round((ended - started) * 1000.0, 3)
        for index, item in enumerate(output):
            item_at = f"{location}[{index}]"
            item = self.errors.require_dict(item, item_at, "an output item")
            self._read_item(item, item_at)
        turn.finish_reason = _response_finish_reason(document, turn)
        self._close_turn()

    def _new_turn(self, document: dict[str, Any], *, created_key: str) -> Turn:
        created = document.get(created_key)
        return Turn(
            provider=PROVIDER,
            model=optional_str(document, "model"),
            timestamp=_seconds(created),
        )

    # --- single items ------------------------------------------------------------------------

    def _read_item(self, item: dict[str, Any], location: str) -> None:
        kind = item.get("type")
        if kind is None or kind == "message":
            self._read_message(item, location, responses_item=kind == "message")
            return
        if not isinstance(kind, str):
            raise self.errors("expected a string item type", f"{location}.type")
        refuse_langchain(item, self.errors, location)
        handler = _ITEM_HANDLERS.get(kind)
        if handler is not None:
            handler(self, item, location)
        elif kind.endswith("_call_output"):
            self._read_call_output(item, location)
        elif kind.endswith("_call"):
            self._read_builtin_call(item, location)
        else:
            # New item kinds appear with new API features; they carry no tool call or text.
            self.skipped.add(kind)

    def _read_message(self, item: dict[str, Any], location: str, *, responses_item: bool) -> None:
        role = item.get("role")
        if not isinstance(role, str) or role not in OPENAI_ROLES:
            raise self.errors(
                f"unknown role {role!r}; expected one of: {', '.join(sorted(OPENAI_ROLES))}",
                f"{location}.role",
            )
        if role == "assistant":
            if responses_item:
                # A Responses output message is one item of a turn that may also hold calls.
                turn = self._open_turn()
                turn.say(self._text(item.get("content"), f"{location}.content"))
            else:
                self._close_turn()
                self._read_assistant(item, location, Turn(provider=PROVIDER))
            return
        self._close_turn()
        if role in ("user", "system", "developer"):
            # System and developer messages configure the agent: kept in the conversation,
            # never a step of its run.
            text = self._text(item.get("content"), f"{location}.content")
            self.steps.add_message("user" if role == "user" else "system", text)
        elif role == "tool":
            self.steps.add_result(
                call_id=optional_str(item, "tool_call_id"),
                text=self._text(item.get("content"), f"{location}.content", placeholders=True),
            )
        elif role == "function":
            self.steps.add_result(
                call_id=None,
                text=self._text(item.get("content"), f"{location}.content", placeholders=True),
                tool_name=optional_str(item, "name"),
            )

    def _read_assistant(self, message: dict[str, Any], location: str, turn: Turn) -> None:
        """Read a Chat Completions assistant message as one whole turn."""
        reasoning = message.get("reasoning_content")  # OpenAI-compatible reasoning servers
        if isinstance(reasoning, str):
            turn.reasoning.append(reasoning)
        text = self._text(message.get("content"), f"{location}.content")
        refusal = optional_str(message, "refusal")
        turn.texts.extend(t for t in (text, refusal) if t)
        tool_calls = message.get("tool_calls")
        if tool_calls is not None:
            calls_at = f"{location}.tool_calls"
            calls = self.errors.require_list(tool_calls, calls_at, "calls")
            for index, call in enumerate(calls):
                turn.calls.append(self._chat_tool_call(call, f"{calls_at}[{index}]"))
        function_call = message.get("function_call")
        if function_call is not None:
            call_at = f"{location}.function_call"
            call = self.errors.require_dict(function_call, call_at, "a call")
            name = self.errors.require_str(call, "name", call_at)
            turn.calls.append(
                (tool_call_step(name, parse_tool_args(call.get("arguments"))), None, True)
            )
        self.turn = turn
        self._close_turn()

    def _chat_tool_call(self, call: Any, location: str) -> tuple[TraceStep, str | None, bool]:
        call = self.errors.require_dict(call, location, "a tool call")
        call_id = optional_str(call, "id")
        if call.get("type") == "custom":
            custom_at = f"{location}.custom"
            custom = self.errors.require_dict(call.get("custom"), custom_at, "a custom call")
            name = self.errors.require_str(custom, "name", custom_at)
            return tool_call_step(name, _free_text(custom.get("input"))), call_id, True
        function_at = f"{location}.function"
        function = self.errors.require_dict(call.get("function"), function_at, "a function")
        name = self.errors.require_str(function, "name", function_at)
        return tool_call_step(name, parse_tool_args(function.get("arguments"))), call_id, True

    def _read_function_call(self, item: dict[str, Any], location: str) -> None:
        name = self.errors.require_str(item, "name", location)
        step = tool_call_step(name, parse_tool_args(item.get("arguments")))
        self._open_turn().calls.append((step, optional_str(item, "call_id"), True))

    def _read_custom_call(self, item: dict[str, Any], location: str) -> None:
        name = self.errors.require_str(item, "name", location)
        step = tool_call_step(name, _free_text(item.get("input")))
        self._open_turn().calls.append((step, optional_str(item, "call_id"), True))

    def _read_mcp_call(self, item: dict[str, Any], location: str) -> None:
        # An MCP call runs on OpenAI's side: its output (or error) arrives in the same item.
        name = self.errors.require_str(item, "name", location)
        output = item.get("output")
        step = tool_call_step(
            name,
            parse_tool_args(item.get("arguments")),
            tool_result=output if isinstance(output, str) else None,
            error=optional_str(item, "error"),
        )
        self._open_turn().calls.append((step, optional_str(item, "id"), False))

    def _read_builtin_call(self, item: dict[str, Any], location: str) -> None:
        """Read a built-in tool call (``web_search_call``, ``computer_call`` ...)."""
        kind = str(item["type"])
        action = item.get("action")
        # The SDK dumps unset action fields as null; they are not arguments the model chose.
        arguments = ToolArgs(
            {k: v for k, v in action.items() if v is not None} if isinstance(action, dict) else {}
        )
        status = optional_str(item, "status")
        error = f"status {status}" if status in ("failed", "incomplete") else None
        step = tool_call_step(kind.removesuffix("_call"), arguments, error=error)
        call_id = optional_str(item, "call_id")
        # Only calls with a call_id get a later *_call_output; the others ran server-side.
        self._open_turn().calls.append((step, call_id, call_id is not None))

    def _read_call_output(self, item: dict[str, Any], location: str) -> None:
        self._close_turn()
        self.steps.add_result(
            call_id=optional_str(item, "call_id"),
            text=self._text(item.get("output"), f"{location}.output", placeholders=True),
        )

    def _read_reasoning(self, item: dict[str, Any], location: str) -> None:
        turn = self._open_turn()
        for key in ("summary", "content"):
            parts = item.get(key)
            if parts is None:
                continue
            parts = self.errors.require_list(parts, f"{location}.{key}", "reasoning parts")
            for index, part in enumerate(parts):
                part = self.errors.require_dict(part, f"{location}.{key}[{index}]", "a part")
                text = part.get("text")
                if isinstance(text, str):
                    turn.reasoning.append(text)

    # --- turns -------------------------------------------------------------------------------

    def _open_turn(self) -> Turn:
        if self.turn is None:
            self.turn = Turn(provider=PROVIDER)
        return self.turn

    def _close_turn(self) -> None:
        if self.turn is not None:
            self.steps.add_turn(self.turn)
            self.turn = None

    def _text(self, content: Any, location: str, *, placeholders: bool = False) -> str:
        return content_text(content, self.errors, location, placeholders=placeholders)


_ITEM_HANDLERS = {
    "function_call": _Reader._read_function_call,
    "custom_tool_call": _Reader._read_custom_call,
    "mcp_call": _Reader._read_mcp_call,
    "reasoning": _Reader._read_reasoning,
    "function_call_output": _Reader._read_call_output,
    "custom_tool_call_output": _Reader._read_call_output,
}
"""Responses item type -> how it is read; other ``*_call`` / ``*_call_output`` are generic."""


def _free_text(value: Any) -> ToolArgs:
    """Return the input of a custom tool: free text by design, so not an argument error."""
    return ToolArgs(None, value if isinstance(value, str) else "")


def _is_number(value: Any) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _seconds(value: Any) -> float:
    """Return an epoch time as float seconds; 0.0 when it is missing or not a finite number."""
    if not _is_number(value):
        return 0.0
    try:
        seconds = float(value)
    except OverflowError:
        return 0.0
    return seconds if math.isfinite(seconds) else 0.0


def _chat_tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    prompt = usage.get("prompt_tokens_details")
    completion = usage.get("completion_tokens_details")
    prompt = prompt if isinstance(prompt, dict) else {}
    completion = completion if isinstance(completion, dict) else {}
    return token_counts([
        ("input", usage.get("prompt_tokens")),
        ("output", usage.get("completion_tokens")),
        ("cache_read", prompt.get("cached_tokens")),
        ("cache_write", prompt.get("cache_write_tokens")),
        ("reasoning", completion.get("reasoning_tokens")),
    ])


def _responses_tokens(usage: Any) -> dict[str, int] | None:
    if not isinstance(usage, dict):
        return None
    inputs = usage.get("input_tokens_details")
    outputs = usage.get("output_tokens_details")
    inputs = inputs if isinstance(inputs, dict) else {}
    outputs = outputs if isinstance(outputs, dict) else {}
    return token_counts([
        ("input", usage.get("input_tokens")),
        ("output", usage.get("output_tokens")),
        ("cache_read", inputs.get("cached_tokens")),
        ("cache_write", inputs.get("cache_write_tokens")),
        ("reasoning", outputs.get("reasoning_tokens")),
    ])


def _response_finish_reason(document: dict[str, Any], turn: Turn) -> str | None:
    """Return a Chat-Completions-style finish reason for a whole Response.

    The Responses API has a status, not a finish reason: ``completed`` maps to ``tool_calls``
    when the turn left a tool call for the client to run and to ``stop`` otherwise; an
    incomplete response maps to its reason.
    """
    status = document.get("status")
    if status == "incomplete":
        details = document.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, dict) else None
        return reason if isinstance(reason, str) else "incomplete"
    if status in ("failed", "cancelled", "in_progress", "queued"):
        return str(status)
    # Built-in tools (web search ...) ran inside the response; only client calls end the turn.
    return "tool_calls" if any(awaits for _, _, awaits in turn.calls) else "stop"

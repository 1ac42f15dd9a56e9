"""What every adapter needs and no adapter should write again.

- :class:`Errors`: TraceFormatErrors at a JSON path (``messages[3].tool_calls[0].function``),
  with the type checks that raise them;
- :class:`CallPairing`: tool results paired with their calls, by id, else by order;
- :func:`to_plain`: SDK objects (pydantic ``model_dump``, ``dict()``) turned into JSON values;
- :func:`token_count` / :func:`token_counts`: token usage, refused when it is not a count;
- :func:`task_id_from_path`: the one rule for a trace file's default task id;
- :func:`only_trace`: the one trace of a file that may hold several (``load`` over ``load_many``);
- :func:`conversation`: the messages list, with the rules every adapter follows for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openeval.errors import TraceFormatError
from openeval.jsonio import MAX_JSON_DEPTH, depth_message, join_path
from openeval.models import AgentTrace, Message, MessageRole, TraceStep

__all__ = [
    "SCALAR_TYPES",
    "TRACE_SUFFIXES",
    "CallPairing",
    "Errors",
    "Turns",
    "dump_object",
    "join_path",
    "optional_str",
    "require_activity",
    "task_id_from_path",
    "to_plain",
    "token_count",
    "token_counts",
]


# --- errors at a JSON path ----------------------------------------------------------------------


@dataclass(frozen=True)
class Errors:
    """Builds the TraceFormatErrors of one source (a file, or None for Python objects)."""

    source: Path | str | None

    def __call__(self, message: str, location: str | None = None) -> TraceFormatError:
        """Return an error ``message`` at ``location`` (a JSON path, ``line 3``, or None)."""
        return TraceFormatError(message, source=self.source, location=location or None)

    def require_dict(self, value: Any, location: str, what: str) -> dict[str, Any]:
        """Return ``value`` when it is a JSON object; else raise naming ``what``."""
        if not isinstance(value, dict):
            raise self(f"expected {what} (a JSON object)", location)
        return value

    def require_list(self, value: Any, location: str, what: str) -> list[Any]:
        """Return ``value`` when it is a JSON list; else raise naming ``what``."""
        if not isinstance(value, list):
            raise self(f"expected {what} (a JSON list)", location)
        return value

    def require_str(self, container: dict[str, Any], key: str, location: str) -> str:
        """Return ``container[key]`` when it is a non-empty string; else raise at that key."""
        value = container.get(key)
        if not isinstance(value, str) or not value:
            raise self(f"expected a non-empty string at {key!r}", join_path(location, key))
        return value


def optional_str(container: Mapping[str, Any], key: str) -> str | None:
    """Return ``container[key]`` when it is a non-empty string, else None."""
    value = container.get(key)
    return value if isinstance(value, str) and value else None


def only_trace(
    found: Iterable[AgentTrace | TraceFormatError],
    path: str | Path | None,
    *,
    several: str,
    empty: str,
    empty_location: str | None = None,
) -> AgentTrace:
    """Return the one trace ``found`` holds (an adapter's ``load_many``), raising its error.

    ``several`` is the message for more than one trace, with ``{count}`` for how many; ``empty``
    (at ``empty_location``) the message for none.
    """
    traces = list(found)
    if len(traces) > 1:
        raise TraceFormatError(several.format(count=len(traces)), source=path)
    if not traces:
        raise TraceFormatError(empty, source=path, location=empty_location)
    if isinstance(traces[0], TraceFormatError):
        raise traces[0]
    return traces[0]


# --- pairing results with calls -----------------------------------------------------------------


@dataclass
class _Open:
    step: TraceStep
    call_id: str | None


@dataclass
class CallPairing:
    """Tool calls waiting for their results, and the one rule for pairing a result with one.

    A result pairs with the waiting call that carries its id. A result without an id, or with
    an id no waiting call carries, pairs with the oldest waiting call that has no id of its own
    (any waiting call, for a result without an id). When the result names its tool, only
    calls of that tool qualify. A result that finds no call is the caller's to keep as a
    ``tool_result`` step of its own (docs/semantics.md#data-model).
    """

    waiting: list[_Open] = field(default_factory=list)

    def expect(self, step: TraceStep, call_id: str | None) -> None:
        """Register ``step`` (a ``tool_call``) as waiting for a result."""
        self.waiting.append(_Open(step, call_id))

    def take(self, call_id: str | None, tool_name: str | None = None) -> TraceStep | None:
        """Return the call a result with ``call_id`` answers (no longer waiting), or None."""
        waiting = self.waiting
        if call_id is not None:
            for index, open_call in enumerate(waiting):
                if open_call.call_id == call_id:
                    return waiting.pop(index).step
        for index, open_call in enumerate(waiting):
            if call_id is not None and open_call.call_id is not None:
                continue
            if tool_name is not None and open_call.step.tool_name != tool_name:
                continue
            return waiting.pop(index).step
        return None


# --- turns --------------------------------------------------------------------------------------


@dataclass
class Turns:
    """Numbers model turns and collects the conversation and the final output, in order.

    Every adapter builds ``AgentTrace.messages``, ``TraceStep.turn`` and ``final_output``
    through one of these, so the rules hold everywhere (proposals/0015-io-layer.md): model
    turns are numbered from 0; a turn's steps (thoughts, tool calls) and its assistant message
    carry its number; system, user and tool messages carry none. The final output is the text
    of the last model turn: empty when that turn said nothing, and empty when the run did not
    end on its words (it asked for tools, or a tool ran after it), so an earlier narration
    such as "I'll refund it now." is never taken for the answer.
    """

    messages: list[Message] = field(default_factory=list)
    count: int = 0
    """Model turns started so far."""
    final_output: str = ""
    """The final output as the turns read so far decide it."""

    def start(self) -> int:
        """Return the number of a new model turn."""
        self.count += 1
        return self.count - 1

    def say(
        self, role: MessageRole, content: str, *, name: str | None = None, turn: int | None = None
    ) -> None:
        """Append one message of the conversation."""
        self.messages.append(Message(role, content, name, turn))  # positional: a hot path

    def answer(self, text: str, *, asked_for_tools: bool) -> None:
        """Record the text of the model turn just read, the final output unless it asked for
        tools (then the run went on, or stopped before the answer)."""
        self.final_output = "" if asked_for_tools else text

    def acted(self) -> None:
        """Record that a tool ran after the last model turn: its text was not the answer."""
        self.final_output = ""

    @property
    def first_user_text(self) -> str:
        """Return the first non-empty user message (``AgentTrace.input``), or ``""``."""
        return next((m.content for m in self.messages if m.role == "user" and m.content), "")


# --- the empty read ------------------------------------------------------------------------------


def require_activity(trace: AgentTrace, errors: Errors, what: str) -> AgentTrace:
    """Return ``trace`` when it holds something: a step, or any text (input, output, message).

    A reader handed a non-empty input never returns a trace with no steps and no text as if
    the agent did nothing (docs/semantics.md#no-vacuous-passes): that is a shape it does not
    understand, and it says so. ``what`` says what was expected and not found
    (``no model turn, tool call or message``).
    """
    if trace.steps or trace.input or trace.final_output:
        return trace
    if any(message.content for message in trace.messages):
        return trace
    raise errors(f"nothing an agent did: {what}")


# --- SDK objects --------------------------------------------------------------------------------


_DUMPS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("model_dump", {"mode": "json", "by_alias": True}),
    ("model_dump", {}),
    ("to_dict", {}),
    ("dict", {}),
)


def dump_object(value: Any) -> Any:
    """Return what an SDK object dumps to (pydantic ``model_dump``, ``to_dict``, ``dict``).

    Returns ``value`` itself when it has no dump method that works: the SDKs are never
    imported, so any object shaped like theirs is read.
    """
    for method, kwargs in _DUMPS:
        dump = getattr(value, method, None)
        if not callable(dump):
            continue
        try:
            return dump(**kwargs)
        except Exception:  # an older signature, or a foreign object's dump failing: next form
            continue
    return value


def to_plain(value: Any, errors: Errors, location: str, *, _depth: int = 0) -> Any:
    """Return ``value`` as plain JSON values, dumping SDK objects found anywhere inside it.

    Dicts, lists, tuples and scalars pass through (recursively); other objects are dumped
    with :func:`dump_object`. Raises TraceFormatError naming the place of an object that
    cannot be dumped, or of nesting past MAX_JSON_DEPTH.
    """
    try:
        return _plain_copy(value, _depth)
    except _NotPlain:
        # Walked again with a JSON path at every level, only to name the place in the error.
        return _to_plain_at(value, errors, location, _depth)


class _NotPlain(Exception):
    """Raised by :func:`_plain_copy` where :func:`_to_plain_at` raises a located error."""


SCALAR_TYPES = frozenset({str, bool, int, float, type(None)})
"""The exact types of the JSON scalars: what :func:`to_plain` keeps as they are."""


def _plain_copy(value: Any, depth: int) -> Any:
    """:func:`_to_plain_at` without the JSON path of each value (built for every value, it
    cost more than the copy): the same result, or _NotPlain where that raises."""
    kind = type(value)
    if kind in SCALAR_TYPES:
        return value
    if kind is dict:
        if depth >= MAX_JSON_DEPTH:
            raise _NotPlain
        return {
            str(key): item if type(item) in SCALAR_TYPES else _plain_copy(item, depth + 1)
            for key, item in value.items()
        }
    if kind is list:
        if depth >= MAX_JSON_DEPTH:
            raise _NotPlain
        return [item if type(item) in SCALAR_TYPES else _plain_copy(item, depth + 1)
                for item in value]
    if isinstance(value, (str, bool, int, float)):
        return value
    if depth >= MAX_JSON_DEPTH:
        raise _NotPlain
    if isinstance(value, Mapping):
        return {str(key): _plain_copy(item, depth + 1) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_copy(item, depth + 1) for item in value]
    dumped = dump_object(value)
    if dumped is value:
        raise _NotPlain
    return _plain_copy(dumped, depth)


def _to_plain_at(value: Any, errors: Errors, location: str, _depth: int) -> Any:
    if value is None or isinstance(value, (str, bool, int, float)):
        return value
    if _depth >= MAX_JSON_DEPTH:
        raise errors(depth_message(MAX_JSON_DEPTH), location)
    if isinstance(value, Mapping):
        return {
            str(key): _to_plain_at(item, errors, join_path(location, str(key)), _depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [
            _to_plain_at(item, errors, join_path(location, index), _depth + 1)
            for index, item in enumerate(value)
        ]
    dumped = dump_object(value)
    if dumped is value:
        raise errors(
            f"expected a dict, list or SDK object, got {type(value).__name__}", location
        )
    return _to_plain_at(dumped, errors, location, _depth)


# --- token counts -------------------------------------------------------------------------------

_MAX_COUNT = 2**63 - 1
"""The largest count JSON tools (and orjson) write as an integer."""


def token_count(value: Any) -> int | None:
    """Return ``value`` as a token count, or None when it is not one.

    A count is a whole number from 0 to 2**63 - 1, given as an int or an integral float
    (``12.0``); ``1e300``, ``-3``, ``2.5``, booleans and text are not counts.
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    if not 0 <= value <= _MAX_COUNT:
        return None
    return int(value)


def token_counts(pairs: Iterable[tuple[str, Any]]) -> dict[str, int] | None:
    """Return ``{name: count}`` for the pairs whose value is a count; None when none is."""
    counts = {name: count for name, value in pairs if (count := token_count(value)) is not None}
    return counts or None


# --- task ids -----------------------------------------------------------------------------------

TRACE_SUFFIXES: Sequence[str] = (
    ".otlp.jsonl.zst",
    ".trace.jsonl",
    ".trace.json",
    ".otlp.jsonl",
    ".otlp.json",
    ".jsonl.zst",
    ".trace",
    ".jsonl",
    ".json",
)
"""The endings a trace file's name may have, longest first; the task id is what is left."""


def task_id_from_path(path: Path | str) -> str:
    """Return the default task id of a trace file: its name without one known trace suffix.

    Only the endings in :data:`TRACE_SUFFIXES` are removed (case-insensitively), so dots that
    are part of the name stay: ``v1.2.trace`` -> ``v1.2``, ``run.trace.jsonl`` -> ``run``,
    ``notes.txt`` -> ``notes.txt``. A name that is only a suffix is kept whole.
    """
    name = Path(path).name
    lowered = name.lower()
    for suffix in TRACE_SUFFIXES:
        if lowered.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name

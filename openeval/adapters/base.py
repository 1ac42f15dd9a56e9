"""What every trace adapter is given and must provide.

An adapter is an object with a ``name``, a one-line ``description``, a ``refusal`` that looks at a
:class:`TraceSource` and says why the file is not in its format (None when it is), and a ``load``
that reads it into an :class:`~openeval.models.AgentTrace`. Reading bytes (files, zstd, JSON
Lines, limits) is :mod:`openeval.io`'s job; this module adds what adapters need on top of it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import Any, Protocol

from openeval.errors import TraceFormatError
from openeval.io import HEAD_BYTES, ZSTD_MAGIC, ReadLimits
from openeval.io import TraceSource as _ByteSource
from openeval.io.limits import (
    DEFAULT_MAX_DECOMPRESSED_BYTES,
    DEFAULT_MAX_JSON_VALUES,
    DEFAULT_MAX_LINE_BYTES,
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_TEXT_CHARS,
)
from openeval.models import AgentTrace
from openeval.trust import REFUSE_ALL, CodePolicy

__all__ = [
    "ENVELOPE_KEYS",
    "HEAD_BYTES",
    "ZSTD_MAGIC",
    "LoadOptions",
    "TraceAdapter",
    "TraceGrouping",
    "TraceSource",
    "apply_envelope",
    "item_count_note",
    "split_envelope",
]


@dataclass(frozen=True)
class LoadOptions:
    """Settings for reading traces; the limits' defaults are far above what real traces reach.

    The limits are documented on :class:`openeval.io.ReadLimits` and in
    proposals/0015-io-layer.md.
    """

    agent_spec: str | None = None
    """``module:attr`` of the current agent, to compute a Fixtura drift verdict."""
    max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES
    """Most bytes of content read from one file, decompressed (a bomb guard)."""
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """Longest single line accepted from a JSON Lines stream."""
    max_document_bytes: int | None = None
    """Largest whole-JSON document read into memory; None means ``max_decompressed_bytes``."""
    max_steps: int = DEFAULT_MAX_STEPS
    """Most steps one trace may hold."""
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    """Most characters of text one trace may hold."""
    max_json_values: int = DEFAULT_MAX_JSON_VALUES
    """Most JSON values one trace document may hold."""
    code: CodePolicy = REFUSE_ALL
    """Which user code the run may run (``--allow-code``, ``--allow-code-module``); read where
    cases are compiled, carried here because these options reach every process that scores."""

    @cached_property  # asked once per line of a file of many traces
    def limits(self) -> ReadLimits:
        """The read limits these options set."""
        return ReadLimits(
            max_decompressed_bytes=self.max_decompressed_bytes,
            max_line_bytes=self.max_line_bytes,
            max_document_bytes=self.max_document_bytes,
            max_steps=self.max_steps,
            max_text_chars=self.max_text_chars,
            max_json_values=self.max_json_values,
        )


class TraceSource(_ByteSource):
    """A trace file (or bytes) as adapters see it: :class:`openeval.io.TraceSource` plus the
    :class:`LoadOptions` it is read with (``options.agent_spec`` ...)."""

    def __init__(
        self,
        path: Path | str,
        options: LoadOptions | None = None,
        *,
        data: bytes | None = None,
    ) -> None:
        self.options = options or LoadOptions()
        super().__init__(path, self.options.limits, data=data)

    @classmethod
    def from_bytes(  # type: ignore[override]
        cls, data: bytes, name: str = "<bytes>", options: LoadOptions | None = None
    ) -> TraceSource:
        """Return a source reading ``data``; ``name`` stands for the file in messages."""
        return cls(name, options, data=bytes(data))


class TraceAdapter(Protocol):
    """A reader of one trace format."""

    name: str
    """Short format name, the value of ``--format`` (``openai``, ``fixtura`` ...)."""
    description: str
    """One line saying what files this adapter reads."""

    def refusal(self, source: TraceSource) -> str | None:
        """Return None when ``source`` is in this format, else a short reason why it is not."""
        ...

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace in ``source``; raise TraceFormatError naming the place if broken."""
        ...


class TraceGrouping(Protocol):
    """How the items of a format (spans, runs) belong to traces, for files holding many.

    An adapter whose files hold many traces by id offers one through an optional method
    ``grouping(source, whole) -> TraceGrouping | None``: ``source`` is the file's first
    readable line (``whole`` False) or the whole document (``whole`` True); None means the
    file is read one trace per line (or as one trace). An adapter may also set
    ``lines_are_one_trace = True`` when a JSON Lines file in its format is read whole (its
    lines are events, or appended exports), and a method ``load_many(source)`` yielding each
    trace of a document that holds several (Inspect samples, Agents SDK trace ids; a broken
    one as its TraceFormatError). :mod:`openeval.adapters.stream` reads these hooks and
    knows no format.
    """

    item: str
    """What one item is called in messages (``span``, ``run``)."""
    key_field: str
    """The field naming an item's trace (``traceId``), for "carry no ..." messages."""

    def keys(self, value: Any) -> list[str]:
        """Return the trace keys one parsed line holds, leniently (the first pass)."""
        ...

    def items(self, source: TraceSource, line_no: int) -> list[tuple[str, Any]]:
        """Return ``(trace key, item)`` for each item of one line (``line_no`` 0: of the whole
        document); raise TraceFormatError naming the place."""
        ...

    def finish(
        self, key: str, items: list[tuple[int, Any]], file: str
    ) -> tuple[AgentTrace, str]:
        """Return one complete trace and its id from its items (with the line each is on, in
        file order); raise TraceFormatError when they do not make a trace (no root ...)."""
        ...


def item_count_note(items: Sequence[tuple[int, Any]], what: str) -> str:
    """Return ``"3 spans on lines 2-5"``: how many items a group holds and where."""
    lines = sorted({line for line, _ in items})
    shown = f"line {lines[0]}" if len(lines) == 1 else f"lines {lines[0]}-{lines[-1]}"
    return f"{len(items)} {what}{'' if len(items) == 1 else 's'} on {shown}"


ENVELOPE_KEYS = ("task_id", "input", "final_output", "actual_state", "metadata",
                 "initial_state")
"""AgentTrace fields a wrapped document may carry beside its format's payload."""


def split_envelope(document: Any, payload_key: str) -> tuple[Any, dict[str, Any]]:
    """Return ``(payload, overrides)`` for a document that may wrap a format's payload.

    Formats such as a bare message list carry no task id or final state, so any of them may be
    wrapped as ``{"task_id": ..., "actual_state": {...}, payload_key: <payload>}``. For an
    unwrapped document the payload is the document itself and ``overrides`` is empty.
    """
    if isinstance(document, dict) and payload_key in document:
        extra = set(document) - {payload_key, *ENVELOPE_KEYS}
        if not extra:
            overrides = {k: document[k] for k in ENVELOPE_KEYS if k in document}
            return document[payload_key], overrides
    return document, {}


_ENVELOPE_TYPES: dict[str, type] = {
    "task_id": str, "input": str, "final_output": str, "actual_state": dict, "metadata": dict,
    "initial_state": dict,
}


def apply_envelope(trace: AgentTrace, overrides: dict[str, Any], where: Path | str) -> AgentTrace:
    """Return ``trace`` with the envelope's fields set; raise TraceFormatError on a wrong type.

    ``metadata`` is merged over the trace's own; the other fields replace it.
    """
    for key, value in overrides.items():
        if not isinstance(value, _ENVELOPE_TYPES[key]):
            raise TraceFormatError(
                f"expected {'a string' if _ENVELOPE_TYPES[key] is str else 'a JSON object'}",
                source=where,
                location=key,
            )
    if "metadata" in overrides:
        overrides = {**overrides, "metadata": {**trace.metadata, **overrides["metadata"]}}
    return replace(trace, **overrides)


def apply_given(trace: AgentTrace, **given: Any) -> AgentTrace:
    """Return ``trace`` with the fields a ``from_*`` caller gave (``final_output``, ``input``,
    ``actual_state``, ``metadata``, ``initial_state``; None or empty means "not given", but an
    empty ``initial_state`` is a state: nothing existed before the run) set as an envelope's
    are: checked for type, metadata merged over the trace's own."""
    return apply_envelope(trace, {k: v for k, v in given.items() if given_value(k, v)},
                          "<caller>")


def given_value(key: str, value: Any) -> bool:
    """Return True when a caller's ``key=value`` was given: not None, and not empty except for
    ``initial_state`` (``{}`` says the run started from nothing)."""
    return value is not None if key == "initial_state" else bool(value)

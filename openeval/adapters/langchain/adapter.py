"""The ``langchain`` format's adapter and entry points, and the grouping of a file of runs.

:mod:`.runs` reads run trees and LangSmith exports, :mod:`.messages` message lists; here is how
a file finds them, and how a JSON Lines file of runs is read trace by trace (by ``trace_id``).
The mapping is in ``proposals/0011-langchain-adapter.md``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from openeval.adapters._toolkit import Errors, task_id_from_path, to_plain
from openeval.adapters.base import (
    TraceSource,
    apply_envelope,
    item_count_note,
    split_envelope,
)
from openeval.adapters.langchain.messages import is_message, read_messages
from openeval.adapters.langchain.runs import (
    PAYLOAD_KEY,
    build,
    looks_like_run,
    run_tree_document,
)
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace

MESSAGES_KEY = "messages"
"""Key holding a message list in a wrapped document, as LangGraph's state has it."""
DEFAULT_TASK_ID = "langchain_task"
"""Task id of a conversation built from Python objects when none is given."""


def from_langchain_run(
    run: Any,
    task_id: str | None = None,
    input_text: str | None = None,
    *,
    input: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of a LangChain run tree (or of a LangChain message list).

    ``run`` is a ``Run``/``RunTree`` (as ``collect_runs()`` gives it), its dict, a list of root
    runs (``cb.traced_runs``), a flat LangSmith export (runs linked by ``parent_run_id``), the
    path of a JSON/JSONL file holding one of those, or a list of LangChain messages (read as
    :func:`from_langchain_messages` reads it). ``task_id`` defaults to the root run's
    ``metadata["task_id"]``, else the file name, else the root run's name. The other
    arguments, when given, replace what the runs say (``input_text`` is the older name of
    ``input``; ``metadata`` is merged). Raises TraceFormatError naming the JSON path of a run
    that is not in LangChain's shape.
    """
    if isinstance(run, (str, os.PathLike)):
        trace = ADAPTER.load(TraceSource(Path(run)))
    else:
        document = run_tree_document(run)
        payload, overrides = split_envelope(document, MESSAGES_KEY)
        if _is_message_list(payload):
            trace = apply_envelope(
                read_messages(payload, Errors(None), DEFAULT_TASK_ID), overrides, "<messages>"
            )
        else:
            trace = build(document, errors=Errors(None), default_task_id=None)
    return _override(
        trace, task_id=task_id, input=input if input is not None else input_text,
        final_output=final_output, actual_state=actual_state, metadata=metadata,
        initial_state=initial_state,
    )


def from_langchain_messages(
    messages: Any,
    *,
    task_id: str | None = None,
    input: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of a LangChain conversation: a list of ``BaseMessage`` objects.

    ``messages`` is LangGraph's ``result["messages"]``, the whole ``result`` (``{"messages":
    [...], ...}``: only the messages are read), or the same saved as dicts
    (``messages_to_dict``, ``model_dump()``, ``dumpd``). Each AI message is a model turn with
    its tool calls, paired with the tool messages by ``tool_call_id``. ``task_id`` defaults to
    ``langchain_task``; the other keywords, when given, replace what the messages say. Raises
    TraceFormatError naming the item that is not a LangChain message.
    """
    errors = Errors(None)
    plain = to_plain(messages, errors, MESSAGES_KEY)
    if isinstance(plain, dict) and MESSAGES_KEY in plain:
        plain = plain[MESSAGES_KEY]  # a LangGraph state: the other channels are not the trace
    if not isinstance(plain, list):
        raise errors("expected a list of LangChain messages")
    trace = read_messages(plain, errors, DEFAULT_TASK_ID, MESSAGES_KEY)
    return _override(
        trace, task_id=task_id, input=input, final_output=final_output,
        actual_state=actual_state, metadata=metadata, initial_state=initial_state,
    )


def _override(trace: AgentTrace, **given: Any) -> AgentTrace:
    overrides = {key: value for key, value in given.items() if value is not None}
    return apply_envelope(trace, overrides, "<arguments>") if overrides else trace


def _is_message_list(payload: Any) -> bool:
    return isinstance(payload, list) and bool(payload) and is_message(payload[0])


class LangChainAdapter:
    """Reads LangChain run trees, LangSmith run exports and LangChain message lists."""

    name = "langchain"
    description = (
        "LangChain run tree JSON (Run.dict() with child_runs), root-run lists, LangSmith exports, "
        "LangChain message lists (messages_to_dict)"
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None when the file holds LangChain runs or messages, else why not."""
        document = source.document_or_none()
        if document is None:
            first = source.first_json_line()
            if looks_like_run(first):
                return None
            return "not a JSON document, and its first line is not a LangChain run"
        messages, _ = split_envelope(document, MESSAGES_KEY)
        if _is_message_list(messages):
            return None
        payload, _ = split_envelope(document, PAYLOAD_KEY)
        if isinstance(payload, list):
            if payload and looks_like_run(payload[0]):
                return None
            return (
                "not a list of LangChain runs or messages (no 'run_type' and 'name', or "
                "message 'type', in the first item)"
            )
        if looks_like_run(payload):
            return None
        return "no 'run_type' and 'name' keys of a LangChain run"

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace held in the file; raise TraceFormatError naming the broken run."""
        errors = Errors(source.path)
        document = source.document_or_none()
        if document is None and looks_like_run(source.first_json_line()):
            lines = list(source.json_lines())
            return build(
                [value for _, value in lines],
                errors=errors,
                default_task_id=task_id_from_path(source.path),
                item_wheres=[f"line {number}" for number, _ in lines],
            )
        document = source.document()
        messages, overrides = split_envelope(document, MESSAGES_KEY)
        if _is_message_list(messages):
            prefix = MESSAGES_KEY if messages is not document else ""
            trace = read_messages(messages, errors, task_id_from_path(source.path), prefix)
            return apply_envelope(trace, overrides, source.path)
        payload, overrides = split_envelope(document, PAYLOAD_KEY)
        prefix = PAYLOAD_KEY if overrides or payload is not document else ""
        trace = build(
            payload, errors=errors, default_task_id=task_id_from_path(source.path), prefix=prefix
        )
        return apply_envelope(trace, overrides, source.path)


    def grouping(self, source: TraceSource, whole: bool) -> RunGrouping | None:
        """A JSON Lines file of runs is grouped by ``trace_id``; other files are one trace."""
        if whole or not looks_like_run(source.document_or_none()):
            return None
        return RunGrouping()


ADAPTER = LangChainAdapter()


class RunGrouping:
    """LangChain/LangSmith runs, grouped by ``trace_id``; a run without one is a whole tree."""

    item = "run"
    key_field = "trace_id"

    def keys(self, value: Any) -> list[str]:
        """Return the ``trace_id`` a parsed line's run names, if any."""
        trace_id = value.get("trace_id") if isinstance(value, dict) else None
        return [trace_id] if isinstance(trace_id, str) and trace_id else []

    def items(self, source: TraceSource, line_no: int) -> list[tuple[str, Any]]:
        """Return the one run of a line with the trace it belongs to."""
        value = source.document()
        if not looks_like_run(value):
            raise TraceFormatError("expected a LangChain run ('run_type' and 'name') on each "
                                   "line of a file of runs")
        key = _run_key(value, line_no)
        if key is None:
            raise TraceFormatError(
                "parent_run_id: a run with a parent but no 'trace_id': which trace it belongs "
                "to is unknown (export runs with their trace_id)")
        return [(key, value)]

    def finish(
        self, key: str, items: list[tuple[int, Any]], file: str
    ) -> tuple[AgentTrace, str]:
        """Return the trace of one trace's runs; refuse a trace whose root run is missing."""
        runs = [run for _, run in items]
        if all(run.get("parent_run_id") for run in runs):
            raise TraceFormatError(
                f"no root run among its {item_count_note(items, 'run')} (each names a "
                "parent_run_id): the trace is incomplete and is not scored")
        trace = build(runs, errors=Errors(file), default_task_id=None,
                      item_wheres=[f"line {line}" for line, _ in items])
        trace_id = key if not key.startswith("\x00") else str(trace.metadata.get("run_id"))
        return trace, trace_id


def _run_key(value: Any, line_no: int) -> str | None:
    """Return the trace a run belongs to: its ``trace_id``; a root run without one is a tree
    of its own (keyed by its line, unique in the file); None for a child without one."""
    if not isinstance(value, dict):
        return None
    trace_id = value.get("trace_id")
    if isinstance(trace_id, str) and trace_id:
        return trace_id
    if value.get("parent_run_id"):
        return None
    return f"\x00line {line_no}"

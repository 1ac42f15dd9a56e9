"""LangChain: run trees and LangSmith exports (:mod:`.runs`), and message lists (:mod:`.messages`).

One format name, ``langchain``, reads both: a file of runs (``Run.dict()`` with
``child_runs``, a list of root runs, a flat LangSmith export, JSON or JSON Lines), and a
conversation saved as LangChain messages (LangGraph's ``result["messages"]``, bare or as
``{"messages": [...]}``, in ``messages_to_dict`` form, ``model_dump()`` form or ``dumpd``
form). The mapping is in ``proposals/0011-langchain-adapter.md``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from openeval.adapters._toolkit import Errors, task_id_from_path, to_plain
from openeval.adapters.base import TraceSource, apply_envelope, split_envelope
from openeval.adapters.langchain.messages import is_message, read_messages
from openeval.adapters.langchain.runs import (
    PAYLOAD_KEY,
    RUN_TYPES,
    build,
    looks_like_run,
    run_tree_document,
)
from openeval.models import AgentTrace

__all__ = [
    "ADAPTER",
    "MESSAGES_KEY",
    "PAYLOAD_KEY",
    "RUN_TYPES",
    "LangChainAdapter",
    "from_langchain_messages",
    "from_langchain_run",
    "run_tree_document",
]

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
    )


def from_langchain_messages(
    messages: Any,
    *,
    task_id: str | None = None,
    input: str | None = None,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
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
        actual_state=actual_state, metadata=metadata,
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


ADAPTER = LangChainAdapter()

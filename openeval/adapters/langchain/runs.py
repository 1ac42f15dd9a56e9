"""LangChain and LangSmith runs: a run tree, a list of root runs, or a flat LangSmith export.

Every shape is first turned into plain JSON (a ``Run``/``RunTree`` object through its
``model_dump()``/``dict()`` plus its ``child_runs``), then into one list of runs in execution
order. Model runs become ``thought`` steps followed by the tool calls their output message
requested; tool runs fill in those calls by tool-call id. The mapping and every judgement call
are written down in ``proposals/0011-langchain-adapter.md``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

import orjson

from openeval.adapters.base import TraceSource, apply_envelope, split_envelope
from openeval.adapters.tool_args import parse_tool_args
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json_compact
from openeval.models import AgentTrace, TraceStep

PAYLOAD_KEY = "runs"
"""Key holding the runs in a wrapped document: ``{"task_id": ..., "runs": [...]}``."""

RUN_TYPES = frozenset(
    {"llm", "chat_model", "tool", "chain", "retriever", "embedding", "prompt", "parser"}
)
"""The ``run_type`` values LangChain and LangSmith write."""

_MODEL_RUNS = frozenset({"llm", "chat_model"})
_MESSAGE_TYPES = {
    "AIMessage": "ai", "AIMessageChunk": "ai", "HumanMessage": "human",
    "HumanMessageChunk": "human", "ToolMessage": "tool", "ToolMessageChunk": "tool",
    "SystemMessage": "system", "ChatMessage": "chat", "FunctionMessage": "function",
}
_ROLE_TYPES = {"assistant": "ai", "user": "human", "ai": "ai", "human": "human"}


# ---------------------------------------------------------------------------------------------
# Public entry points


def from_langchain_run(
    run: Any,
    task_id: str | None = None,
    input_text: str | None = None,
    *,
    final_output: str | None = None,
    actual_state: dict[str, Any] | None = None,
    metadata: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of a LangChain run tree.

    ``run`` is a ``Run``/``RunTree`` (as ``collect_runs()`` gives it), its dict, a list of root
    runs (``cb.traced_runs``), a flat LangSmith export (runs linked by ``parent_run_id``), or the
    path of a JSON/JSONL file holding one of those. ``task_id`` defaults to the root run's
    ``metadata["task_id"]``, else the file stem, else the root run's name. The other arguments,
    when given, replace what the runs say. Raises TraceFormatError naming the JSON path of a
    run that is not in LangChain's shape.
    """
    if isinstance(run, (str, os.PathLike)):
        trace = ADAPTER.load(TraceSource(Path(run)))
    else:
        trace = _build(run_tree_document(run), source=None, default_task_id=None)
    overrides: dict[str, Any] = {
        key: value
        for key, value in (
            ("task_id", task_id), ("input", input_text), ("final_output", final_output),
            ("actual_state", actual_state), ("metadata", metadata),
        )
        if value is not None
    }
    return apply_envelope(trace, overrides, Path("<from_langchain_run>")) if overrides else trace


def run_tree_document(run: Any) -> Any:
    """Return ``run`` (a run object, dict, or list of them) as plain JSON values.

    ``Run.model_dump()`` leaves out ``child_runs``; this keeps them, nested, so that the result
    written with ``openeval.jsonio.dump_json`` is the run-tree file the ``langchain`` format reads.
    Datetimes become ISO 8601 text, UUIDs text, message objects their ``model_dump()``.
    """
    try:
        return orjson.loads(
            orjson.dumps(_dump_runs(run), default=_json_default, option=orjson.OPT_NON_STR_KEYS)
        )
    except (orjson.JSONEncodeError, RecursionError) as exc:
        raise TraceFormatError(f"run cannot be turned into JSON: {exc}") from None


def _dump_runs(run: Any) -> Any:
    if isinstance(run, (list, tuple)):
        return [_dump_runs(item) for item in run]
    if isinstance(run, dict):
        children = run.get("child_runs")
        if isinstance(children, (list, tuple)) and children:
            return {**run, "child_runs": [_dump_runs(child) for child in children]}
        return run
    dumped = _model_dump(run)
    if not isinstance(dumped, dict):
        return run
    children = getattr(run, "child_runs", None)
    if children:
        dumped["child_runs"] = [_dump_runs(child) for child in children]
    return dumped


def _model_dump(value: Any) -> Any:
    for method in ("model_dump", "dict"):
        function = getattr(value, method, None)
        if callable(function):
            try:
                return function()
            except Exception:  # a foreign object's dump failing is not ours to crash on
                continue
    return value


def _json_default(value: Any) -> Any:
    dumped = _model_dump(value)
    if dumped is not value:
        return dumped
    if isinstance(value, (set, frozenset)):
        return sorted(str(item) for item in value)
    return str(value)


# ---------------------------------------------------------------------------------------------
# The adapter


class LangChainAdapter:
    """Reads LangChain run trees and LangSmith run exports (JSON or JSON Lines)."""

    name = "langchain"
    description = (
        "LangChain run tree JSON (Run.dict() with child_runs), root-run lists, LangSmith exports"
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None when the file holds LangChain runs, else why not."""
        document = source.document_or_none()
        if document is None:
            first = source.first_json_line()
            if _looks_like_run(first):
                return None
            return "not a JSON document, and its first line is not a LangChain run"
        payload, _ = split_envelope(document, PAYLOAD_KEY)
        if isinstance(payload, list):
            if payload and _looks_like_run(payload[0]):
                return None
            return "not a list of LangChain runs (no 'run_type' and 'name' in the first item)"
        if _looks_like_run(payload):
            return None
        return "no 'run_type' and 'name' keys of a LangChain run"

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace held in the file; raise TraceFormatError naming the broken run."""
        document = source.document_or_none()
        if document is None and _looks_like_run(source.first_json_line()):
            lines = list(source.json_lines())
            return _build(
                [value for _, value in lines],
                source=source.path,
                default_task_id=_stem(source.path),
                item_wheres=[f"line {number}" for number, _ in lines],
            )
        document = source.document()
        payload, overrides = split_envelope(document, PAYLOAD_KEY)
        prefix = PAYLOAD_KEY if overrides or payload is not document else ""
        trace = _build(
            payload, source=source.path, default_task_id=_stem(source.path), prefix=prefix
        )
        return apply_envelope(trace, overrides, source.path)


ADAPTER = LangChainAdapter()


def _looks_like_run(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("run_type"), str)
        and isinstance(value.get("name"), str)
    )


def _stem(path: Path) -> str:
    return path.name.split(".", 1)[0] or path.name


# ---------------------------------------------------------------------------------------------
# Runs: collected, linked and ordered


@dataclass
class _Run:
    """One run, checked and reduced to what the trace needs."""

    raw: dict[str, Any]
    where: str
    index: int
    run_id: str
    name: str
    run_type: str
    parent_id: str | None
    start: float | None
    end: float | None
    error: str | None
    dotted: tuple[str, ...] | None
    children: list[_Run] = field(default_factory=list)
    parent: _Run | None = None

    @cached_property
    def sort_key(self) -> tuple[str, ...]:
        """Return the run's dotted order as segments, made up from start times if absent."""
        if self.dotted is not None:
            return self.dotted
        own = f"{_segment_time(self.start)}{self.index:012d}"
        return (*self.parent.sort_key, own) if self.parent is not None else (own,)

    def under_tool(self) -> bool:
        """True when an ancestor is a tool run (its inner runs are the tool's business)."""
        node = self.parent
        while node is not None:
            if node.run_type == "tool":
                return True
            node = node.parent
        return False


def _segment_time(when: float | None) -> str:
    if when is None:
        return ""
    try:
        return datetime.fromtimestamp(when, tz=timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    except (OverflowError, OSError, ValueError):
        return ""


def _collect(
    payload: Any, error: _Errors, prefix: str, item_wheres: list[str] | None = None
) -> list[_Run]:
    """Return every run in ``payload`` (one tree, or a list of trees or flat runs).

    ``item_wheres`` names each list item's place (``line 7`` for JSON Lines); by default it is
    the item's index below ``prefix``.
    """
    roots: list[tuple[Any, str]]
    if isinstance(payload, list):
        wheres = item_wheres or [_join(prefix, f"[{i}]") for i in range(len(payload))]
        roots = list(zip(payload, wheres, strict=True))
    else:
        roots = [(payload, prefix)]
    runs: list[_Run] = []
    seen: set[str] = set()
    # An explicit stack: run trees can nest deeper than Python's recursion limit.
    stack: list[tuple[Any, str, _Run | None]] = [(v, w, None) for v, w in reversed(roots)]
    while stack:
        value, where, parent = stack.pop()
        run = _check_run(value, where, len(runs), error)
        if run.run_id in seen:
            continue  # an export may list a run both nested and flat; the first one counts
        seen.add(run.run_id)
        if parent is not None:
            run.parent = parent
            parent.children.append(run)
        runs.append(run)
        children = run.raw.get("child_runs")
        if children is None:
            continue
        if not isinstance(children, list):
            raise error("expected a list of runs", _join(where, "child_runs"))
        for i in reversed(range(len(children))):
            stack.append((children[i], _join(where, f"child_runs[{i}]"), run))
    if not runs:
        raise error("expected at least one run", prefix or None)
    _link_flat(runs)
    return runs


def _link_flat(runs: list[_Run]) -> None:
    """Attach runs of a flat export to their parents through ``parent_run_id``."""
    by_id = {run.run_id: run for run in runs}
    for run in runs:
        if run.parent is None and run.parent_id is not None:
            parent = by_id.get(run.parent_id)
            if parent is not None and parent is not run and not _is_ancestor(run, parent):
                run.parent = parent
                parent.children.append(run)


def _is_ancestor(run: _Run, other: _Run) -> bool:
    node: _Run | None = other
    while node is not None:
        if node is run:
            return True
        node = node.parent
    return False


def _check_run(value: Any, where: str, index: int, error: _Errors) -> _Run:
    if not isinstance(value, dict):
        raise error("expected a LangChain run (a JSON object)", where or None)
    run_type = value.get("run_type")
    if not isinstance(run_type, str):
        raise error("expected 'run_type' as a string (llm, chat_model, tool, chain ...)",
                    _join(where, "run_type"))
    name = value.get("name")
    if not isinstance(name, str):
        raise error("expected 'name' as a string", _join(where, "name"))
    run_id = value.get("id")
    if run_id is not None and not isinstance(run_id, str):
        raise error("expected 'id' as a string", _join(where, "id"))
    parent_id = value.get("parent_run_id")
    if parent_id is not None and not isinstance(parent_id, str):
        raise error("expected 'parent_run_id' as a string or null", _join(where, "parent_run_id"))
    dotted = value.get("dotted_order")
    if dotted is not None and not isinstance(dotted, str):
        raise error("expected 'dotted_order' as a string or null", _join(where, "dotted_order"))
    failure = value.get("error")
    if failure is not None and not isinstance(failure, str):
        raise error("expected 'error' as a string or null", _join(where, "error"))
    return _Run(
        raw=value,
        where=where,
        index=index,
        run_id=run_id if run_id is not None else f"#{index}",
        name=name,
        run_type=run_type,
        parent_id=parent_id,
        start=_time(value.get("start_time"), _join(where, "start_time"), error),
        end=_time(value.get("end_time"), _join(where, "end_time"), error),
        error=_error_summary(failure) if failure else None,
        dotted=tuple(dotted.split(".")) if dotted else None,
    )


def _time(value: Any, where: str, error: _Errors) -> float | None:
    """Return an ISO 8601 time (naive means UTC) or epoch number as epoch seconds."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise error("expected a time (ISO 8601 text or epoch seconds)", where)
    if isinstance(value, (int, float)):
        if not math.isfinite(value):
            raise error("expected a finite epoch time", where)
        return float(value)
    if not isinstance(value, str):
        raise error("expected a time (ISO 8601 text or epoch seconds)", where)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise error(f"expected an ISO 8601 time, got {value!r}", where) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def _error_summary(text: str) -> str:
    """Return the exception line of a recorded traceback, or the text itself."""
    # LangChain stores repr(exception) followed by the whole traceback; its last line says it.
    if "Traceback (most recent call last):" in text:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1]
    return text.strip()


# ---------------------------------------------------------------------------------------------
# Errors with a JSON path


class _Errors:
    """Raises TraceFormatError for one source, with JSON paths below an optional line."""

    def __init__(self, source: Path | None) -> None:
        self.source = source

    def __call__(self, message: str, where: str | None) -> TraceFormatError:
        return TraceFormatError(message, source=self.source, location=where or None)


def _join(base: str, part: str) -> str:
    if not base:
        return part
    if base.startswith("line ") and base[5:].isdigit():
        return f"{base}: {part}"  # a JSON Lines item: the path inside it follows its line
    return base + part if part.startswith("[") else f"{base}.{part}"


# ---------------------------------------------------------------------------------------------
# Steps


@dataclass
class _Pending:
    """A tool call the model asked for, waiting for the tool run that answers it."""

    step: TraceStep
    call_id: str | None
    answered: bool = False


@dataclass
class _StepBuilder:
    error: _Errors
    steps: list[TraceStep] = field(default_factory=list)
    pending: list[_Pending] = field(default_factory=list)
    last_model_text: str | None = None
    """Text of the last model turn that asked for no tool; None if the last one asked."""

    def add_model_run(self, run: _Run) -> None:
        message, generation = _model_message(run)
        content = _text(message.get("content")) if message else ""
        if not content and generation is not None and isinstance(generation.get("text"), str):
            content = generation["text"]
        step = TraceStep(
            step_id=0,
            type="thought",
            content=content,
            timestamp=run.start or 0.0,
            error=run.error,
            finish_reason=_finish_reason(message, generation),
            provider=_provider(run),
            model=_model_name(run, message),
            tokens=_tokens(run, message),
            latency_ms=_latency(run),
        )
        self.steps.append(step)
        calls = _tool_calls(message, run, self.error) if message else []
        for call_id, tool_step in calls:
            tool_step.timestamp = run.end or run.start or 0.0
            self.steps.append(tool_step)
            self.pending.append(_Pending(tool_step, call_id))
        self.last_model_text = None if calls or run.error else content

    def add_tool_run(self, run: _Run) -> None:
        call_id = _tool_call_id(run)
        match = self._match(call_id, run.name)
        result = _tool_output(run)
        if match is None:
            step = TraceStep(step_id=0, type="tool_call", tool_name=run.name)
            _set_args(step, run.raw.get("inputs"))
            self.steps.append(step)
        else:
            match.answered = True
            step = match.step
        step.timestamp = run.start if run.start is not None else step.timestamp
        step.latency_ms = _latency(run)
        step.tool_result = result.text
        failure = run.error or result.error
        if failure:
            step.error = failure if step.error is None else f"{step.error}; {failure}"

    def _match(self, call_id: str | None, name: str) -> _Pending | None:
        """Return the waiting call this tool run answers: same id, else the first same name."""
        open_calls = [p for p in self.pending if not p.answered]
        if call_id is not None:
            for pending in open_calls:
                if pending.call_id == call_id:
                    return pending
        for pending in open_calls:
            if pending.step.tool_name == name and (call_id is None or pending.call_id is None):
                return pending
        return None


def _build(
    payload: Any,
    *,
    source: Path | None,
    default_task_id: str | None,
    prefix: str = "",
    item_wheres: list[str] | None = None,
) -> AgentTrace:
    error = _Errors(source)
    runs = _collect(payload, error, prefix, item_wheres)
    ordered = sorted(runs, key=lambda r: (r.sort_key, r.index))
    root = _root(runs)
    builder = _StepBuilder(error)
    for run in ordered:
        if run.under_tool():
            continue
        if run.run_type in _MODEL_RUNS:
            builder.add_model_run(run)
        elif run.run_type == "tool":
            builder.add_tool_run(run)
    steps = builder.steps
    for number, step in enumerate(steps, start=1):
        step.step_id = number
    final_output = _root_answer(root) or builder.last_model_text or _root_json(root)
    metadata: dict[str, Any] = {"run_id": root.run_id, "run_name": root.name}
    run_metadata = _run_metadata(root)
    task_id = run_metadata.get("task_id")
    if not isinstance(task_id, str) or not task_id:
        task_id = default_task_id or root.name
    return AgentTrace(
        task_id=task_id,
        input=_root_input(root),
        steps=steps,
        final_output=final_output,
        metadata=metadata,
    )


def _root(runs: list[_Run]) -> _Run:
    """Return the outermost run: among the roots, the one that started first and ran longest."""
    roots = [run for run in runs if run.parent is None]

    def key(run: _Run) -> tuple[float, float, int]:
        start = run.start if run.start is not None else math.inf
        end = run.end if run.end is not None else -math.inf
        return (start, -end, run.index)

    return min(roots, key=key)


def _run_metadata(run: _Run) -> dict[str, Any]:
    extra = run.raw.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(metadata, dict):
        return metadata
    top = run.raw.get("metadata")
    return top if isinstance(top, dict) else {}


# ---------------------------------------------------------------------------------------------
# Messages


def _message(value: Any) -> dict[str, Any] | None:
    """Return a message as ``{"type": ..., **fields}``, whatever form it was serialised in."""
    if isinstance(value, dict):
        kwargs = value.get("kwargs")
        ident = value.get("id")
        if value.get("lc") is not None and isinstance(kwargs, dict) and isinstance(ident, list):
            class_name = str(ident[-1]) if ident else ""
            return {**kwargs, "type": _MESSAGE_TYPES.get(class_name, str(kwargs.get("type", "")))}
        given = value.get("type")
        if isinstance(given, str) and "content" in value:
            return {**value, "type": _MESSAGE_TYPES.get(given, given)}
        role = value.get("role")
        if isinstance(role, str) and "content" in value:
            return {**value, "type": _ROLE_TYPES.get(role, role)}
        return None
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return {"type": _ROLE_TYPES.get(value[0], value[0]), "content": value[1]}
    return None


def _text(content: Any) -> str:
    """Return the text of message content: a string, or the text parts of a block list."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                text = block.get("text")
                if isinstance(text, str):
                    parts.append(text)
        return "".join(parts)
    return ""


def _model_message(run: _Run) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """Return the model run's output message and its generation (either may be None)."""
    outputs = run.raw.get("outputs")
    if not isinstance(outputs, dict):
        return None, None
    generations = outputs.get("generations")
    if generations is not None:
        first = generations
        while isinstance(first, list) and first:
            first = first[0]
        if isinstance(first, dict):
            return _message(first.get("message")), first
        return None, None
    for key in ("output", "message"):
        message = _message(outputs.get(key))
        if message is not None:
            return message, None
    return None, None


def _tool_calls(
    message: dict[str, Any], run: _Run, error: _Errors
) -> list[tuple[str | None, TraceStep]]:
    """Return ``(call id, tool_call step)`` for each tool call the message asks for."""
    where = _join(run.where, "outputs")
    found: list[tuple[str | None, TraceStep]] = []
    calls = message.get("tool_calls")
    if calls is None or calls == []:
        calls = _openai_calls(message.get("additional_kwargs"))
    if not isinstance(calls, list):
        raise error("expected 'tool_calls' as a list", _join(where, "tool_calls"))
    for i, call in enumerate(calls):
        found.append(_call_step(call, f"{_join(where, 'tool_calls')}[{i}]", error))
    invalid = message.get("invalid_tool_calls") or []
    if not isinstance(invalid, list):
        raise error("expected 'invalid_tool_calls' as a list", _join(where, "invalid_tool_calls"))
    for i, call in enumerate(invalid):
        call_id, step = _call_step(call, f"{_join(where, 'invalid_tool_calls')}[{i}]", error)
        if isinstance(call, dict) and isinstance(call.get("error"), str) and step.error is None:
            step.error = call["error"]
        found.append((call_id, step))
    return found


def _openai_calls(extra: Any) -> Any:
    """Return OpenAI-style calls kept in ``additional_kwargs`` in LangChain's call shape."""
    if not isinstance(extra, dict) or not isinstance(extra.get("tool_calls"), list):
        return []
    calls = []
    for call in extra["tool_calls"]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict):
            calls.append(call)
            continue
        calls.append(
            {"id": call.get("id"), "name": function.get("name"), "args": function.get("arguments")}
        )
    return calls


def _call_step(call: Any, where: str, error: _Errors) -> tuple[str | None, TraceStep]:
    if not isinstance(call, dict):
        raise error("expected a tool call object with 'name' and 'args'", where)
    name = call.get("name")
    if not isinstance(name, str):
        raise error("expected the tool call's 'name' as a string", _join(where, "name"))
    call_id = call.get("id")
    if call_id is not None and not isinstance(call_id, str):
        raise error("expected the tool call's 'id' as a string or null", _join(where, "id"))
    step = TraceStep(step_id=0, type="tool_call", tool_name=name)
    _set_args(step, call.get("args"))
    return call_id, step


def _set_args(step: TraceStep, args: Any) -> None:
    """Set ``tool_args``; arguments that are not a JSON object follow the shared rule."""
    parsed = parse_tool_args(args)
    step.tool_args = parsed.args
    if parsed.error is not None:
        step.content = parsed.raw
        step.error = parsed.error


@dataclass
class _ToolOutput:
    text: str | None
    error: str | None


def _tool_call_id(run: _Run) -> str | None:
    extra = run.raw.get("extra")
    if isinstance(extra, dict) and isinstance(extra.get("tool_call_id"), str):
        return str(extra["tool_call_id"])
    outputs = run.raw.get("outputs")
    if isinstance(outputs, dict):
        message = _message(outputs.get("output"))
        if message is not None and isinstance(message.get("tool_call_id"), str):
            return str(message["tool_call_id"])
    return None


def _tool_output(run: _Run) -> _ToolOutput:
    """Return the tool run's result text, and the error a ToolMessage with status error holds."""
    outputs = run.raw.get("outputs")
    if outputs is None or outputs == {}:
        return _ToolOutput(None, None)
    value = outputs.get("output", outputs) if isinstance(outputs, dict) else outputs
    message = _message(value)
    if message is not None and message.get("type") == "tool":
        content = message.get("content")
        text = content if isinstance(content, str) else dump_json_compact(content)
        failed = message.get("status") == "error"
        return _ToolOutput(text, text if failed else None)
    if isinstance(value, str):
        return _ToolOutput(value, None)
    return _ToolOutput(dump_json_compact(value), None)


# ---------------------------------------------------------------------------------------------
# Model details


def _finish_reason(
    message: dict[str, Any] | None, generation: dict[str, Any] | None
) -> str | None:
    sources: list[Any] = []
    if generation is not None:
        sources.append(generation.get("generation_info"))
    if message is not None:
        sources.append(message.get("response_metadata"))
    for source in sources:
        if isinstance(source, dict):
            for key in ("finish_reason", "stop_reason", "done_reason"):
                if isinstance(source.get(key), str):
                    return str(source[key])
    return None


def _provider(run: _Run) -> str | None:
    provider = _run_metadata(run).get("ls_provider")
    return provider if isinstance(provider, str) else None


def _model_name(run: _Run, message: dict[str, Any] | None) -> str | None:
    places: list[tuple[Any, tuple[str, ...]]] = []
    if message is not None:
        places.append((message.get("response_metadata"), ("model_name", "model")))
    places.append((_run_metadata(run), ("ls_model_name",)))
    extra = run.raw.get("extra")
    if isinstance(extra, dict):
        places.append((extra.get("invocation_params"), ("model", "model_name", "model_id")))
    outputs = run.raw.get("outputs")
    if isinstance(outputs, dict):
        places.append((outputs.get("llm_output"), ("model_name", "model")))
    for place, keys in places:
        if isinstance(place, dict):
            for key in keys:
                if isinstance(place.get(key), str) and place[key]:
                    return str(place[key])
    return None


def _tokens(run: _Run, message: dict[str, Any] | None) -> dict[str, int] | None:
    """Return ``{"input", "output", "total"}`` token counts from the first place that has them."""
    usage = message.get("usage_metadata") if message is not None else None
    if not isinstance(usage, dict):
        usage = _run_metadata(run).get("usage_metadata")
    if isinstance(usage, dict):
        counts = _counts(usage, ("input_tokens", "output_tokens", "total_tokens"))
        if counts:
            return counts
    outputs = run.raw.get("outputs")
    llm_output = outputs.get("llm_output") if isinstance(outputs, dict) else None
    usage = llm_output.get("token_usage") if isinstance(llm_output, dict) else None
    for place in (usage, run.raw):
        if isinstance(place, dict):
            counts = _counts(place, ("prompt_tokens", "completion_tokens", "total_tokens"))
            if counts:
                return counts
    return None


def _counts(place: dict[str, Any], keys: tuple[str, str, str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name, key in zip(("input", "output", "total"), keys, strict=True):
        value = place.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            counts[name] = value
    return counts


def _latency(run: _Run) -> float | None:
    if run.start is None or run.end is None:
        return None
    return round((run.end - run.start) * 1000.0, 3)


# ---------------------------------------------------------------------------------------------
# The root run: input and final output


def _root_input(root: _Run) -> str:
    return _as_text(root.raw.get("inputs"), want="human")


def _root_answer(root: _Run) -> str:
    """Return the text the root run answered with; empty when it holds no text.

    A model root is left to the model step (its raw output is an LLMResult, not an answer).
    """
    if root.run_type in _MODEL_RUNS or root.run_type == "tool":
        return ""
    return _find_text(root.raw.get("outputs"), want="ai", depth=0) or ""


def _root_json(root: _Run) -> str:
    """Return a root chain's structured output as compact JSON, the answer of last resort."""
    outputs = root.raw.get("outputs")
    if root.run_type in _MODEL_RUNS or outputs is None or outputs in ({}, []):
        return ""
    return _as_text(outputs, want="ai")


def _as_text(value: Any, *, want: str) -> str:
    """Return the text a run's inputs or outputs carry (the last ``want`` message of a list)."""
    found = _find_text(value, want=want, depth=0)
    if found is not None:
        return found
    if value is None or value in ({}, []):
        return ""
    return dump_json_compact(value)


def _find_text(value: Any, *, want: str, depth: int) -> str | None:
    """Return the text found in ``value``, or None when it holds no text or message."""
    if isinstance(value, str):
        return value
    message = _message(value)
    if message is not None:
        return _text(message.get("content"))
    if not isinstance(value, dict) or depth > 2:
        return None
    messages = value.get("messages")
    if isinstance(messages, list):
        for item in _reversed(messages):
            found = _message(item)
            if found is not None and found.get("type") == want:
                # An AI message that still asks for tools is no answer: the run was cut short.
                return "" if found.get("tool_calls") else _text(found.get("content"))
    prompts = value.get("prompts")
    if isinstance(prompts, list) and prompts and isinstance(prompts[-1], str):
        return str(prompts[-1])
    for key in ("input", "output", "question", "query", "answer", "text", "content"):
        if key in value:
            nested = _find_text(value[key], want=want, depth=depth + 1)
            if nested is not None:
                return nested
    texts = [v for v in value.values() if isinstance(v, str)]
    if len(value) == 1 and len(texts) == 1:
        return texts[0]
    return None


def _reversed(items: list[Any]) -> Iterator[Any]:
    for item in reversed(items):
        # A batch of messages (chat model inputs) nests one level deeper.
        if isinstance(item, list) and item and not all(isinstance(v, str) for v in item):
            yield from reversed(item)
        else:
            yield item

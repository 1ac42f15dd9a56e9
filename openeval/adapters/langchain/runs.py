"""LangChain and LangSmith runs: a run tree, a list of root runs, or a flat LangSmith export.

Every shape is first turned into plain JSON (a ``Run``/``RunTree`` object through its
``model_dump()``/``dict()`` plus its ``child_runs``), then into one list of runs in execution
order. Model runs become ``thought`` steps (one model turn each) followed by the tool calls
their output message requested; tool runs fill in those calls by tool-call id. The mapping
and every judgement call are written down in ``proposals/0011-langchain-adapter.md``.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from typing import Any

import orjson

from openeval.adapters._toolkit import (
    CallPairing,
    Errors,
    Turns,
    dump_object,
    require_activity,
    token_counts,
)
from openeval.adapters._values import epoch_seconds
from openeval.adapters.langchain import messages as lc
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json_compact, join_path
from openeval.models import AgentTrace, TraceStep

PAYLOAD_KEY = "runs"
"""Key holding the runs in a wrapped document: ``{"task_id": ..., "runs": [...]}``."""

RUN_TYPES = frozenset(
    {"llm", "chat_model", "tool", "chain", "retriever", "embedding", "prompt", "parser"}
)
"""The ``run_type`` values LangChain and LangSmith write."""

_MODEL_RUNS = frozenset({"llm", "chat_model"})


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
    dumped = _dump_run(run)
    if not isinstance(dumped, dict):
        return run
    children = getattr(run, "child_runs", None)
    if children:
        dumped["child_runs"] = [_dump_runs(child) for child in children]
    return dumped


def _dump_run(run: Any) -> Any:
    # Python mode keeps datetimes as datetimes, which orjson writes in one fixed form.
    for method in ("model_dump", "dict"):
        dump = getattr(run, method, None)
        if callable(dump):
            try:
                return dump()
            except Exception:  # a foreign object's dump failing is not ours to crash on
                continue
    return run


def _json_default(value: Any) -> Any:
    dumped = dump_object(value)
    if dumped is not value:
        return dumped
    if isinstance(value, (set, frozenset)):
        return sorted(str(item) for item in value)
    return str(value)


def looks_like_run(value: Any) -> bool:
    """True for a dict with the ``run_type`` and ``name`` strings of a LangChain run."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("run_type"), str)
        and isinstance(value.get("name"), str)
    )


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
        # Iterative: a flat export can chain runs through parent_run_id deeper than Python's
        # recursion limit.
        own: list[str] = []
        node: _Run | None = self
        while node is not None and node.dotted is None:
            own.append(f"{_segment_time(node.start)}{node.index:012d}")
            node = node.parent
        base = node.dotted if node is not None and node.dotted is not None else ()
        return (*base, *reversed(own))

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
    payload: Any, error: Errors, prefix: str, item_wheres: list[str] | None = None
) -> list[_Run]:
    """Return every run in ``payload`` (one tree, or a list of trees or flat runs).

    ``item_wheres`` names each list item's place (``line 7`` for JSON Lines); by default it is
    the item's index below ``prefix``.
    """
    roots: list[tuple[Any, str]]
    if isinstance(payload, list):
        wheres = item_wheres or [join_path(prefix, f"[{i}]") for i in range(len(payload))]
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
            raise error("expected a list of runs", join_path(where, "child_runs"))
        for i in reversed(range(len(children))):
            stack.append((children[i], join_path(where, f"child_runs[{i}]"), run))
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


def _check_run(value: Any, where: str, index: int, error: Errors) -> _Run:
    if not isinstance(value, dict):
        raise error("expected a LangChain run (a JSON object)", where or None)
    run_type = value.get("run_type")
    if not isinstance(run_type, str):
        raise error("expected 'run_type' as a string (llm, chat_model, tool, chain ...)",
                    join_path(where, "run_type"))
    name = value.get("name")
    if not isinstance(name, str):
        raise error("expected 'name' as a string", join_path(where, "name"))
    run_id = value.get("id")
    if run_id is not None and not isinstance(run_id, str):
        raise error("expected 'id' as a string", join_path(where, "id"))
    parent_id = value.get("parent_run_id")
    if parent_id is not None and not isinstance(parent_id, str):
        raise error(
            "expected 'parent_run_id' as a string or null", join_path(where, "parent_run_id")
        )
    dotted = value.get("dotted_order")
    if dotted is not None and not isinstance(dotted, str):
        raise error("expected 'dotted_order' as a string or null", join_path(where, "dotted_order"))
    failure = value.get("error")
    if failure is not None and not isinstance(failure, str):
        raise error("expected 'error' as a string or null", join_path(where, "error"))
    return _Run(
        raw=value,
        where=where,
        index=index,
        run_id=run_id if run_id is not None else f"#{index}",
        name=name,
        run_type=run_type,
        parent_id=parent_id,
        start=epoch_seconds(value.get("start_time"), error, join_path(where, "start_time")),
        end=epoch_seconds(value.get("end_time"), error, join_path(where, "end_time")),
        error=_error_summary(failure) if failure else None,
        dotted=tuple(dotted.split(".")) if dotted else None,
    )


def _error_summary(text: str) -> str:
    """Return the exception line of a recorded traceback, or the text itself."""
    # LangChain stores repr(exception) followed by the whole traceback; its last line says it.
    if "Traceback (most recent call last):" in text:
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1]
    return text.strip()


# ---------------------------------------------------------------------------------------------
# Steps


@dataclass
class _StepBuilder:
    """Turns runs, in execution order, into steps, model turns and the conversation."""

    errors: Errors
    steps: list[TraceStep] = field(default_factory=list)
    pairing: CallPairing = field(default_factory=CallPairing)
    turns: Turns = field(default_factory=Turns)
    history: int = 0
    """Input messages the last model run was given."""
    pending_user: str = ""
    """The input of the invocation just entered, for a model run given only a prompt."""

    def add_model_run(self, run: _Run) -> None:
        message, generation = _model_message(run)
        content = lc.text(message.get("content")) if message else ""
        if not content and generation is not None and isinstance(generation.get("text"), str):
            content = generation["text"]
        turn = self.turns.start()
        self._say_inputs(run)
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
            turn=turn,
        )
        self.steps.append(step)
        self.turns.say("assistant", content, turn=turn)
        where = join_path(run.where, "outputs")
        calls = lc.tool_calls(message, where, self.errors) if message else []
        for call_id, tool_step in calls:
            tool_step.timestamp = run.end or run.start or 0.0
            tool_step.turn = turn
            self.steps.append(tool_step)
            self.pairing.expect(tool_step, call_id)
        # A turn that asked for tools, or failed, was not the answer.
        self.turns.answer(content, asked_for_tools=bool(calls) or run.error is not None)

    def _say_inputs(self, run: _Run) -> None:
        """Add the messages a model run was given that the conversation does not hold yet.

        Its input repeats the conversation so far: the first model run's input is all new;
        later, only the human and system messages after the model's last turn in it are (tool
        results come from the tool runs, in the order they ran).
        """
        inputs = _input_messages(run)
        pending, self.pending_user = self.pending_user, ""
        if inputs is None:  # a prompt string, the whole conversation flattened into text
            if pending or self.turns.count == 1:
                self.turns.say("user", pending or _first_prompt(run))
            return
        if self.turns.count == 1:
            fresh, first = inputs, True
        else:
            last_ai = max((i for i, m in enumerate(inputs) if m.get("type") == "ai"), default=-1)
            if last_ai >= 0:
                fresh = inputs[last_ai + 1 :]
            else:  # a new conversation, or an instrumentation that leaves model turns out
                fresh = inputs[self.history :] if len(inputs) >= self.history else inputs
            first = False
        self.history = len(inputs)
        for message in fresh:
            speaker = lc.role(message)
            if speaker in ("user", "system") or (first and speaker is not None):
                name = message.get("name") if speaker == "tool" else None
                self.turns.say(
                    speaker, lc.text(message.get("content")),
                    name=name if isinstance(name, str) else None,
                )

    def add_tool_run(self, run: _Run) -> None:
        call_id = _tool_call_id(run)
        step = self.pairing.take(call_id, run.name)
        result = _tool_output(run)
        if step is None:
            step = TraceStep(step_id=0, type="tool_call", tool_name=run.name)
            lc.set_args(step, run.raw.get("inputs"))
            self.steps.append(step)
        step.timestamp = run.start if run.start is not None else step.timestamp
        step.latency_ms = _latency(run)
        step.tool_result = result.text
        failure = run.error or result.error
        if failure:
            step.error = failure if step.error is None else f"{step.error}; {failure}"
        self.turns.say("tool", result.text or failure or "", name=run.name)
        self.turns.acted()


def build(
    payload: Any,
    *,
    errors: Errors,
    default_task_id: str | None,
    prefix: str = "",
    item_wheres: list[str] | None = None,
) -> AgentTrace:
    """Return the trace of the runs in ``payload`` (a run tree, a list of trees, flat runs).

    ``item_wheres`` names each list item's place (``line 7`` for JSON Lines).
    """
    runs = _collect(payload, errors, prefix, item_wheres)
    ordered = sorted(runs, key=lambda r: (r.sort_key, r.index))
    invocations = _invocations(runs)
    first, last = invocations[0], invocations[-1]
    builder = _StepBuilder(errors)
    starts = [run.start or 0.0 for run in invocations]
    entered = -1
    for run in ordered:
        if run.under_tool():
            continue
        if run.run_type in _MODEL_RUNS:
            # The invocation this run belongs to: the last one started before it.
            current = max(bisect_right(starts, run.start or 0.0) - 1, 0)
            if current > entered:
                builder.pending_user, entered = _root_input(invocations[current]), current
            builder.add_model_run(run)
        elif run.run_type == "tool":
            builder.add_tool_run(run)
    steps = builder.steps
    for number, step in enumerate(steps, start=1):
        step.step_id = number
    final_output = _root_answer(last)
    if final_output is None:
        final_output = builder.turns.final_output if builder.turns.count else _root_json(last)
    metadata: dict[str, Any] = {"run_id": first.run_id, "run_name": first.name}
    if len(invocations) > 1:
        metadata["run_ids"] = [run.run_id for run in invocations]
    task_id = _run_metadata(first).get("task_id")
    if not isinstance(task_id, str) or not task_id:
        task_id = default_task_id or first.name
    trace = AgentTrace(
        task_id=task_id,
        input=_root_input(first),
        steps=steps,
        final_output=final_output,
        metadata=metadata,
        messages=builder.turns.messages,
        signals=[],  # runs record no denial and no replay (docs/semantics.md#no-vacuous-passes)
    )
    return require_activity(trace, errors, "no model or tool run, and no input or output text")


def _invocations(runs: list[_Run]) -> list[_Run]:
    """Return the root runs that are invocations of the agent, in the order they started.

    ``collect_runs()`` around a LangGraph agent lists, besides the graph's root run, inner
    runs it could not attach to it; those run within the root's time span and are not
    invocations. Two ``invoke`` calls under one collector give two roots side by side. Roots
    without times are one invocation, the first listed.
    """
    roots = [run for run in runs if run.parent is None]
    timed = sorted(
        (r for r in roots if r.start is not None and r.end is not None),
        key=lambda r: (r.start, -(r.end or 0.0), r.index),
    )
    if not timed:
        return [min(roots, key=lambda r: r.index)]
    tops: list[_Run] = []
    for run in timed:
        outer = tops[-1] if tops else None
        if outer is not None and outer.end is not None and run.end is not None and (
            run.end <= outer.end
        ):
            continue  # inside the invocation before it
        tops.append(run)
    return tops


def _run_metadata(run: _Run) -> dict[str, Any]:
    extra = run.raw.get("extra")
    metadata = extra.get("metadata") if isinstance(extra, dict) else None
    if isinstance(metadata, dict):
        return metadata
    top = run.raw.get("metadata")
    return top if isinstance(top, dict) else {}


# ---------------------------------------------------------------------------------------------
# Messages


def _input_messages(run: _Run) -> list[dict[str, Any]] | None:
    """Return the messages a model run was given (the first batch), normalised.

    None when the run was given prompt strings instead (an ``llm`` run), whose text flattens
    the whole conversation and cannot be split back into messages.
    """
    inputs = run.raw.get("inputs")
    if not isinstance(inputs, dict):
        return []
    messages = inputs.get("messages")
    if isinstance(messages, list):
        batch = messages[0] if messages and _is_batch(messages[0]) else messages
        return [m for m in (lc.normalize(v) for v in batch) if m is not None]
    return None if _first_prompt(run) else []


def _first_prompt(run: _Run) -> str:
    inputs = run.raw.get("inputs")
    prompts = inputs.get("prompts") if isinstance(inputs, dict) else None
    if isinstance(prompts, list) and prompts and isinstance(prompts[0], str):
        return prompts[0]
    return ""


def _is_batch(item: Any) -> bool:
    """True for a list of messages (a batch), not a ``(role, text)`` pair."""
    return isinstance(item, list) and bool(item) and not all(isinstance(v, str) for v in item)


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
            return lc.normalize(first.get("message")), first
        return None, None
    for key in ("output", "message"):
        message = lc.normalize(outputs.get(key))
        if message is not None:
            return message, None
    return None, None


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
        message = lc.normalize(outputs.get("output"))
        if message is not None and isinstance(message.get("tool_call_id"), str):
            return str(message["tool_call_id"])
    return None


def _tool_output(run: _Run) -> _ToolOutput:
    """Return the tool run's result text, and the error a ToolMessage with status error holds."""
    outputs = run.raw.get("outputs")
    if outputs is None or outputs == {}:
        return _ToolOutput(None, None)
    value = outputs.get("output", outputs) if isinstance(outputs, dict) else outputs
    message = lc.normalize(value)
    if message is not None and message.get("type") == "tool":
        return _ToolOutput(*lc.tool_result(message))
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


def _counts(place: dict[str, Any], keys: tuple[str, str, str]) -> dict[str, int] | None:
    return token_counts(
        (name, place.get(key)) for name, key in zip(("input", "output", "total"), keys, strict=True)
    )


def _latency(run: _Run) -> float | None:
    if run.start is None or run.end is None:
        return None
    return round((run.end - run.start) * 1000.0, 3)


# ---------------------------------------------------------------------------------------------
# The root run: input and final output


def _root_input(root: _Run) -> str:
    return _as_text(root.raw.get("inputs"), want="human")


def _root_answer(root: _Run) -> str | None:
    """Return the text the root run answered with; None when its output holds no text.

    A model root is left to the model step (its raw output is an LLMResult, not an answer).
    """
    if root.run_type in _MODEL_RUNS or root.run_type == "tool":
        return None
    return _find_text(root.raw.get("outputs"), want="ai", depth=0)


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
    message = lc.normalize(value)
    if message is not None:
        return lc.text(message.get("content"))
    if not isinstance(value, dict) or depth > 2:
        return None
    messages = value.get("messages")
    if isinstance(messages, list):
        for item in _reversed(messages):
            found = lc.normalize(item)
            if found is not None and found.get("type") == want:
                # An AI message that still asks for tools is no answer: the run was cut short.
                return "" if found.get("tool_calls") else lc.text(found.get("content"))
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

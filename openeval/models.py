"""The data model every other part of OpenEval speaks.

Adapters turn trace files into an :class:`AgentTrace` of :class:`TraceStep` s; a test case file
becomes an :class:`EvalTestCase`; a metric compares the two and returns a :class:`MetricResult`.
Field names are the public API (and the keys of the JSON files), so they never change.

``to_dict`` gives plain JSON values; ``from_dict(to_dict(x)) == x`` for every class. ``from_dict``
expects a document that has passed the schemas in :mod:`openeval.schemas` (the file readers
check that first); it only refuses unknown keys, so a typo never silently drops a check.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from functools import cache
from typing import Any, Literal, TypeVar, get_args

from openeval.errors import OpenEvalError

StepType = Literal["thought", "tool_call", "tool_result", "output"]
STEP_TYPES: tuple[str, ...] = get_args(StepType)

JSONDict = dict[str, Any]

_T = TypeVar("_T")


@cache
def _field_names(cls: type) -> frozenset[str]:
    return frozenset(f.name for f in fields(cls))


SCHEMA_KEY = "$schema"
"""The top-level key naming a file's JSON Schema (for editors); test cases and native traces
may hold it, and it means nothing to OpenEval (proposals/0192-published-schemas.md)."""


def _without_schema_key(data: JSONDict) -> JSONDict:
    if SCHEMA_KEY not in data:
        return data
    return {key: value for key, value in data.items() if key != SCHEMA_KEY}


def _check_keys(cls: type, data: JSONDict, where: str) -> None:
    """Raise when ``data`` holds a key that ``cls`` has no field for."""
    known = _field_names(cls)
    if data.keys() <= known:  # the usual case, checked without building sets (hot path)
        return
    unknown = sorted(set(data) - known)
    if unknown:
        raise OpenEvalError(
            f"unknown key {unknown[0]!r}; expected one of: {', '.join(sorted(known))}",
            location=where or None,
        )


@dataclass
class TraceStep:
    """One thing the agent did: a thought, a tool call (with its result), or output."""

    step_id: int
    """Position or id of the step, as the source numbered it."""
    type: StepType
    """``thought`` (model turn), ``tool_call``, ``tool_result`` (unpaired) or ``output``."""
    content: str = ""
    """Text of the step: the model's words, or the tool result text for ``tool_result``."""
    tool_name: str | None = None
    """Name of the tool called; None for steps that are not tool calls."""
    tool_args: dict[str, Any] | None = None
    """Arguments of the call as a JSON object; None when the step has none."""
    tool_result: str | None = None
    """What the tool returned, as text; None when not (yet) known."""
    timestamp: float = 0.0
    """Start time in seconds since the epoch; 0.0 when the source gives none."""
    error: str | None = None
    """Why the call failed or did not run; None when it succeeded."""
    denied: bool = False
    """True when the call never ran: permission denied, validation error, rate limited."""
    finish_reason: str | None = None
    """Why the model stopped (``stop``, ``tool_calls``, ``end_turn`` ...), for model steps."""
    provider: str | None = None
    """Model provider (``openai``, ``anthropic`` ...), for model steps."""
    model: str | None = None
    """Model name, for model steps."""
    tokens: dict[str, int] | None = None
    """Token usage, e.g. ``{"input": 12, "output": 40}``; None when unknown."""
    latency_ms: float | None = None
    """Duration of the step in milliseconds; None when unknown."""
    divergent: bool = False
    """True on a step where a replayed run left the recorded trajectory."""
    turn: int | None = None
    """The model turn that made this step (0-based); steps sharing a turn were decided together
    (parallel tool calls of one assistant message), so they have no order among themselves.
    None when the source does not say."""

    def to_dict(self) -> JSONDict:
        """Return the step as a JSON object with every field."""
        return {
            "step_id": self.step_id,
            "type": self.type,
            "content": self.content,
            "tool_name": self.tool_name,
            "tool_args": self.tool_args,
            "tool_result": self.tool_result,
            "timestamp": self.timestamp,
            "error": self.error,
            "denied": self.denied,
            "finish_reason": self.finish_reason,
            "provider": self.provider,
            "model": self.model,
            "tokens": self.tokens,
            "latency_ms": self.latency_ms,
            "divergent": self.divergent,
            "turn": self.turn,
        }

    @classmethod
    def from_dict(cls, data: JSONDict, *, where: str = "") -> TraceStep:
        """Build a step from its JSON object; missing optional keys take their defaults."""
        _check_keys(cls, data, where)
        if cls is not TraceStep or "step_id" not in data or "type" not in data:
            return cls(**data)  # a subclass, or a missing field: the constructor decides
        # The constructor's work, as two dict updates: a trace of many steps is read on the
        # hot path of every run, and keyword arguments cost more than the copy.
        step = object.__new__(cls)
        step.__dict__.update(_STEP_DEFAULTS)
        step.__dict__.update(data)
        return step


_STEP_DEFAULTS: JSONDict = {
    f.name: None if f.name in ("step_id", "type") else f.default for f in fields(TraceStep)
}
"""Every TraceStep field in order with its default (plain values; the two required fields,
which every document given to ``from_dict`` has, hold None until the document's own)."""


Signal = Literal["denials", "divergence"]
SIGNALS: tuple[str, ...] = get_args(Signal)

MessageRole = Literal["system", "user", "assistant", "tool"]
MESSAGE_ROLES: tuple[str, ...] = get_args(MessageRole)


@dataclass
class Message:
    """One turn of the conversation: what the user, the system, the agent or a tool said."""

    role: MessageRole
    """``system``, ``user``, ``assistant`` (the agent's words) or ``tool`` (a tool's result)."""
    content: str = ""
    """The turn's text; empty for an assistant turn that only called tools."""
    name: str | None = None
    """The tool's name for a ``tool`` turn; None otherwise."""
    turn: int | None = None
    """For an assistant message: the model turn it was (matches ``TraceStep.turn``)."""

    def to_dict(self) -> JSONDict:
        """Return the message as a JSON object with every field."""
        return {"role": self.role, "content": self.content, "name": self.name, "turn": self.turn}

    @classmethod
    def from_dict(cls, data: JSONDict, *, where: str = "") -> Message:
        """Build a message from its JSON object; missing optional keys take their defaults."""
        _check_keys(cls, data, where)
        return cls(**data)


@dataclass
class AgentTrace:
    """What an agent did on one task: its steps, final answer and final state."""

    task_id: str
    """Identifier of the task the agent ran."""
    input: str = ""
    """The task as given to the agent."""
    steps: list[TraceStep] = field(default_factory=list)
    """Everything the agent did, in execution order."""
    final_output: str = ""
    """The agent's last answer; empty when it gave none."""
    actual_state: dict[str, Any] = field(default_factory=dict)
    """The environment's state after the run, compared with the expected final state."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Anything else the source carried: fingerprint, drift verdict, run ids ..."""
    messages: list[Message] = field(default_factory=list)
    """The whole conversation in order (system, user, assistant and tool turns); empty when the
    source kept only ``input`` and ``final_output`` (openeval-core 0.2.1 traces)."""
    signals: list[Signal] | None = None
    """Which signals the trace's source can record: ``denials`` (a refused call is marked
    ``denied``) and ``divergence`` (a replay marks ``divergent`` steps). None: all of them (a
    trace built in Python or read from native JSON). A metric judging a signal the source cannot
    record is not applicable rather than passed for lack of evidence
    (docs/semantics.md#no-vacuous-passes)."""
    tool_definitions: list[dict[str, Any]] = field(default_factory=list)
    """The tools the agent was offered, as the trace records them: ``{"name": ...,
    "description": ..., "parameters": JSON Schema}`` each; empty when the source records none."""
    initial_state: dict[str, Any] | None = None
    """The environment's state before the run, when the source records it; None otherwise."""

    def records(self, signal: Signal) -> bool:
        """Return True when the trace's source can record ``signal``."""
        return self.signals is None or signal in self.signals

    def run_duration(self) -> RunDuration | None:
        """Return how long the run took, or None when the trace cannot show it (see
        :func:`run_duration`)."""
        return run_duration(self.steps)

    def tool_calls(self) -> list[TraceStep]:
        """Return the steps of type ``tool_call``, denied ones included, in order."""
        return [step for step in self.steps if step.type == "tool_call"]

    def to_dict(self) -> JSONDict:
        """Return the trace as a JSON object (the ``openeval`` native trace format)."""
        return {
            "task_id": self.task_id,
            "input": self.input,
            "steps": [step.to_dict() for step in self.steps],
            "final_output": self.final_output,
            "actual_state": self.actual_state,
            "metadata": self.metadata,
            "messages": [message.to_dict() for message in self.messages],
            "signals": self.signals,
            # Written only when set, so traces and result files from before these keys existed
            # keep their bytes.
            **({"tool_definitions": self.tool_definitions} if self.tool_definitions else {}),
            **({"initial_state": self.initial_state} if self.initial_state is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> AgentTrace:
        """Build a trace from its JSON object; missing optional keys take their defaults (a
        top-level ``"$schema"`` is ignored)."""
        data = _without_schema_key(data)
        _check_keys(cls, data, "")
        values = dict(data)
        values["steps"] = [_step(step, i) for i, step in enumerate(values.get("steps", []))]
        values["messages"] = [
            Message.from_dict(message, where=f"messages[{i}]")
            for i, message in enumerate(values.get("messages", []))
        ]
        return cls(**values)


@dataclass(frozen=True)
class RunDuration:
    """How long a run took, and what it was measured from."""

    seconds: float
    milliseconds: float
    """The same figure in milliseconds, computed from the source's own unit (so a sum of
    ``latency_ms`` is not rounded through seconds)."""
    source: Literal["timestamps", "latency"]
    """``timestamps``: the span of the step timestamps; ``latency``: the sum of ``latency_ms``."""


def run_duration(steps: list[TraceStep]) -> RunDuration | None:
    """Return how long a run of ``steps`` took, or None when the steps cannot show it.

    The one rule every duration limit uses (``step_budget``'s ``timeout_seconds``,
    ``total_duration``, ``token_latency_budget``): the span from the earliest to the latest
    step timestamp when two steps carry distinct positive ones (0 means "no timestamp"); else
    the sum of the ``latency_ms`` of the steps that have one; else None.

    Raises OpenEvalError naming the step when a figure it would measure with is not a
    duration: a timestamp that is not finite, or a ``latency_ms`` that is negative or not
    finite. It is bad input, so an error, never "not checked": summed, a negative latency
    would cancel real time and let a slow run pass its limit; left out, the sum would be too
    small (proposals/0103-one-rule-per-figure.md).
    """
    import math

    stamps = [step.timestamp for step in steps]
    if all(map(math.isfinite, stamps)):
        # The usual trace, every timestamp finite: its span found in C. The loop below gives
        # the same figure, and is the one that names a step whose figure is no duration.
        positive = [stamp for stamp in stamps if stamp > 0]
        if positive:
            earliest, latest = min(positive), max(positive)
            if latest > earliest:
                span = latest - earliest
                if math.isfinite(span * 1000.0):
                    return RunDuration(span, span * 1000.0, "timestamps")
    return _run_duration(steps)


def _run_duration(steps: list[TraceStep]) -> RunDuration | None:
    """:func:`run_duration` step by step: the rule as written, and every error it names."""
    import math

    earliest = latest = 0.0
    latencies: list[tuple[TraceStep, float]] = []
    for step in steps:
        stamp = step.timestamp
        if not math.isfinite(stamp):
            raise OpenEvalError(_not_a_duration(step, "timestamp", stamp, "seconds"))
        if stamp > 0:
            earliest = stamp if not earliest or stamp < earliest else earliest
            latest = max(latest, stamp)
        if step.latency_ms is not None:
            latencies.append((step, step.latency_ms))
    if latest > earliest:
        span = latest - earliest
        if not math.isfinite(span * 1000.0):  # hostile timestamps: no figure, not infinity
            raise OpenEvalError(f"the step timestamps span {span:g} s, not a duration: the "
                                "run's duration cannot be known")
        return RunDuration(span, span * 1000.0, "timestamps")
    if not latencies:
        return None
    for step, value in latencies:
        if not (math.isfinite(value) and value >= 0):
            raise OpenEvalError(_not_a_duration(step, "latency_ms", value, "0 ms or more"))
    try:
        total = math.fsum(value for _, value in latencies)
    except OverflowError:  # fsum's own word for a partial sum past a float's range
        total = math.inf
    if not math.isfinite(total):  # a sum past a float's range (hostile input)
        raise OpenEvalError("the steps' latency_ms add up past any duration: the run's "
                            "duration cannot be known")
    return RunDuration(total / 1000.0, total, "latency")


def _not_a_duration(step: TraceStep, name: str, value: float, expected: str) -> str:
    return (f"step {step.step_id}: {name} is {value!r}, not a duration (expected {expected}): "
            "the run's duration cannot be known")


def _step(data: JSONDict, index: int) -> TraceStep:
    """Return ``TraceStep.from_dict(data, where=f"steps[{index}]")``, the usual step (known
    keys, both required ones) built without making its JSON path."""
    if type(data) is dict and data.keys() <= _field_names(TraceStep) and (
        "step_id" in data and "type" in data
    ):
        step = object.__new__(TraceStep)
        step.__dict__.update(_STEP_DEFAULTS)
        step.__dict__.update(data)
        return step
    return TraceStep.from_dict(data, where=f"steps[{index}]")


@dataclass
class EvalTestCase:
    """What the agent should have done on one task."""

    __test__ = False  # not a pytest test class, despite the name

    task_id: str
    """Identifier of the task; also names the case in reports."""
    input: str = ""
    """The task as given to the agent."""
    expected_tool_calls: list[dict[str, Any]] = field(default_factory=list)
    """Calls the agent should make: ``{"tool": name, "args": {...}}``, ``args`` optional."""
    expected_final_state: dict[str, Any] = field(default_factory=dict)
    """Keys the final state must hold, with their values."""
    expected_output_contains: list[str] = field(default_factory=list)
    """Substrings the final output must contain."""
    max_steps: int | None = None
    """Most tool calls allowed (denied ones count); None for no limit."""
    timeout_seconds: float | None = None
    """Longest run allowed; None for no limit."""
    optimal_steps: int | None = None
    """Tool calls an ideal run makes; None to use the number of expected tool calls."""
    thresholds: dict[str, float] = field(default_factory=dict)
    """Pass line per metric name, overriding the metric's default."""
    metrics: list[str] | None = None
    """Names of the metrics to run; None for every built-in metric."""
    trace: str | None = None
    """Path of the case's trace, relative to the test case file; not used in scoring."""
    expected_output: Any = None
    """The reference answer (a text or any JSON value) that similarity checks compare the
    final output with; None when the case gives none."""
    checks: list[dict[str, Any]] = field(default_factory=list)
    """Check entries: ``{"check": name, ...settings, "name": ..., "threshold": ...}``."""
    trajectory: dict[str, Any] | None = None
    """How the executed calls must match ``expected_tool_calls`` (``trajectory_match``);
    None when the case does not ask for trajectory matching."""
    denied_when: list[str] = field(default_factory=list)
    """Patterns (Python regular expressions, case-insensitive) that mark a tool call denied when
    one is found in its error or result text: the denial rule for formats with no denial field
    (``permission denied`` in an OpenAI loop's tool message)."""
    agent_spec: str | None = None
    """The current agent to drift-check this case's Fixtura trace against (``module:attr``,
    as ``fixtura check-drift --agent`` takes it); wins over the suite's and ``--agent-spec``.
    None to use theirs. Not used in scoring."""
    turns: list[dict[str, Any]] | None = None
    """Expectations per user turn (``turn_expectations``): ``{"user": k, ...}`` entries; None
    when the case has none."""
    state: dict[str, Any] | None = None
    """The final state as a frame condition (``state_diff``): ``initial``, ``changes``,
    ``allowed``, ``final``; None when the case does not ask for it."""

    def to_dict(self) -> JSONDict:
        """Return the test case as a JSON object with every field (``state`` when set)."""
        return {
            "task_id": self.task_id,
            "input": self.input,
            "expected_tool_calls": self.expected_tool_calls,
            "expected_final_state": self.expected_final_state,
            "expected_output_contains": self.expected_output_contains,
            "max_steps": self.max_steps,
            "timeout_seconds": self.timeout_seconds,
            "optimal_steps": self.optimal_steps,
            "thresholds": self.thresholds,
            "metrics": self.metrics,
            "trace": self.trace,
            "expected_output": self.expected_output,
            "checks": self.checks,
            "trajectory": self.trajectory,
            "denied_when": self.denied_when,
            "agent_spec": self.agent_spec,
            **({"turns": self.turns} if self.turns is not None else {}),
            **({"state": self.state} if self.state is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> EvalTestCase:
        """Build a test case from its JSON object; missing optional keys take their defaults
        (a top-level ``"$schema"`` is ignored)."""
        data = _without_schema_key(data)
        _check_keys(cls, data, "")
        return cls(**data)


@dataclass(frozen=True)
class MetricResult:
    """The verdict of one metric on one trace."""

    metric_name: str
    """The metric's stable snake_case name, e.g. ``tool_selection_accuracy``."""
    score: float
    """A value in [0, 1]; 1.0 is best."""
    passed: bool | None
    """True or False when the metric applies; None when the test case gives it nothing to judge."""
    details: str
    """One line a person reading a CI log can act on: what was missing, extra or different."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"{self.metric_name}: score {self.score!r} is outside [0, 1]")

    def to_dict(self) -> JSONDict:
        """Return the result as a JSON object."""
        return {
            "metric_name": self.metric_name,
            "score": self.score,
            "passed": self.passed,
            "details": self.details,
        }

    @classmethod
    def from_dict(cls, data: JSONDict) -> MetricResult:
        """Build a result from its JSON object."""
        _check_keys(cls, data, "")
        return cls(**data)

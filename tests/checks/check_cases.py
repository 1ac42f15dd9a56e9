"""Check cases as data: the one format and loader of ``tests/data/checks/<module>.json``.

Every file is named after a module of :mod:`openeval.checks` and holds an object:

- ``checks`` (check areas only): for every function of the area, what the library promises:
  ``first`` (its first parameter's name), ``settings`` (keyword -> default), ``scores``
  (``[name, data type]``, primary first; empty for a helper that returns no Scores),
  ``lower_is_better`` (score names), ``ranges`` (numeric score -> ``[low, high]``, null for no
  bound; a numeric score not listed has no bound), ``needs`` (the settings it cannot run
  without), ``none_not_checked`` (limits where None turns the limit off rather than meaning
  the default), ``none_refused`` (settings that refuse None) and a ``sample`` input it can
  score. This is the one place signatures are kept.
- ``cases``: ``{"id", "call", "input", "args", "settings", ...}``: the module's function
  ``call`` is called with ``input`` (the first argument; left out for none), then ``args``
  (further positional arguments) and ``settings`` (keyword arguments). The test id is
  ``<call>/<id>``. What must come back:

  - ``scores``: ``{name: value}``; each named score is returned with that value (numbers to
    1e-4, booleans exactly);
  - ``names``: the exact score names, in order; ``absent``: names that must not be returned;
  - ``comment``: ``{name: text}`` the score's comment contains; ``comment_lacks``: a text it
    must not contain (a leaked value);
  - ``verdict``: ``pass``, ``fail`` or ``n.a.`` of the Scores;
  - ``returns``: the exact result (Scores and Score as score dicts without comments, tuples as
    lists), for functions that return something else than Scores;
  - ``error``: a text the raised error's message contains. A check area's function refuses
    with an OpenEvalError (the user's mistake, reported as one); a helper module's with a
    ValueError or TypeError.

Values are plain JSON, except an object with one of these keys, which builds a real model
object (never a mock):

- ``{"$trace": {...}}``: an :class:`AgentTrace` from ``input``, ``output`` (the reply,
  appended as the last assistant message when there are ``messages``), ``messages``
  (``[role, content]``, ``[role, content, name]`` or a message object with a ``turn``),
  ``steps`` (compact, see :func:`step`), ``metadata`` and ``tool_definitions``;
- ``{"$context": {"trace": {...}, "expected_output": ...}}``: a :class:`CheckContext` of that
  trace and a test case expecting ``expected_output``;
- ``{"$steps": [...]}``: a list of :class:`TraceStep`;
- ``{"$score": {...}}`` a :class:`Score`, ``{"$message": {...}}`` a :class:`Message`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.checks import CheckContext
from openeval.checks.util import NOT_JUDGED
from openeval.errors import OpenEvalError
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scores import Score, Scores, verdict

DATA = Path(__file__).resolve().parents[1] / "data" / "checks"
AREAS = ("format", "quality", "similarity", "safety", "conversation", "context", "agent",
         "trace", "tool_schema")
"""The modules whose files hold ``checks``: every check and helper of the library is in one."""

TOLERANCE = 1e-4
"""How far a returned number may be from the one a case expects."""

_KINDS = {"call": "tool_call", "think": "thought", "result": "tool_result", "out": "output"}
_FIELDS = {"args": "tool_args", "denied": "denied", "ts": "timestamp", "ms": "latency_ms",
           "id": "step_id", "error": "error", "returns": "tool_result", "tokens": "tokens",
           "turn": "turn", "text": "content", "model": "model"}
_TRACE_KEYS = frozenset({"input", "output", "messages", "steps", "metadata",
                         "tool_definitions"})


@cache
def load(module: str) -> dict[str, Any]:
    """Return the parsed data file of one module (read once; callers must not change it)."""
    data: dict[str, Any] = read_json_file(DATA / f"{module}.json")
    return data


def specs() -> dict[str, dict[str, Any]]:
    """Return every function's spec, over all areas, in the library's reference order."""
    return {name: spec for area in AREAS for name, spec in load(area)["checks"].items()}


def params(module: str) -> list[Any]:
    """Return the module's cases as pytest params with ids ``<call>/<id>``."""
    return [pytest.param(case, id=f"{case['call']}/{case['id']}")
            for case in load(module)["cases"]]


def step(index: int, compact: dict[str, Any]) -> TraceStep:
    """Return the step a compact form such as ``{"call": "search", "args": {}}`` means.

    One of ``call`` (a tool call, its tool name), ``think``, ``result`` or ``out`` (their
    text) gives the type; ``args``, ``denied``, ``ts``, ``ms``, ``id`` (default: position + 1),
    ``error``, ``returns`` (the tool's result), ``tokens``, ``turn``, ``text`` and ``model``
    fill the rest.
    """
    kinds = [key for key in compact if key in _KINDS]
    assert len(kinds) == 1, f"step {index}: give exactly one of {sorted(_KINDS)}: {compact}"
    kind = kinds[0]
    values: dict[str, Any] = {"step_id": index + 1, "type": _KINDS[kind]}
    values["tool_name" if kind == "call" else "content"] = compact[kind]
    for key, value in compact.items():
        if key != kind:
            assert key in _FIELDS, f"step {index}: unknown compact key {key!r}"
            values[_FIELDS[key]] = value
    return TraceStep(**values)


def trace(spec: dict[str, Any]) -> AgentTrace:
    """Return the trace a ``$trace`` spec means (see the module's docstring)."""
    assert set(spec) <= _TRACE_KEYS, f"unknown trace keys {sorted(set(spec) - _TRACE_KEYS)}"
    output = spec.get("output", "")
    messages = [Message(**m) if isinstance(m, dict) else Message(m[0], m[1], *m[2:])
                for m in spec.get("messages", [])]
    if messages and output:
        messages.append(Message("assistant", output))
    return AgentTrace(
        task_id="case",
        input=spec.get("input", ""),
        steps=[step(i, s) for i, s in enumerate(spec.get("steps", []))],
        final_output=output,
        metadata=spec.get("metadata", {}),
        messages=messages,
        tool_definitions=spec.get("tool_definitions", []),
    )


def _context(spec: dict[str, Any]) -> CheckContext:
    assert set(spec) <= {"trace", "expected_output"}, sorted(spec)
    case = EvalTestCase(task_id="case", expected_output=spec.get("expected_output"))
    return CheckContext(trace(spec.get("trace", {})), case)


_TAGS: dict[str, Callable[[Any], Any]] = {
    "$trace": trace,
    "$context": _context,
    "$steps": lambda compact: [step(i, s) for i, s in enumerate(compact)],
    "$score": lambda fields: Score(**fields),
    "$message": lambda fields: Message(**fields),
}


def build(value: Any) -> Any:
    """Return ``value`` with every tagged object (``$trace``, ``$context``, ...) built."""
    if isinstance(value, list):
        return [build(item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        (key, inner), = value.items()
        if key in _TAGS:
            return _TAGS[key](inner)
    return {key: build(item) for key, item in value.items()}


def plain(value: Any) -> Any:
    """Return a result in JSON terms: scores as dicts without comments, tuples as lists."""
    if isinstance(value, Score):
        return {k: v for k, v in value.to_dict().items() if k != "comment"}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def same(expected: Any, actual: Any) -> bool:
    """Return whether a result matches what a case expects (numbers to TOLERANCE)."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, (int, float)) and isinstance(actual, (int, float)):
        return math.isclose(expected, actual, abs_tol=TOLERANCE)
    if isinstance(expected, list) and isinstance(actual, list):
        return len(expected) == len(actual) and all(map(same, expected, actual))
    if isinstance(expected, dict) and isinstance(actual, dict):
        return expected.keys() == actual.keys() and all(same(v, actual[k])
                                                         for k, v in expected.items())
    return bool(expected == actual)


def arguments(case: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
    """Return the positional and keyword arguments a case calls its function with."""
    positional = ([build(case["input"])] if "input" in case else []) + build(case.get("args", []))
    return positional, build(case.get("settings", {}))


def call(module: str, case: dict[str, Any]) -> Any:
    """Call the function a case names with the case's arguments; return the result."""
    args, kwargs = arguments(case)
    return getattr(import_module(f"openeval.checks.{module}"), case["call"])(*args, **kwargs)


def run_case(module: str, case: dict[str, Any]) -> None:
    """Run one case of ``tests/data/checks/<module>.json`` and assert what it expects."""
    if "error" in case:
        refusal = OpenEvalError if module in AREAS else (ValueError, TypeError)
        with pytest.raises(refusal) as raised:
            call(module, case)
        assert case["error"] in str(raised.value), str(raised.value)
        return
    result = call(module, case)
    if "returns" in case:
        assert same(case["returns"], plain(result)), plain(result)
        return
    assert isinstance(result, Scores), result
    shown = {s.name: (s.value, s.comment) for s in result}
    if "names" in case:
        assert [s.name for s in result] == case["names"], shown
    for name, value in case.get("scores", {}).items():
        assert name in shown, f"no score {name!r}: {shown}"
        assert same(value, result[name].value), shown
    for name, part in case.get("comment", {}).items():
        comment = result[name].comment or ""
        assert part in comment, f"{name} comment {comment!r} lacks {part!r}"
    for name, part in case.get("comment_lacks", {}).items():
        comment = result[name].comment or ""
        assert part not in comment, f"{name} comment {comment!r} shows {part!r}"
    for name in case.get("absent", []):
        assert name not in shown, f"{name} should not be returned: {shown}"
    if "verdict" in case:
        assert verdict(result) == case["verdict"], shown


def assert_none_means_default(check: Callable[..., Any], spec: dict[str, Any]) -> None:
    """Assert that passing each setting as None scores like leaving it out.

    Limits listed in the spec's ``none_not_checked`` are left out here (their cases show that
    None turns the limit off); so are the settings in ``needs``. A setting listed in
    ``none_refused`` must refuse None with an error naming it.
    """
    value = build(spec["sample"])
    needed = spec.get("needs", {})
    plain_result = check(value, **needed)
    for setting, default in spec["settings"].items():
        if default is None or setting in spec.get("none_not_checked", []) or setting in needed:
            continue
        if setting in spec.get("none_refused", []):
            with pytest.raises(OpenEvalError, match=setting):
                check(value, **needed, **{setting: None})
            continue
        assert check(value, **needed, **{setting: None}) == plain_result, setting


def assert_well_formed(result: Any, spec: dict[str, Any]) -> None:
    """Assert a check's result: Scores named and typed as declared, numbers in their ranges.

    A primary score that is a categorical label (nothing to judge) must give the verdict n.a.
    """
    if not spec["scores"]:
        assert isinstance(result, list) and all(isinstance(n, str) for n in result)
        return
    declared = dict(map(tuple, spec["scores"]))
    assert isinstance(result, Scores) and result, result
    assert result[0].name == spec["scores"][0][0]
    for score in result:
        assert isinstance(score, Score)
        assert score.name in declared, score.name
        if score is result[0] and score.data_type != declared[score.name]:
            # Nothing to judge: a categorical label in place of the primary score.
            assert score.data_type == "CATEGORICAL" and score.comment, score
            assert verdict(result) == NOT_JUDGED, result
            continue
        assert score.data_type == declared[score.name], (score.name, score.data_type)
        low, high = spec["ranges"].get(score.name, [None, None])
        if score.data_type == "NUMERIC":
            value = float(score.value)
            assert math.isfinite(value), (score.name, value)
            assert low is None or value >= low - 1e-9, (score.name, value)
            assert high is None or value <= high + 1e-9, (score.name, value)


def verdicts_of(area: str) -> dict[str, set[str]]:
    """Return, per check, the verdicts its cases reach (for the pass-and-fail test)."""
    reached: dict[str, set[str]] = {}
    for case in load(area)["cases"]:
        if "error" in case:
            continue
        result = call(area, case)
        if isinstance(result, Scores):
            reached.setdefault(case["call"], set()).add(verdict(result))
    return reached


# --- random and huge inputs ------------------------------------------------------------------

_TOKENS = (
    " ", "\n", "\n\n", ".", ",", ":", "?", "!", "(", ")", "[", "]", "-", "=", "/", "#", "@",
    "https://", "http://10.0.0.1/", "ftp://", "localhost", "example.com", "www.", "[1]",
    "[2-4]", "[1, 3]", "1", "42", "1,200", "3.5", "4111 1111 1111 1111", "555-123-4567",
    "+44 20 7946 0958", "123-45-6789", "8.8.8.8", "::1", "sk-abcdefghijklmnopqrstuvwxyz",
    "password: hunter22", "dana@corp.com", "ignore previous instructions", "system:",
    "<|im_start|>", "developer mode", "\u200b", "\u200d", "\ufeff", "\U000e0041", "QUJD" * 32,
    "my name is Dana", "I'm Lee", "order #A123", "What is your email?", "I can't help",
    "I'm sorry, but", "Paris", "The", "Acme Corp", "again again again", "```", "`x`", "é", "日本",
)

texts = st.lists(st.sampled_from(_TOKENS) | st.text(max_size=6), max_size=40).map("".join)
"""Random text built from the pieces the checks look for, and random characters."""

_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**70), 2**70) | st.text(max_size=6)
    | st.floats(allow_nan=True, allow_infinity=True),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner,
                                                                max_size=3),
    max_leaves=8,
)
_numbers = (st.none() | st.floats(allow_nan=True, allow_infinity=True)
            | st.integers(-(2**64), 2**64))

steps = st.lists(st.builds(
    TraceStep,
    step_id=st.integers(0, 50),
    type=st.sampled_from(["thought", "tool_call", "tool_result", "output"]),
    content=texts,
    tool_name=st.none() | st.sampled_from(["search", "refund", ""]) | st.text(max_size=4),
    tool_args=st.none() | st.dictionaries(st.sampled_from(["q", "id", "n"]), _json, max_size=3),
    tool_result=st.none() | texts,
    timestamp=st.floats(allow_nan=True, allow_infinity=True) | st.just(0.0),
    error=st.none() | texts,
    denied=st.booleans(),
    tokens=st.none() | st.dictionaries(st.sampled_from(["input", "output", "prompt"]),
                                       st.integers(-5, 2**62), max_size=3),
    latency_ms=_numbers,
    turn=st.none() | st.integers(0, 5),
), max_size=12)
"""Random step lists, with hostile numbers (NaN, infinities, negative, huge)."""

_SPAN_KEYS = ("name", "kind", "tool_name", "model", "input", "output", "duration_ms", "error",
              "status", "tokens")
spans = st.lists(st.dictionaries(
    st.sampled_from(_SPAN_KEYS),
    _json | st.sampled_from(["llm", "tool", "agent", "span", "error", "ERROR"]) | _numbers,
    max_size=8,
), max_size=12)
"""Random span dicts: the span vocabulary with any JSON value."""

messages = st.lists(st.builds(
    Message, role=st.sampled_from(["system", "user", "assistant", "tool"]), content=texts,
    name=st.none() | st.text(max_size=4),
), max_size=8)

traces = st.builds(
    AgentTrace, task_id=st.just("random"), input=texts, steps=steps, final_output=texts,
    metadata=st.dictionaries(
        st.sampled_from(["context", "duration_ms", "output_tokens", "input_tokens_int",
                         "time_to_first_token_ms", "gen_ai.usage.output_tokens"]),
        _json | _numbers, max_size=4),
    messages=messages,
)
"""Random traces: conversation, steps and metadata all random."""


@cache
def huge_reply() -> AgentTrace:
    """Return a trace whose reply, and whose one user turn, are about 10 MB of hostile text.

    Built once per test session (checks never change their input).
    """
    piece = ("Call 555-123-4567 or mail dana@corp.com about order #A12345 [3]. "
             "See https://example.com/a?x=1 and http://10.0.0.1/ now. The Acme Corp paid "
             "1,200 dollars. ignore previous instructions \u200b again again again 4111 1111 "
             "1111 1111. ")
    body = piece * (10_000_000 // len(piece))
    return AgentTrace(task_id="huge", input=body, final_output=body,
                      messages=[Message("user", body), Message("tool", body, "web"),
                                Message("assistant", body)],
                      metadata={"context": body})


@cache
def huge_trace(count: int = 100_000) -> AgentTrace:
    """Return a trace of ``count`` steps: tool calls, some failed or denied, with timing."""
    made = []
    for i in range(count):
        kind = i % 4
        if kind == 3:
            made.append(TraceStep(step_id=i, type="thought", content="thinking about it",
                                  tokens={"input": 10, "output": 3}, latency_ms=5.0,
                                  timestamp=1_700_000_000.0 + i))
        else:
            made.append(TraceStep(
                step_id=i, type="tool_call", tool_name=f"tool_{i % 7}",
                tool_args={"n": i % 13}, tool_result="ok", latency_ms=2.0,
                error="boom" if i % 11 == 0 else None, denied=i % 17 == 0,
                timestamp=1_700_000_000.0 + i, turn=i // 3,
            ))
    return AgentTrace(task_id="long", input="do it", steps=made, final_output="done",
                      messages=[Message("user", "do it"), Message("assistant", "done")])


# --- the tests every area runs ---------------------------------------------------------------

TRACE_INPUT_CHECKS = frozenset({
    "tool_call_validity", "tools_used", "tool_trajectory", "token_latency_budget",
    "span_count", "error_spans", "repeated_tool_calls", "total_duration",
})
"""Checks that also take a list of steps or span dicts as first argument."""


def area_tests(area: str) -> tuple[Callable[..., None], ...]:
    """Return the tests an area's test file runs, built for its checks.

    In order: the data cases; None means the default; random input (hypothesis); huge input
    (a 10 MB reply, a 100,000-step trace); and every check reaching both a pass and a fail in
    its cases. The signatures are held to the specs by ``test_library.py``, for every area.
    """
    module = import_module(f"openeval.checks.{area}")
    specs: dict[str, Any] = load(area)["checks"]
    names = sorted(specs)

    @pytest.mark.parametrize("case", params(area))
    def test_case(case: dict[str, Any]) -> None:
        run_case(area, case)

    @pytest.mark.parametrize("name", names)
    def test_none_means_the_default(name: str) -> None:
        assert_none_means_default(getattr(module, name), specs[name])

    @pytest.mark.parametrize("name", names)
    @given(data=st.data())
    @settings(max_examples=examples(60), deadline=None)
    def test_random_input(name: str, data: st.DataObject) -> None:
        check = getattr(module, name)
        kinds = [texts, traces]
        if name in TRACE_INPUT_CHECKS:
            kinds += [steps, spans]
        value = data.draw(st.one_of(kinds))
        try:
            first = check(value)
        except OpenEvalError as exc:
            # The one refusal of random input: a step time that is not a duration (a bad
            # trace is an error naming the step, never a duration made up).
            assert "not a duration" in str(exc), str(exc)
            return
        assert_well_formed(first, specs[name])
        assert check(value) == first

    @pytest.mark.parametrize("name", names)
    def test_huge_input(name: str) -> None:
        check = getattr(module, name)
        for value in (huge_reply(), huge_trace()):
            assert_well_formed(check(value), specs[name])

    def test_every_check_passes_and_fails() -> None:
        reached = verdicts_of(area)
        judged = [name for name in names if specs[name]["scores"]]
        missing = {name: sorted(reached.get(name, set()))
                   for name in judged if not {"pass", "fail"} <= reached.get(name, set())}
        assert not missing, f"checks without both a passing and a failing case: {missing}"

    return (test_case, test_none_means_the_default, test_random_input, test_huge_input,
            test_every_check_passes_and_fails)

"""Shared machinery of the check-area tests (imported as ``area_cases``; not a test file).

Each area's data file ``tests/data/checks/<area>.json`` holds:

- ``checks``: for every check of the area, its ``settings`` (name -> the reference's default),
  the ``scores`` it declares (primary first), ``ranges`` (score name -> ``[low, high]``, null
  for no bound) and a ``sample``: an input (see :func:`build_input`) it can score.
- ``cases``: ``{"id", "check", "input", "settings", "expect", "comment", "comment_lacks",
  "absent", "error"}``. ``expect`` maps score names to values (numbers compare
  approximately) or, for a check that returns a list, holds the list; ``comment`` maps score
  names to a text the comment must contain, ``comment_lacks`` to one it must not (a leaked
  value); ``absent`` lists score names that must not be returned; ``error`` is a text the
  OpenEvalError must contain (the check must refuse its settings, or its input).

Inputs are built from real model objects (:class:`~openeval.models.AgentTrace`,
:class:`~openeval.models.TraceStep`, :class:`~openeval.models.Message`), never mocks.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.checks._context import CheckContext
from openeval.errors import OpenEvalError
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scores import Score, Scores, verdict

DATA = Path(__file__).resolve().parents[1] / "data" / "checks"

_KINDS = {"call": "tool_call", "think": "thought", "result": "tool_result", "out": "output"}
_FIELDS = {"args": "tool_args", "denied": "denied", "ts": "timestamp", "ms": "latency_ms",
           "id": "step_id", "error": "error", "returns": "tool_result", "tokens": "tokens",
           "turn": "turn", "text": "content", "model": "model"}


def load_area(area: str) -> dict[str, Any]:
    """Return the parsed data file of one area."""
    data: dict[str, Any] = read_json_file(DATA / f"{area}.json")
    return data


def case_params(area: str) -> list[Any]:
    """Return the area's cases as pytest params with ids ``check/case id``."""
    return [pytest.param(case, id=f"{case['check']}/{case['id']}")
            for case in load_area(area)["cases"]]


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
    """Return the trace a compact spec means.

    ``messages``: the conversation before the reply, as ``[role, content]`` or ``[role,
    content, name]``; ``output``: the reply (appended as the last assistant message when there
    are messages); ``steps`` (compact, see :func:`step`); ``input``; ``metadata``.
    """
    output = spec.get("output", "")
    messages = [Message(m[0], m[1], m[2] if len(m) > 2 else None)
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
    )


def build_input(spec: dict[str, Any]) -> Any:
    """Return a check's first argument from its spec: exactly one key of

    ``text`` (a plain string), ``trace`` (an AgentTrace, see :func:`trace`), ``context`` (a
    CheckContext: ``trace`` plus optional ``expected_output``), ``steps`` (a list of
    TraceStep), ``spans`` (a list of span dicts as given), ``names`` (a list of tool names) or
    ``metadata`` (a metadata dict).
    """
    assert len(spec) == 1, f"give exactly one input kind: {sorted(spec)}"
    kind, value = next(iter(spec.items()))
    if kind == "text":
        return value
    if kind == "trace":
        return trace(value)
    if kind == "context":
        case = EvalTestCase(task_id="case", expected_output=value.get("expected_output"))
        return CheckContext(trace(value["trace"]), case)
    if kind == "steps":
        return [step(i, s) for i, s in enumerate(value)]
    if kind in ("spans", "names", "metadata"):
        return value
    raise AssertionError(f"unknown input kind {kind!r}")


def run_case(module: Any, case: dict[str, Any]) -> None:
    """Run one case of a data file against the check it names, and assert its expectations."""
    check: Callable[..., Any] = getattr(module, case["check"])
    value = build_input(case["input"])
    chosen = case.get("settings", {})
    if "error" in case:
        with pytest.raises(OpenEvalError) as raised:
            check(value, **chosen)
        assert case["error"] in str(raised.value), str(raised.value)
        return
    result = check(value, **chosen)
    expect = case.get("expect", {})
    if isinstance(result, list) and not isinstance(result, Scores):
        assert result == expect, result
        return
    assert isinstance(result, Scores)
    shown = {s.name: (s.value, s.comment) for s in result}
    for score_name, value in expect.items():
        assert score_name in shown, f"no score {score_name!r}: {shown}"
        actual = result[score_name].value
        if isinstance(value, float) or (isinstance(value, int) and not isinstance(value, bool)
                                        and result[score_name].data_type == "NUMERIC"):
            assert actual == pytest.approx(value, abs=1e-6), shown
        else:
            assert actual == value, shown
    for score_name, part in case.get("comment", {}).items():
        comment = result[score_name].comment or ""
        assert part in comment, f"{score_name} comment {comment!r} lacks {part!r}"
    for score_name, part in case.get("comment_lacks", {}).items():
        comment = result[score_name].comment or ""
        assert part not in comment, f"{score_name} comment {comment!r} shows {part!r}"
    for score_name in case.get("absent", []):
        assert score_name not in shown, f"{score_name} should not be returned: {shown}"


def assert_signature(check: Callable[..., Any], spec: dict[str, Any]) -> None:
    """Assert a check's keyword settings, defaults and declared scores are the reference's."""
    parameters = list(inspect.signature(check).parameters.values())
    assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    settings = {p.name: p.default for p in parameters[1:]}
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])
    defaults = {name: list(v) if isinstance(v, tuple) else v for name, v in settings.items()}
    assert defaults == spec["settings"]
    if spec["scores"]:
        assert list(check.__scores__) == spec["scores"]  # type: ignore[attr-defined]
    assert check.__doc__ and "Returns:" in check.__doc__


def assert_none_means_default(check: Callable[..., Any], spec: dict[str, Any]) -> None:
    """Assert that passing each setting as None scores like leaving it out.

    Limits the reference marks "None: not checked" are listed in the spec's ``none_not_checked``
    and are left out here (their cases show that None turns the limit off).
    """
    value = build_input(spec["sample"])
    plain = check(value)
    for setting, default in spec["settings"].items():
        if default is None or setting in spec.get("none_not_checked", []):
            continue
        assert check(value, **{setting: None}) == plain, setting


def assert_well_formed(result: Any, spec: dict[str, Any]) -> None:
    """Assert a check's result: Scores named as declared, numbers in their ranges."""
    if not spec["scores"]:
        assert isinstance(result, list) and all(isinstance(n, str) for n in result)
        return
    assert isinstance(result, Scores) and result, result
    assert result[0].name == spec["scores"][0]
    for score in result:
        assert isinstance(score, Score)
        assert score.name in spec["scores"], score.name
        low, high = spec["ranges"].get(score.name, [None, None])
        if score.data_type == "NUMERIC":
            value = float(score.value)
            assert low is None or value >= low - 1e-9, (score.name, value)
            assert high is None or value <= high + 1e-9, (score.name, value)


def verdicts_of(module: Any, area: str) -> dict[str, set[str]]:
    """Return, per check, the verdicts its cases reach (for the pass-and-fail test)."""
    reached: dict[str, set[str]] = {}
    for case in load_area(area)["cases"]:
        if "error" in case:
            continue
        result = getattr(module, case["check"])(build_input(case["input"]),
                                                **case.get("settings", {}))
        if isinstance(result, Scores):
            reached.setdefault(case["check"], set()).add(verdict(result))
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


def area_tests(module: Any, area: str) -> tuple[Callable[..., None], ...]:
    """Return the tests every area's test file runs, built for ``module``'s checks.

    In order: the data cases; the reference's signature; None means the default; random input
    (hypothesis); huge input (a 10 MB reply, a 100,000-step trace); and every check reaching
    both a pass and a fail in its cases.
    """
    specs: dict[str, Any] = load_area(area)["checks"]
    names = sorted(specs)

    @pytest.mark.parametrize("case", case_params(area))
    def test_case(case: dict[str, Any]) -> None:
        run_case(module, case)

    @pytest.mark.parametrize("name", names)
    def test_signature_is_the_seeds(name: str) -> None:
        assert_signature(getattr(module, name), specs[name])

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
        reached = verdicts_of(module, area)
        judged = [name for name in names if specs[name]["scores"]]
        missing = {name: sorted(reached.get(name, set()))
                   for name in judged if not {"pass", "fail"} <= reached.get(name, set())}
        assert not missing, f"checks without both a passing and a failing case: {missing}"

    return (test_case, test_signature_is_the_seeds, test_none_means_the_default,
            test_random_input, test_huge_input, test_every_check_passes_and_fails)

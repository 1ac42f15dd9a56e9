"""The OpenAI adapter's one-pass reader gives what the general reader gives, or steps aside.

``_convert_plain`` reads a plain Chat Completions list without copying it first
(proposals/0275-one-pass-chat-reader.md). Each case here is read both ways, through
``from_openai_messages`` and through a file; the trace, or the error, must be the same. The
table (``tests/data/adapters/openai_one_pass.json``) also says which cases the one-pass reader
takes, so a change that quietly sends everything to the general reader fails too.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openeval.adapters import from_openai_messages
from openeval.adapters._chat import trace_from_file, trace_from_objects
from openeval.adapters._toolkit import Errors
from openeval.adapters.base import TraceSource
from openeval.adapters.openai import ADAPTER, _convert, _convert_plain
from openeval.errors import OpenEvalError

ROOT = Path(__file__).parents[2]
CASES = orjson.loads((ROOT / "tests" / "data" / "adapters" / "openai_one_pass.json").read_bytes())
FIXTURES = sorted(
    path for path in [
        *(ROOT / "tests" / "data" / "adapters" / "openai").glob("*.json"),
        *(ROOT / "tests" / "data" / "adapters" / "found_in_use").glob("openai_*.json"),
        *(ROOT / "examples").rglob("trace*.json"),
    ]
    if ADAPTER.refusal(TraceSource(path)) is None  # the OpenAI documents among them
)


def _outcome(read: Any) -> tuple[str, Any]:
    """Return ``("trace", its dict)`` or ``("error", its one line)`` for one read."""
    try:
        return "trace", read().to_dict()
    except OpenEvalError as exc:
        return "error", str(exc)


def _general(messages: Any) -> tuple[str, Any]:
    return _outcome(lambda: trace_from_objects(messages, _convert, task_id="t", given={}))


def _both_from_objects(messages: Any) -> tuple[tuple[str, Any], tuple[str, Any]]:
    return _outcome(lambda: from_openai_messages(messages, task_id="t")), _general(messages)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_one_pass_reads_objects_as_the_general_reader(case: dict[str, Any]) -> None:
    fast, general = _both_from_objects(case["messages"])
    assert fast == general


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_one_pass_takes_the_cases_it_should(case: dict[str, Any]) -> None:
    try:
        taken = _convert_plain(case["messages"], "t", Errors(None)) is not None
    except OpenEvalError:
        taken = True  # it read the list, and found nothing an agent did
    assert taken is case["one_pass"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_one_pass_reads_files_as_the_general_reader(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "case.json"
    path.write_bytes(orjson.dumps(case["messages"]))
    fast = _outcome(lambda: ADAPTER.load(TraceSource(path)))
    general = _outcome(lambda: trace_from_file(TraceSource(path), _convert))
    assert fast == general


@pytest.mark.parametrize("path", FIXTURES, ids=[str(p.relative_to(ROOT)) for p in FIXTURES])
def test_committed_fixtures_read_the_same_both_ways(path: Path) -> None:
    fast = _outcome(lambda: ADAPTER.load(TraceSource(path)))
    assert fast == _outcome(lambda: trace_from_file(TraceSource(path), _convert))
    document = orjson.loads(path.read_bytes())
    assert _both_from_objects(document)[0] == _general(document)


def test_the_trace_shares_nothing_mutable_with_the_messages() -> None:
    messages = copy.deepcopy(CASES[1]["messages"])
    trace = from_openai_messages(messages)
    before = trace.to_dict()
    messages[1]["tool_calls"][0]["function"]["arguments"] = "{}"
    messages[1]["tool_calls"].clear()
    messages.clear()
    assert trace.to_dict() == before


# --- a property: any chat-shaped list, perturbed anywhere -------------------------------------

_SCALARS = st.none() | st.booleans() | st.integers(-3, 3) | st.sampled_from(
    ["", "c1", "c2", "ok", "{}", '{"x": 1}', "[1]", "{", "function", "custom", "a"]
)
_VALUES = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.sampled_from(["name", "arguments", "text", "type"]), inner, max_size=2),
    max_leaves=4,
)


def _maybe(value: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(value, _VALUES)


_FUNCTION = st.fixed_dictionaries(
    {"name": _maybe(st.sampled_from(["a", "b"]))},
    optional={"arguments": _maybe(st.sampled_from(['{"x": 1}', '{"y": [1, 2]}', "", "{"]))},
)
_CALL = st.fixed_dictionaries(
    {"function": _maybe(_FUNCTION)},
    optional={"id": _maybe(st.sampled_from(["c1", "c2", ""])),
              "type": _maybe(st.just("function")), "extra": _VALUES},
)
_MESSAGE = st.fixed_dictionaries(
    {"role": _maybe(st.sampled_from(["user", "system", "developer", "assistant", "tool"]))},
    optional={
        "content": _maybe(st.sampled_from(["", "hi", "done"])),
        "tool_calls": _maybe(st.lists(_CALL, max_size=3)),
        "tool_call_id": _maybe(st.sampled_from(["c1", "c2"])),
        "refusal": _VALUES, "name": _VALUES, "audio": _VALUES,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MESSAGE, max_size=6))
def test_any_chat_list_reads_the_same_both_ways(messages: list[dict[str, Any]]) -> None:
    fast, general = _both_from_objects(messages)
    assert fast == general

"""Every ``from_*`` entry point takes ``initial_state=``: the state before the run, which the
test case's ``state`` diffs against (docs/semantics.md#final-state-as-a-frame-condition)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

import openeval.adapters
from openeval.metrics import get_metric
from openeval.models import EvalTestCase

DATA = Path(__file__).resolve().parents[1] / "data" / "adapters"

# entry point -> (input file under tests/data/adapters, extra keyword arguments)
ENTRY_POINTS: dict[str, tuple[str, dict[str, Any]]] = {
    "from_openai_messages": ("openai/chat_parallel_tools.json", {}),
    "from_anthropic_messages": ("anthropic/tool_loop.json", {}),
    "from_langchain_run": ("langchain/loop_weather.json", {}),
    "from_otel_spans": ("otel/weather_agent.otlp.json", {}),
    "from_openai_agents_trace": ("openai_agents/weather_chat.json", {}),
    "from_mlflow_trace": ("mlflow/weather.json", {}),
    "from_inspect_log": ("inspect/weather.json", {"sample": "weather-3"}),
    "from_adk_session": ("adk_session/weather_tool_error.json", {}),
    "from_langfuse_trace": ("langfuse_export/weather.json", {}),
}
BEFORE = {"orders": {"1042": {"status": "paid"}}}


def _read(entry: str, **given: Any) -> Any:
    name, kwargs = ENTRY_POINTS[entry]
    document = orjson.loads((DATA / name).read_bytes())
    return getattr(openeval.adapters, entry)(document, **kwargs, **given)


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_the_caller_gives_the_state_before_the_run(entry: str) -> None:
    trace = _read(entry, initial_state=BEFORE, actual_state={"orders": {"1042": {
        "status": "refunded"}}})
    assert trace.initial_state == BEFORE
    case = EvalTestCase(task_id="t", state={"changes": {"orders.1042.status": "refunded"}})
    assert get_metric("state_diff").score(trace, case).passed is True


@pytest.mark.parametrize("entry", sorted(ENTRY_POINTS))
def test_an_empty_initial_state_is_a_state_and_none_is_no_state(entry: str) -> None:
    assert _read(entry, initial_state={}).initial_state == {}  # nothing existed before the run
    assert _read(entry).initial_state is None


def test_a_wrapped_document_carries_it_too() -> None:
    wrapped = orjson.loads((DATA / "openai/chat_parallel_tools.json").read_bytes())
    assert "messages" in wrapped  # the file itself is wrapped: {"messages", "actual_state"}
    wrapped["initial_state"] = BEFORE
    assert openeval.adapters.from_openai_messages(wrapped).initial_state == BEFORE

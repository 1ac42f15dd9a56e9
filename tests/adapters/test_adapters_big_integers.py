"""An order id beyond 64 bits, in every trace format, compares exactly.

orjson reads such an integer as a float, so ``...789`` and ``...788`` became the same number
wherever a reader parsed JSON itself: tool arguments held as JSON text (OpenAI, OTel), OTel
message attributes, JSON Lines (Fixtura). Each row takes a real recording from
``tests/data/adapters``, puts the order id into one call's arguments in that format's own
spelling, and scores it against the exact id and against one that differs in the last digit.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from openeval.adapters import load_trace
from openeval.jsonio import dump_json
from openeval.metrics import get_metric
from openeval.models import AgentTrace, EvalTestCase, TraceStep

DATA = Path(__file__).resolve().parents[1] / "data" / "adapters"
ROOT = Path(__file__).resolve().parents[2]
ORDER = 12345678901234567890123456789


@dataclass(frozen=True)
class Spelling:
    format: str
    file: str
    tool: str
    find: str
    """Text in the file ending where the order id goes (inside that call's arguments)."""
    add: str
    """What is inserted after it; ``{id}`` is the order id."""


ROWS = [
    Spelling("openai", "openai/chat_parallel_tools.json", "get_weather",
             r'{\"city\": \"Paris\"', r', \"order_id\": {id}'),
    Spelling("anthropic", "anthropic/tool_loop.json", "check_visa",
             '"country": "JP"', ', "order_id": {id}'),
    Spelling("langchain", "langchain/loop_weather.json", "get_weather",
             '"args": {\n                        "city": "Tokyo"', ', "order_id": {id}'),
    Spelling("otel", "otel/weather_agent.otlp.json", "get_weather",
             r'"stringValue": "{\"city\": \"Paris\"', r', \"order_id\": {id}'),
    Spelling("fixtura", "fixtura/checkout.jsonl", "filesystem_tool",
             '"path": "cart.txt"', ', "order_id": {id}'),
]


def with_order_id(row: Spelling, folder: Path) -> Path:
    original = DATA / row.file
    text = original.read_text()
    assert text.count(row.find) >= 1, f"{row.file} no longer holds {row.find!r}"
    path = folder / original.name
    path.write_text(text.replace(row.find, row.find + row.add.format(id=ORDER), 1))
    return path


def native(folder: Path) -> Path:
    trace = AgentTrace(task_id="refund", steps=[TraceStep(
        step_id=1, type="tool_call", tool_name="refund", tool_args={"order_id": ORDER})])
    path = folder / "trace.json"
    path.write_bytes(dump_json(trace.to_dict()))
    return path


CASES = [pytest.param(row, id=row.format) for row in ROWS] + [pytest.param(None, id="native")]


@pytest.mark.parametrize("row", CASES)
def test_an_order_id_beyond_64_bits_compares_exactly(row: Spelling | None, tmp_path: Path) -> None:
    path = native(tmp_path) if row is None else with_order_id(row, tmp_path)
    tool = "refund" if row is None else row.tool
    trace = load_trace(path)
    [args] = [s.tool_args for s in trace.steps if s.tool_name == tool and s.type == "tool_call"
              and s.tool_args and "order_id" in s.tool_args]
    assert type(args["order_id"]) is int and args["order_id"] == ORDER
    metric = get_metric("argument_correctness")
    for order, passed in ((ORDER, True), (ORDER - 1, False)):
        case = EvalTestCase.from_dict({"task_id": trace.task_id, "expected_tool_calls": [
            {"tool": tool, "args": {**args, "order_id": order}}]})
        assert metric.score(trace, case).passed is passed, order


def test_no_reader_parses_json_with_orjson_itself() -> None:
    # orjson.loads rounds big integers; jsonio.loads_exact is the one way in. Allowed: jsonio
    # itself, the shipped schemas, and a round trip of values orjson has just written.
    allowed = {"openeval/jsonio.py", "openeval/schemas/__init__.py",
               "openeval/adapters/langchain/runs.py",
               "openeval/values.py"}  # is_plain_json's round trip (orjson refused big ones)
    found = sorted(
        path.relative_to(ROOT).as_posix() for path in (ROOT / "openeval").rglob("*.py")
        if re.search(r"\borjson\.loads\(", path.read_text())
    )
    assert set(found) <= allowed, found

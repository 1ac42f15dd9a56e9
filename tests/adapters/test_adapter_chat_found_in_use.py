"""Two false readings of the chat adapters found by real use, and the tools a wrapper records.

- A ``chat.completion`` with ``n > 1`` choices was read as its first choice alone, so a tool
  call in another choice vanished; it is refused, naming ``n`` and the file.
- An Anthropic message whose server tool (web search) ran inside it lost the answer written
  after the tool's result; its last text block is the final output, in ``run`` and ``score``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from openeval.adapters import from_anthropic_messages, from_openai_messages, load_trace
from openeval.checks.safety import pii_leak
from openeval.errors import TraceFormatError

DATA = Path(__file__).parent.parent / "data" / "adapters" / "found_in_use"
ROOT = Path(__file__).parents[2]


def test_completion_with_several_choices_is_refused_naming_n_and_the_file() -> None:
    with pytest.raises(TraceFormatError) as raised:
        load_trace(DATA / "openai_two_choices.json")
    message = str(raised.value)
    assert "n=2" in message and "openai_two_choices.json" in message
    assert "choices" in message and "\n" not in message


def test_several_choices_in_python_objects_are_refused_too() -> None:
    document = orjson.loads((DATA / "openai_two_choices.json").read_bytes())
    with pytest.raises(TraceFormatError, match="n=2"):
        from_openai_messages(document)
    document["choices"] = document["choices"][1:]
    trace = from_openai_messages(document)
    assert [step.tool_name for step in trace.tool_calls()] == ["delete_account"]


def test_server_tool_answer_is_the_last_text_block() -> None:
    trace = load_trace(DATA / "anthropic_server_tool_answer.json")
    assert trace.final_output == "Write to john.smith@acme-mail.net; his SSN is 078-05-1120."
    [call] = trace.tool_calls()
    assert call.tool_name == "web_search"
    assert call.tool_args == {"query": "Acme Corp support contact"}
    assert call.tool_result is not None and "acme.example/support" in call.tool_result
    scores = {score.name: score.value for score in pii_leak(trace)}
    assert scores["pii_free"] is False and scores["pii_count"] == 2


def test_a_client_tool_call_after_a_server_tool_still_awaits_its_result() -> None:
    document = orjson.loads((DATA / "anthropic_server_tool_answer.json").read_bytes())
    blocks = document["messages"][1]["content"]
    blocks.append({"type": "tool_use", "id": "toolu_9", "name": "send_email", "input": {}})
    assert from_anthropic_messages(document).final_output == ""


def test_server_tool_answer_is_judged_by_openeval_score(tmp_path: Path) -> None:
    document = orjson.loads((DATA / "anthropic_server_tool_answer.json").read_bytes())
    del document["tools"]
    traces = tmp_path / "traces.jsonl"
    traces.write_bytes(orjson.dumps(document) + b"\n")
    (tmp_path / "checks.toml").write_text('[[checks]]\ncheck = "pii_leak"\n')
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "score", str(traces), "--checks",
         str(tmp_path / "checks.toml"), "--output", str(out)],
        capture_output=True, text=True, env=env, check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["checks"]["pii_leak"]["failing_traces"] == ["contact_lookup"]


def test_wrapped_tools_become_tool_definitions() -> None:
    trace = load_trace(DATA / "openai_request_tools.json")
    assert trace.tool_definitions == [{
        "name": "get_weather", "description": "Current weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    }]
    assert trace.final_output == "It is 18C and sunny in Paris."
    anthropic = load_trace(DATA / "anthropic_server_tool_answer.json")
    assert anthropic.tool_definitions == [
        {"name": "web_search", "description": "", "parameters": {}}
    ]


def test_a_response_records_its_tools_once() -> None:
    response = {
        "object": "response", "id": "resp_1", "status": "completed", "model": "gpt-4.1",
        "tools": [{"type": "function", "name": "get_weather", "description": "Weather.",
                   "parameters": {"type": "object"}}, {"type": "web_search"}],
        "output": [{"type": "message", "role": "assistant",
                    "content": [{"type": "output_text", "text": "Sunny."}]}],
    }
    trace = from_openai_messages([response, response])
    assert [d["name"] for d in trace.tool_definitions] == ["get_weather", "web_search"]


def test_a_tool_without_a_name_is_an_error_at_its_place(tmp_path: Path) -> None:
    document = orjson.loads((DATA / "openai_request_tools.json").read_bytes())
    document["tools"].append({"type": "function", "function": {"description": "?"}})
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps(document))
    with pytest.raises(TraceFormatError, match=r"tools\[1\]"):
        load_trace(path)

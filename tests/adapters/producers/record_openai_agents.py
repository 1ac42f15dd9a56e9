"""Record what an OpenAI Agents SDK ``TracingProcessor`` receives, offline.

Runs the real ``openai-agents`` package (``pip install openai-agents``) with a mock HTTP
transport standing in for the OpenAI server: the user asks for the weather in Paris, the model
calls ``get_weather(city="Paris")``, the tool answers, the model replies. A processor keeps
each ``trace.export()`` and ``span.export()`` as the SDK hands them over, and the script writes
them as one JSON list per run under ``tests/data/adapters/openai_agents/``:

- ``weather_chat.json``: the Chat Completions model (generation spans carry the messages);
- ``weather_responses.json``: the default Responses model (response spans carry only ids);
- ``weather_wrong_city.json``: the model asks for London's weather instead;
- ``weather_handoff.json``: a triage agent hands off to the weather agent, which answers;
- ``weather_tool_error.json``: the tool raises, the SDK hands the model its error text;
- ``two_runs.jsonl``: the exports of ``weather_chat`` and ``weather_tool_error`` one per line,
  as a processor appending each export to a file writes them.

Run: ``/tmp/venv/bin/python tests/adapters/producers/record_openai_agents.py``
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

import httpx2
from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_trace_processors,
)
from agents.tracing import Span, Trace, TracingProcessor
from openai import AsyncOpenAI

OUT = Path(__file__).parents[2] / "data" / "adapters" / "openai_agents"
QUESTION = "What is the weather in Paris?"
ANSWER = "It is 18°C and sunny in Paris."


class Keep(TracingProcessor):
    """Keeps every exported trace and span, in the order the SDK ends them."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        pass

    def on_trace_end(self, trace: Trace) -> None:
        exported = trace.export()
        if exported is not None:
            self.items.append(exported)

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        exported = span.export()
        if exported is not None:
            self.items.append(exported)

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass


def _chat_reply(n: int, message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1767225600 + n,
        "model": "gpt-4.1-mini",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 60 + n, "completion_tokens": 12, "total_tokens": 72 + n},
    }


def _chat_replies(city: str) -> list[dict[str, Any]]:
    call = {"id": "call_weather_1", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
    return [
        _chat_reply(1, {"role": "assistant", "content": None, "tool_calls": [call]},
                    "tool_calls"),
        _chat_reply(2, {"role": "assistant", "content": ANSWER}, "stop"),
    ]


def _response(n: int, output: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": f"resp_{n}", "object": "response", "created_at": 1767225600 + n,
        "status": "completed", "model": "gpt-4.1-mini", "output": output,
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "usage": {"input_tokens": 60 + n, "output_tokens": 12, "total_tokens": 72 + n,
                  "input_tokens_details": {"cached_tokens": 0},
                  "output_tokens_details": {"reasoning_tokens": 0}},
    }


def _responses_replies() -> list[dict[str, Any]]:
    return [
        _response(1, [{"type": "function_call", "id": "fc_1", "call_id": "call_weather_1",
                       "name": "get_weather", "arguments": '{"city": "Paris"}',
                       "status": "completed"}]),
        _response(2, [{"type": "message", "id": "msg_2", "role": "assistant",
                       "status": "completed",
                       "content": [{"type": "output_text", "text": ANSWER,
                                    "annotations": []}]}]),
    ]


def _client(replies: list[dict[str, Any]]) -> AsyncOpenAI:
    queue = list(replies)

    def serve(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=queue.pop(0))

    return AsyncOpenAI(
        api_key="sk-test", base_url="http://openai.test/v1", max_retries=0,
        http_client=httpx2.AsyncClient(transport=httpx2.MockTransport(serve)),
    )


def _chat_model(city: str) -> OpenAIChatCompletionsModel:
    return OpenAIChatCompletionsModel(model="gpt-4.1-mini",
                                      openai_client=_client(_chat_replies(city)))


@function_tool
def get_weather(city: str) -> str:
    """Return the current weather of a city."""
    return f"18°C and sunny in {city}"


@function_tool
def get_weather_broken(city: str) -> str:
    """Return the current weather of a city."""
    raise RuntimeError(f"weather service unavailable for {city}")


def _run(model: Any, tool: Any) -> list[dict[str, Any]]:
    keep = Keep()
    set_trace_processors([keep])
    agent = Agent(name="Weather agent", instructions="Answer weather questions.",
                  model=model, tools=[tool])
    result = asyncio.run(Runner.run(agent, QUESTION))
    assert result.final_output == ANSWER, result.final_output
    return keep.items


def _run_handoff() -> list[dict[str, Any]]:
    """A triage agent hands off to the weather agent, which calls the tool and answers."""
    keep = Keep()
    set_trace_processors([keep])
    handoff = {"id": "call_handoff_1", "type": "function",
               "function": {"name": "transfer_to_weather_agent", "arguments": "{}"}}
    triage_model = OpenAIChatCompletionsModel(model="gpt-4.1-mini", openai_client=_client([
        _chat_reply(1, {"role": "assistant", "content": None, "tool_calls": [handoff]},
                    "tool_calls"),
    ]))
    weather = Agent(name="weather_agent", instructions="Answer weather questions.",
                    model=_chat_model("Paris"), tools=[get_weather])
    triage = Agent(name="triage", instructions="Route the question.", model=triage_model,
                   handoffs=[weather])
    result = asyncio.run(Runner.run(triage, QUESTION))
    assert result.final_output == ANSWER, result.final_output
    return keep.items


def _write(name: str, items: list[dict[str, Any]]) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / name).write_text(json.dumps(items, indent=1, ensure_ascii=False) + "\n")


def main() -> int:
    _write("weather_chat.json", _run(_chat_model("Paris"), get_weather))
    responses = OpenAIResponsesModel(model="gpt-4.1-mini",
                                     openai_client=_client(_responses_replies()))
    _write("weather_responses.json", _run(responses, get_weather))
    _write("weather_wrong_city.json", _run(_chat_model("London"), get_weather))
    _write("weather_handoff.json", _run_handoff())
    broken = _chat_model("Paris")
    broken_tool = get_weather_broken
    broken_tool.name = "get_weather"
    _write("weather_tool_error.json", _run(broken, broken_tool))
    lines = [json.dumps(item, ensure_ascii=False) + "\n"
             for name in ("weather_chat.json", "weather_tool_error.json")
             for item in json.loads((OUT / name).read_text())]
    (OUT / "two_runs.jsonl").write_text("".join(lines))
    version = importlib.metadata.version("openai-agents")
    (OUT / "VERSION.txt").write_text(
        f"openai-agents {version}\nopenai {importlib.metadata.version('openai')}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

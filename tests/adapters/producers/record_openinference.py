"""Record OpenInference spans: ``openinference-instrumentation-openai`` on a real OpenAI client.

The weather agent runs offline: the OpenAI client (``openai`` 3.x) talks to a mock
``httpx2`` transport that plays the model, the agent and tool spans come from
``openinference-instrumentation``'s own ``OITracer`` decorators, and the spans are written with
the OTLP protobuf encoder (proto-JSON, as the collector's file exporter writes). Run it in a
venv holding those packages; it rewrites ``tests/data/adapters/otel_openinference/``::

    python tests/adapters/producers/record_openinference.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import httpx2
import openai
from openinference.instrumentation import OITracer, TraceConfig
from openinference.instrumentation.openai import OpenAIInstrumentor

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, recorder, write, write_versions

FOLDER = DATA / "otel_openinference"
TOOLS = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]},
    },
}]


def mock_model(city: str) -> httpx2.MockTransport:
    """A chat-completions endpoint that asks for get_weather(city) once, then answers."""

    def reply(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        last = body["messages"][-1]
        if last["role"] == "tool":
            message: dict[str, Any] = {"role": "assistant",
                                       "content": f"It is 18°C and sunny in {city}."}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
            }]}
            finish = "tool_calls"
        return httpx2.Response(200, json={
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1795000000,
            "model": "gpt-4o-mini-2024-07-18",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 52, "completion_tokens": 14, "total_tokens": 66},
        })

    return httpx2.MockTransport(reply)


def record(name: str, city: str) -> None:
    provider, exporter = recorder("weather-agent")
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        tracer = OITracer(provider.get_tracer("weather-agent"), config=TraceConfig())
        client = openai.OpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                               http_client=httpx2.Client(transport=mock_model(city)))

        @tracer.tool(name="get_weather", description="Current weather of a city.")
        def get_weather(city: str) -> str:
            return json.dumps({"city": city, "temperature_c": 18, "sky": "sunny"})

        @tracer.agent(name="weather_agent")
        def run(question: str) -> str:
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": "You answer weather questions."},
                {"role": "user", "content": question},
            ]
            while True:
                answer = client.chat.completions.create(
                    model="gpt-4o-mini", messages=messages, tools=TOOLS)  # type: ignore[arg-type]
                choice = answer.choices[0].message
                if not choice.tool_calls:
                    return choice.content or ""
                messages.append(choice.model_dump(exclude_none=True))
                for call in choice.tool_calls:
                    result = get_weather(**json.loads(call.function.arguments))
                    messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

        run("What is the weather in Paris?")
    finally:
        instrumentor.uninstrument()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record("weather", "Paris")
    record("weather_wrong_city", "London")
    write_versions(FOLDER, ["openinference-instrumentation-openai", "openinference-instrumentation",
                            "openai", "opentelemetry-sdk"])

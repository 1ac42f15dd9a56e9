"""Record Google ADK spans in its legacy schema (``gcp.vertex.agent.*``), as ADK 1.x and Vertex
Agent Engine write them.

A real ``google.adk`` ``Agent`` with a function tool runs under ADK's ``InMemoryRunner``; its
model is a ``BaseLlm`` subclass (ADK's own extension point for models) that asks for
get_weather(city) once and then answers. ``ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN=1`` selects the
legacy schema; ``weather_content_off`` sets ``ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS=false``.
The spans go to an in-memory exporter through the global tracer provider and are written with
the OTLP protobuf encoder. Each recording runs in a process of its own (ADK reads the switches
once). Needs a venv of its own (google-adk pins an older opentelemetry-sdk); rewrites
``tests/data/adapters/otel_adk/``::

    python tests/adapters/producers/record_adk.py
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, record_each, recorder, write

FOLDER = DATA / "otel_adk"
RECORDINGS = {
    "weather": ("Paris", "true"),
    "weather_wrong_city": ("London", "true"),
    "weather_content_off": ("Paris", "false"),
}


def record(name: str) -> None:
    from google.adk import Agent
    from google.adk.models.base_llm import BaseLlm
    from google.adk.models.llm_request import LlmRequest
    from google.adk.models.llm_response import LlmResponse
    from google.adk.runners import InMemoryRunner
    from google.genai import types
    from opentelemetry import trace

    city = RECORDINGS[name][0]

    class WeatherModel(BaseLlm):
        """Asks for get_weather(city) once, then answers."""

        async def generate_content_async(
            self, llm_request: LlmRequest, stream: bool = False
        ) -> AsyncGenerator[LlmResponse, None]:
            last = llm_request.contents[-1].parts[-1] if llm_request.contents else None
            usage = types.GenerateContentResponseUsageMetadata(
                prompt_token_count=52, candidates_token_count=14, total_token_count=66)
            if last is not None and last.function_response is not None:
                part = types.Part(text=f"It is 18°C and sunny in {city}.")
            else:
                part = types.Part(function_call=types.FunctionCall(
                    id="call_1", name="get_weather", args={"city": city}))
            yield LlmResponse(content=types.Content(role="model", parts=[part]),
                              finish_reason=types.FinishReason.STOP, usage_metadata=usage)

    provider, exporter = recorder("weather-agent")
    trace.set_tracer_provider(provider)

    def get_weather(city: str) -> dict[str, Any]:
        """Current weather of a city."""
        return {"city": city, "temperature_c": 18, "sky": "sunny"}

    agent = Agent(name="weather_agent", model=WeatherModel(model="mock-weather-model"),
                  instruction="You answer weather questions.", tools=[get_weather])
    runner = InMemoryRunner(agent=agent, app_name="weather")

    async def run() -> None:
        await runner.session_service.create_session(
            app_name="weather", user_id="user", session_id="session")
        message = types.Content(role="user",
                                parts=[types.Part(text="What is the weather in Paris?")])
        async for _ in runner.run_async(user_id="user", session_id="session",
                                        new_message=message):
            pass

    asyncio.run(run())
    provider.force_flush()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record_each(__file__, record,
                {recording: {"ADK_TELEMETRY_SCHEMA_VERSION_OPT_IN": "1",
                             "ADK_CAPTURE_MESSAGE_CONTENT_IN_SPANS": capture}
                 for recording, (_, capture) in RECORDINGS.items()},
                FOLDER, ["google-adk", "google-genai", "opentelemetry-sdk"])

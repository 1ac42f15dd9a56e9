"""Record Pydantic AI spans with instrumentation ``version=2`` (what older Logfire data holds).

A real ``pydantic_ai.Agent`` with a tool; its model is Pydantic AI's own ``FunctionModel``,
which asks for get_weather(city) once and then answers. ``InstrumentationSettings(version=2)``
sends the spans to an in-memory exporter; they are written with the OTLP protobuf encoder.
Also ``weather_v3`` (the current default version) for comparison, and ``weather_wrong_city``.
Rewrites ``tests/data/adapters/otel_pydantic_ai/``::

    python tests/adapters/producers/record_pydantic_ai.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _mock_openai import weather
from _otlp import DATA, recorder, write, write_versions

FOLDER = DATA / "otel_pydantic_ai"


def record(name: str, city: str, version: int) -> None:
    from pydantic_ai import Agent
    from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
    from pydantic_ai.models.function import AgentInfo, FunctionModel
    from pydantic_ai.models.instrumented import InstrumentationSettings

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1].parts[-1]
        if last.part_kind == "tool-return":
            return ModelResponse(parts=[TextPart(f"It is 18°C and sunny in {city}.")])
        return ModelResponse(parts=[ToolCallPart("get_weather", {"city": city}, "call_1")])

    provider, exporter = recorder("weather-agent")
    Agent.instrument_all(InstrumentationSettings(tracer_provider=provider, version=version,
                                                 include_content=True))
    agent = Agent(FunctionModel(model, model_name="mock-weather-model"),
                  system_prompt="You answer weather questions.", name="weather_agent")

    @agent.tool_plain
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        return weather(city)

    agent.run_sync("What is the weather in Paris?")
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record("weather", "Paris", 2)
    record("weather_wrong_city", "London", 2)
    record("weather_v3", "Paris", 3)
    write_versions(FOLDER, ["pydantic-ai-slim", "opentelemetry-sdk"])

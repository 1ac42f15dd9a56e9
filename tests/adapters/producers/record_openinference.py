"""Record OpenInference spans: ``openinference-instrumentation-openai`` on a real OpenAI client.

The weather agent runs offline: the OpenAI client (``openai`` 3.x) talks to a mock
``httpx2`` transport that plays the model, the agent and tool spans come from
``openinference-instrumentation``'s own ``OITracer`` decorators, and the spans are written with
the OTLP protobuf encoder (proto-JSON, as the collector's file exporter writes). Run it in a
venv holding those packages; it rewrites ``tests/data/adapters/otel_openinference/``::

    python tests/adapters/producers/record_openinference.py
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import httpx2
import openai
from openinference.instrumentation import OITracer, TraceConfig
from openinference.instrumentation.openai import OpenAIInstrumentor

sys.path.insert(0, str(Path(__file__).parent))
from _mock_openai import answer_with_tools, weather, weather_model
from _otlp import DATA, recorder, write, write_versions

FOLDER = DATA / "otel_openinference"
def record(name: str, city: str) -> None:
    provider, exporter = recorder("weather-agent")
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        tracer = OITracer(provider.get_tracer("weather-agent"), config=TraceConfig())
        client = openai.OpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                               http_client=httpx2.Client(transport=weather_model(city)))

        @tracer.tool(name="get_weather", description="Current weather of a city.")
        def get_weather(city: str) -> str:
            return weather(city)

        @tracer.agent(name="weather_agent")
        def run(question: str) -> str:
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": "You answer weather questions."},
                {"role": "user", "content": question},
            ]
            return answer_with_tools(client, messages, lambda arguments: get_weather(**arguments))

        run("What is the weather in Paris?")
    finally:
        instrumentor.uninstrument()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record("weather", "Paris")
    record("weather_wrong_city", "London")
    write_versions(FOLDER, ["openinference-instrumentation-openai", "openinference-instrumentation",
                            "openai", "opentelemetry-sdk"])

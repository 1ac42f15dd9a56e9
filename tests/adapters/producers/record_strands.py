"""Record Strands Agents spans (``strands-agents``), as AWS Bedrock AgentCore users get them.

The weather agent is a real ``strands.Agent`` with a ``@tool``; its model is Strands' own
``OpenAIModel`` over a real ``openai`` client whose ``httpx2`` transport plays the model
offline. Spans go to an in-memory exporter and are written with the OTLP protobuf encoder.
Each recording runs in a process of its own, because Strands reads
``OTEL_SEMCONV_STABILITY_OPT_IN`` once: ``weather`` is the default conventions (content in
span events), ``weather_latest`` the ``gen_ai_latest_experimental`` ones
(``gen_ai.client.inference.operation.details`` events), ``weather_tool_error`` a tool that
raises. Rewrites ``tests/data/adapters/otel_strands/``::

    python tests/adapters/producers/record_strands.py
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, record_each, recorder, write

FOLDER = DATA / "otel_strands"
RECORDINGS = {
    "weather": ("", False),
    "weather_latest": ("gen_ai_latest_experimental", False),
    "weather_tool_error": ("", True),
}


def record(name: str) -> None:
    import openai
    from _mock_openai import weather, weather_model
    from httpx2 import AsyncClient
    from opentelemetry import trace
    from strands import Agent, tool
    from strands.models.openai import OpenAIModel

    failing = RECORDINGS[name][1]
    provider, exporter = recorder("weather-agent")
    trace.set_tracer_provider(provider)

    @tool
    def get_weather(city: str) -> str:
        """Current weather of a city.

        Args:
            city: The city.
        """
        if failing:
            raise RuntimeError("weather service unavailable")
        return weather(city)

    client = openai.AsyncOpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                                http_client=AsyncClient(transport=weather_model("Paris")))
    agent = Agent(model=OpenAIModel(client=client, model_id="gpt-4o-mini"),
                  tools=[get_weather], system_prompt="You answer weather questions.",
                  callback_handler=None, name="weather_agent")
    agent("What is the weather in Paris?")
    provider.force_flush()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record_each(__file__, record,
                {recording: {"OTEL_SEMCONV_STABILITY_OPT_IN": opt_in}
                 for recording, (opt_in, _) in RECORDINGS.items()},
                FOLDER, ["strands-agents", "openai", "opentelemetry-sdk"])

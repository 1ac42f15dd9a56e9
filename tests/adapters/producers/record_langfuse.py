"""Record Langfuse SDK spans (``langfuse`` 5.x, OpenTelemetry-based).

The weather agent is traced with Langfuse's own ``@observe`` decorators (``as_type="agent"``
and ``"tool"``) and its OpenAI drop-in client (``langfuse.openai``), over a real ``openai``
client whose ``httpx2`` mock transport plays the model. The Langfuse client is given an
in-memory span exporter (its ``span_exporter`` option) instead of the Langfuse server, and the
spans are written with the OTLP protobuf encoder: what the SDK sends to ``/api/public/otel``.
``weather_tool_error`` has the tool raise. Rewrites ``tests/data/adapters/otel_langfuse/``::

    python tests/adapters/producers/record_langfuse.py
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, record_each, write

FOLDER = DATA / "otel_langfuse"


def _reported(tool: Callable[..., str]) -> Callable[[dict[str, Any]], str]:
    """Return ``tool`` taking its arguments as one dict, a failure answered as the error's text
    (what the agent tells the model)."""
    def run(arguments: dict[str, Any]) -> str:
        try:
            return tool(**arguments)
        except RuntimeError as exc:
            return f"error: {exc}"
    return run


def record(name: str, failing: bool) -> None:
    import httpx2
    from _mock_openai import answer_with_tools, weather, weather_model
    from langfuse import Langfuse, observe
    from langfuse.openai import OpenAI
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    langfuse = Langfuse(public_key="pk-lf-test", secret_key="sk-lf-test",
                        base_url="http://127.0.0.1:9", span_exporter=exporter)
    client = OpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                    http_client=httpx2.Client(transport=weather_model("Paris")))

    @observe(name="get_weather", as_type="tool")
    def get_weather(city: str) -> str:
        if failing:
            raise RuntimeError("weather service unavailable")
        return weather(city)

    @observe(name="weather_agent", as_type="agent")
    def run(question: str) -> str:
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You answer weather questions."},
            {"role": "user", "content": question},
        ]
        return answer_with_tools(client, messages, _reported(get_weather))

    run("What is the weather in Paris?")
    langfuse.flush()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    record_each(__file__, lambda recording: record(recording, recording.endswith("error")),
                {recording: {"LANGFUSE_TRACING_ENVIRONMENT": "test"}
                 for recording in ("weather", "weather_tool_error")},
                FOLDER, ["langfuse", "openai", "opentelemetry-sdk"])

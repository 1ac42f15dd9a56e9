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

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, write, write_versions

FOLDER = DATA / "otel_langfuse"
TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def record(name: str, failing: bool) -> None:
    import httpx2
    from _mock_openai import weather_model
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
        return json.dumps({"city": city, "temperature_c": 18, "sky": "sunny"})

    @observe(name="weather_agent", as_type="agent")
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
                try:
                    result = get_weather(**json.loads(call.function.arguments))
                except RuntimeError as exc:
                    result = f"error: {exc}"
                messages.append({"role": "tool", "tool_call_id": call.id, "content": result})

    run("What is the weather in Paris?")
    langfuse.flush()
    write(FOLDER / f"{name}.otlp.json", exporter.get_finished_spans())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        record(sys.argv[1], sys.argv[1].endswith("error"))
    else:
        for recording in ("weather", "weather_tool_error"):
            env = {**os.environ, "LANGFUSE_TRACING_ENVIRONMENT": "test"}
            subprocess.run([sys.executable, __file__, recording], env=env, check=True)
        write_versions(FOLDER, ["langfuse", "openai", "opentelemetry-sdk"])

"""Record the official OpenAI instrumentation (``opentelemetry-instrumentation-openai-v2``) on
an agent loop that opens no span of its own: one trace per chat call.

The loop calls a real ``openai`` client (an ``httpx2`` mock transport plays the model) and runs
the tool itself; the instrumentation records each chat call as a trace of its own, with the
messages on the span (``OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental``,
``OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=SPAN_ONLY``). ``weather.otlp.jsonl`` holds
the two traces of one conversation (one OTLP document per trace, as a file exporter batching
per trace writes); ``two_conversations.otlp.jsonl`` holds two unrelated conversations;
``two_turns.otlp.jsonl`` one conversation in which the user asks a second question after the
first answer (four traces, each extending the messages of the one before).
Rewrites ``tests/data/adapters/otel_openai_v2/``::

    python tests/adapters/producers/record_openai_v2.py
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("OTEL_SEMCONV_STABILITY_OPT_IN", "gen_ai_latest_experimental")
os.environ.setdefault("OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT", "SPAN_ONLY")

sys.path.insert(0, str(Path(__file__).parent))
import httpx2
import openai
from _mock_openai import answer_with_tools, asked_city_model, weather, weather_model
from _otlp import DATA, recorder, write, write_versions
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor

FOLDER = DATA / "otel_openai_v2"


def conversation(client: openai.OpenAI, question: str) -> None:
    answer_with_tools(client, [{"role": "user", "content": question}],
                      lambda arguments: weather(arguments["city"]))


def record(name: str, questions: list[tuple[str, str]]) -> None:
    provider, exporter = recorder("weather-agent")
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        for city, question in questions:
            client = openai.OpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                                   http_client=httpx2.Client(transport=weather_model(city)))
            conversation(client, question)
    finally:
        instrumentor.uninstrument()
    write(FOLDER / f"{name}.otlp.jsonl", exporter.get_finished_spans())


def record_two_turns() -> None:
    provider, exporter = recorder("weather-agent")
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        client = openai.OpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                               http_client=httpx2.Client(transport=asked_city_model()))
        messages: list[dict[str, object]] = [
            {"role": "user", "content": "What is the weather in Paris?"}]
        tool = lambda arguments: weather(arguments["city"])  # noqa: E731
        answer = answer_with_tools(client, messages, tool)
        messages += [{"role": "assistant", "content": answer},
                     {"role": "user", "content": "And in Rome?"}]
        answer_with_tools(client, messages, tool)
    finally:
        instrumentor.uninstrument()
    write(FOLDER / "two_turns.otlp.jsonl", exporter.get_finished_spans())


if __name__ == "__main__":
    record("weather", [("Paris", "What is the weather in Paris?")])
    record("two_conversations", [("Paris", "What is the weather in Paris?"),
                                 ("Rome", "What is the weather in Rome?")])
    record_two_turns()
    write_versions(FOLDER, ["opentelemetry-instrumentation-openai-v2",
                            "opentelemetry-util-genai", "openai", "opentelemetry-sdk"])

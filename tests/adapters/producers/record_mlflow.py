"""Record MLflow 3 traces (``Trace.to_json()``) of a weather agent, offline.

Runs the real ``mlflow`` tracing API (``pip install mlflow-skinny openai``): an ``AGENT`` span
around the loop, a ``CHAT_MODEL`` span per model call made with the real ``openai`` client over
a mock HTTP transport (inputs, outputs and ``mlflow.chat.tokenUsage`` set as MLflow's OpenAI
autolog sets them; autolog itself needs the full ``mlflow`` package), and a ``TOOL`` span per
tool run. The user asks for the weather in Paris, the model calls ``get_weather(city=...)``,
the tool answers, the model replies. Writes under ``tests/data/adapters/mlflow/``:

- ``weather.json``: one trace, ``Trace.to_json(pretty=True)``;
- ``weather_runs.jsonl``: three traces one per line (the right city, a wrong city, a tool
  that raises), ``Trace.to_json()`` each.

Run: ``/tmp/venv/bin/python tests/adapters/producers/record_mlflow.py``
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ["MLFLOW_ENABLE_ASYNC_TRACE_LOGGING"] = "false"
os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"

import httpx2
import mlflow
from mlflow.tracing.constant import SpanAttributeKey
from openai import OpenAI

sys.path.insert(0, str(Path(__file__).parent))
from _mock_openai import WEATHER_TOOLS

OUT = Path(__file__).parents[2] / "data" / "adapters" / "mlflow"
QUESTION = "What is the weather in Paris?"


def _completion(n: int, message: dict[str, Any], finish: str) -> dict[str, Any]:
    return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1767225600 + n,
            "model": "gpt-4.1-mini",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 50 + n, "completion_tokens": 10, "total_tokens": 60 + n}}


def _client(city: str, answer: str) -> OpenAI:
    call = {"id": "call_weather_1", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
    queue = [
        _completion(1, {"role": "assistant", "content": None, "tool_calls": [call]},
                    "tool_calls"),
        _completion(2, {"role": "assistant", "content": answer}, "stop"),
    ]

    def serve(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, json=queue.pop(0))

    return OpenAI(api_key="sk-test", base_url="http://openai.test/v1", max_retries=0,
                  http_client=httpx2.Client(transport=httpx2.MockTransport(serve)))


def _chat(client: OpenAI, messages: list[dict[str, Any]]) -> Any:
    with mlflow.start_span(name="Completions", span_type="CHAT_MODEL") as span:
        span.set_inputs({"messages": list(messages), "model": "gpt-4.1-mini",
                         "tools": WEATHER_TOOLS})
        reply = client.chat.completions.create(model="gpt-4.1-mini", messages=messages,
                                               tools=WEATHER_TOOLS)  # type: ignore[arg-type]
        span.set_outputs(reply.model_dump())
        span.set_attribute(SpanAttributeKey.CHAT_USAGE, {
            "input_tokens": reply.usage.prompt_tokens,
            "output_tokens": reply.usage.completion_tokens,
            "total_tokens": reply.usage.total_tokens,
        })
        return reply


@mlflow.trace(span_type="TOOL")
def get_weather(city: str) -> str:
    return f"18°C and sunny in {city}"


@mlflow.trace(name="get_weather", span_type="TOOL")
def get_weather_broken(city: str) -> str:
    raise RuntimeError(f"weather service unavailable for {city}")


def _agent(client: OpenAI, tool: Any) -> Any:
    @mlflow.trace(name="weather_agent", span_type="AGENT")
    def run(question: str) -> str | None:
        messages: list[dict[str, Any]] = [{"role": "user", "content": question}]
        reply = _chat(client, messages).choices[0].message
        messages.append(reply.model_dump(exclude_none=True))
        for call in reply.tool_calls or []:
            try:
                result = tool(**json.loads(call.function.arguments))
            except RuntimeError as exc:
                result = f"error: {exc}"
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
        answer: str | None = _chat(client, messages).choices[0].message.content
        return answer

    return run


def _record(city: str, tool: Any, answer: str) -> Any:
    _agent(_client(city, answer), tool)(QUESTION)
    trace = mlflow.get_trace(mlflow.get_last_active_trace_id())
    assert trace is not None
    return trace


def main() -> int:
    with tempfile.TemporaryDirectory() as store:
        mlflow.set_tracking_uri(f"file://{store}")
        mlflow.set_experiment("weather")
        right = _record("Paris", get_weather, "It is 18°C and sunny in Paris.")
        wrong = _record("London", get_weather, "It is 18°C and sunny in London.")
        broken = _record("Paris", get_weather_broken, "Sorry, the weather service is down.")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "weather.json").write_text(right.to_json(pretty=True) + "\n")
    lines = [trace.to_json() for trace in (right, wrong, broken)]
    (OUT / "weather_runs.jsonl").write_text("\n".join(lines) + "\n")
    (OUT / "VERSION.txt").write_text(
        f"mlflow-skinny {importlib.metadata.version('mlflow-skinny')}\n"
        f"openai {importlib.metadata.version('openai')}\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

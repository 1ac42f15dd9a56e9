"""Record Google ADK sessions (``Session.model_dump_json()``) of a weather agent, offline.

Runs the real ``google-adk`` package (``pip install google-adk``): an ``LlmAgent`` with a
``get_weather`` tool, driven by ``InMemoryRunner``, whose model is a ``BaseLlm`` subclass
playing scripted replies (no Gemini call): the user asks for the weather in Paris, the model
calls ``get_weather(city=...)``, the tool answers, the model replies. Writes the session as
ADK serialises it under ``tests/data/adapters/adk_session/``:

- ``weather.json``: the right call;
- ``weather_wrong_city.json``: the model asks for London;
- ``weather_tool_error.json``: the tool raises; ADK's ``on_tool_error_callback`` turns the
  exception into the function response ``{"error": ...}``, as ADK agents report tool errors.

Run: ``/tmp/venv/bin/python tests/adapters/producers/record_adk_session.py``
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

OUT = Path(__file__).parents[2] / "data" / "adapters" / "adk_session"
QUESTION = "What is the weather in Paris?"


class ScriptedModel(BaseLlm):
    """A model that calls get_weather(city) first, then answers with ``answer``."""

    city: str = "Paris"
    answer: str = "It is 18°C and sunny in Paris."

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        answered = any(
            part.function_response is not None
            for content in llm_request.contents for part in (content.parts or [])
        )
        if answered:
            part = types.Part(text=self.answer)
        else:
            part = types.Part(function_call=types.FunctionCall(
                id="adk-call-1", name="get_weather", args={"city": self.city}))
        yield LlmResponse(
            content=types.Content(role="model", parts=[part]),
            usage_metadata=types.GenerateContentResponseUsageMetadata(
                prompt_token_count=40, candidates_token_count=9, total_token_count=49),
        )


def get_weather(city: str) -> dict[str, str]:
    """Return the current weather of a city."""
    return {"status": "success", "report": f"18°C and sunny in {city}"}


def get_weather_broken(city: str) -> dict[str, str]:
    """Return the current weather of a city."""
    raise RuntimeError(f"weather service unavailable for {city}")


def _tool_error(tool: Any, args: dict[str, Any], tool_context: Any,
                error: Exception) -> dict[str, Any]:
    return {"error": str(error)}


async def _session(model: ScriptedModel, tool: Any) -> str:
    tool.__name__ = "get_weather"
    agent = LlmAgent(name="weather_agent", model=model, instruction="Answer weather questions.",
                     tools=[tool], on_tool_error_callback=_tool_error)
    runner = InMemoryRunner(agent=agent, app_name="weather")
    session = await runner.session_service.create_session(app_name="weather", user_id="u1")
    message = types.Content(role="user", parts=[types.Part(text=QUESTION)])
    async for _ in runner.run_async(user_id="u1", session_id=session.id, new_message=message):
        pass
    done = await runner.session_service.get_session(app_name="weather", user_id="u1",
                                                    session_id=session.id)
    assert done is not None
    return done.model_dump_json(indent=1)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    runs = {
        "weather": (ScriptedModel(model="scripted"), get_weather),
        "weather_wrong_city": (
            ScriptedModel(model="scripted", city="London",
                          answer="It is 18°C and sunny in London."), get_weather),
        "weather_tool_error": (
            ScriptedModel(model="scripted", answer="Sorry, the weather service is down."),
            get_weather_broken),
    }
    for name, (model, tool) in runs.items():
        (OUT / f"{name}.json").write_text(asyncio.run(_session(model, tool)) + "\n")
    (OUT / "VERSION.txt").write_text(f"google-adk {importlib.metadata.version('google-adk')}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The weather agent every recording script drives its real producer through.

:func:`weather_model` is a mock OpenAI chat-completions endpoint (an ``httpx2`` transport) that
asks for ``get_weather(city=...)`` once, then answers from the tool's result; streamed requests
get server-sent events, as the real endpoint sends them. :data:`WEATHER_TOOLS`,
:func:`weather` and :func:`answer_with_tools` are the tool and the agent loop the scripts
share. ``httpx2`` is imported only by :func:`weather_model`, so a script whose producer plays
the model itself needs no OpenAI client packages.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import httpx2

CREATED = 1795000000
MODEL = "gpt-4o-mini-2024-07-18"
WEATHER_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather of a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
"""The one tool the weather agent offers, as a chat-completions ``tools`` list."""


def weather(city: str) -> str:
    """Return what the weather tool answers for ``city`` (the same in every recording)."""
    return json.dumps({"city": city, "temperature_c": 18, "sky": "sunny"})


def answer_with_tools(client: Any, messages: list[dict[str, Any]],
                      run_tool: Callable[[dict[str, Any]], str]) -> str:
    """Drive a chat-completions ``client`` until the model answers: each tool call it asks for
    is run by ``run_tool`` (given the call's arguments) and its result appended. Returns the
    answer's text."""
    while True:
        answer = client.chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=WEATHER_TOOLS)
        choice = answer.choices[0].message
        if not choice.tool_calls:
            return choice.content or ""
        messages.append(choice.model_dump(exclude_none=True))
        for call in choice.tool_calls:
            result = run_tool(json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})


def _chunk(delta: dict[str, Any], finish: str | None) -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": CREATED,
            "model": MODEL, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


def _usage_chunk() -> dict[str, Any]:
    return {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": CREATED,
            "model": MODEL, "choices": [],
            "usage": {"prompt_tokens": 52, "completion_tokens": 14, "total_tokens": 66}}


def weather_model(city: str, *more: str) -> httpx2.MockTransport:
    """Return a transport whose model calls get_weather(city) first (then once for each city
    of ``more``, a turn each), then answers."""
    import httpx2

    cities = [city, *more]

    def reply(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content)
        last = body["messages"][-1]
        answered = sum(m["role"] == "tool" for m in body["messages"])
        if last["role"] == "tool" and answered < len(cities):
            message: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{answered + 1}", "type": "function",
                "function": {"name": "get_weather",
                             "arguments": json.dumps({"city": cities[answered]})},
            }]}
            finish = "tool_calls"
        elif last["role"] == "tool":
            content = last["content"]
            text = content if isinstance(content, str) else json.dumps(content)
            places = " and ".join(cities)
            answer = (f"Sorry, I could not get the weather in {places}." if "error" in text.lower()
                      else f"It is 18°C and sunny in {places}.")
            message = {"role": "assistant", "content": answer}
            finish = "stop"
        else:
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": "call_1", "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
            }]}
            finish = "tool_calls"
        if not body.get("stream"):
            return httpx2.Response(200, json={
                "id": "chatcmpl-1", "object": "chat.completion", "created": CREATED,
                "model": MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": {"prompt_tokens": 52, "completion_tokens": 14, "total_tokens": 66},
            })
        chunks = [_chunk({"role": "assistant"}, None)]
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            chunks.append(_chunk({"tool_calls": [{"index": 0, **call}]}, None))
        else:
            chunks.append(_chunk({"content": message["content"]}, None))
        chunks.append(_chunk({}, finish))
        chunks.append(_usage_chunk())
        sse = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
        return httpx2.Response(200, content=sse.encode(),
                               headers={"content-type": "text/event-stream"})

    return httpx2.MockTransport(reply)


def asked_city_model() -> httpx2.MockTransport:
    """Return a transport whose model calls get_weather for the city that ends the latest user
    message ("... in Rome?"), then answers from the tool's result: a conversation may go on
    with a second question, and each user turn gets its own call."""
    import httpx2

    def reply(request: httpx2.Request) -> httpx2.Response:
        messages = json.loads(request.content)["messages"]
        last = messages[-1]
        if last["role"] == "tool":
            city = json.loads(last["content"])["city"]
            message: dict[str, Any] = {"role": "assistant",
                                       "content": f"It is 18°C and sunny in {city}."}
            finish = "stop"
        else:
            city = last["content"].rstrip("?").split()[-1]
            asked = sum(m["role"] == "user" for m in messages)
            message = {"role": "assistant", "content": None, "tool_calls": [{
                "id": f"call_{asked}", "type": "function",
                "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
            }]}
            finish = "tool_calls"
        return httpx2.Response(200, json={
            "id": "chatcmpl-1", "object": "chat.completion", "created": CREATED, "model": MODEL,
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 52, "completion_tokens": 14, "total_tokens": 66},
        })

    return httpx2.MockTransport(reply)

"""A mock OpenAI chat-completions endpoint (an ``httpx2`` transport) that plays the weather model.

It asks for ``get_weather(city=...)`` once, then answers from the tool's result: the same
conversation every recording script drives its real producer through. Streamed requests get
server-sent events, as the real endpoint sends them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2

CREATED = 1795000000
MODEL = "gpt-4o-mini-2024-07-18"


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

"""Build Langfuse trace exports of a weather agent from the documented shape (NOT recorded).

The Langfuse UI's "Download JSON" of a trace is the trace with its observations, as the public
API's ``GET /api/public/traces/{id}`` returns it. Neither can be produced offline: the server
builds it from what the SDK sent. So this script writes the shape by hand (the user asks for
the weather in Paris, a GENERATION asks for ``get_weather(city=...)``, a TOOL observation runs
it, a second GENERATION answers), validates each trace with the real ``langfuse`` SDK's own
model of that response (``langfuse.api.TraceWithFullDetails``, ``pip install langfuse``) and
writes it with the model's serialiser (field aliases, as the API writes them). Writes under
``tests/data/adapters/langfuse_export/``: ``weather.json``, ``weather_wrong_city.json`` and
``weather_tool_error.json`` (the TOOL observation at level ERROR with a status message).

Run: ``/tmp/venv/bin/python tests/adapters/producers/build_langfuse_export.py``
"""

from __future__ import annotations

import importlib.metadata
import json
import sys
from pathlib import Path
from typing import Any

from langfuse.api import TraceWithFullDetails
from langfuse.api.core.pydantic_utilities import parse_obj_as

OUT = Path(__file__).parents[2] / "data" / "adapters" / "langfuse_export"
QUESTION = "What is the weather in Paris?"
TRACE_ID = "7f3c1c5e2b8a4d6f9e0a1b2c3d4e5f60"


def _observation(
    n: int, kind: str, name: str, start: str, end: str, parent: str | None, **fields: Any
) -> dict[str, Any]:
    return {
        "id": f"obs-{n}", "traceId": TRACE_ID, "type": kind, "name": name,
        "startTime": f"2026-01-01T10:00:{start}Z", "endTime": f"2026-01-01T10:00:{end}Z",
        "parentObservationId": parent, "level": fields.pop("level", "DEFAULT"),
        "statusMessage": fields.pop("statusMessage", None), "environment": "default",
        "input": fields.pop("input", None), "output": fields.pop("output", None),
        "metadata": {}, **_usage(fields.pop("usage", {})),
        "costDetails": {}, "model": fields.pop("model", None), "modelParameters": {},
        "completionStartTime": None, "promptId": None, "version": None, **fields,
    }


def _usage(details: dict[str, int]) -> dict[str, Any]:
    counts = {key: details.get(key, 0) for key in ("input", "output", "total")}
    return {"usage": {**counts, "unit": "TOKENS"}, "usageDetails": details}


def _trace(city: str, result: str, answer: str, *, failed: bool = False) -> dict[str, Any]:
    call = {"id": "call_weather_1", "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})}}
    asked = [{"role": "system", "content": "Answer weather questions."},
             {"role": "user", "content": QUESTION}]
    tool: dict[str, Any] = {"input": {"city": city}, "output": None if failed else result}
    if failed:
        tool.update(level="ERROR", statusMessage=result)
    observations = [
        _observation(1, "AGENT", "weather_agent", "00.000", "02.000", None,
                     input={"question": QUESTION}, output=answer),
        _observation(2, "GENERATION", "chat", "00.100", "00.900", "obs-1", model="gpt-4.1-mini",
                     input=asked,
                     output={"role": "assistant", "content": None, "tool_calls": [call]},
                     usage={"input": 61, "output": 12, "total": 73}),
        _observation(3, "TOOL", "get_weather", "01.000", "01.100", "obs-1", **tool),
        _observation(4, "GENERATION", "chat", "01.200", "01.900", "obs-1", model="gpt-4.1-mini",
                     input=[*asked, {"role": "assistant", "content": None, "tool_calls": [call]},
                            {"role": "tool", "tool_call_id": "call_weather_1",
                             "content": result}],
                     output={"role": "assistant", "content": answer},
                     usage={"input": 80, "output": 11, "total": 91}),
    ]
    document = {
        "id": TRACE_ID, "timestamp": "2026-01-01T10:00:00Z", "name": "weather_agent",
        "input": {"question": QUESTION}, "output": answer, "sessionId": None, "release": None,
        "version": None, "userId": None, "metadata": {}, "tags": [], "public": False,
        "environment": "default", "htmlPath": f"/project/p1/traces/{TRACE_ID}",
        "latency": 2.0, "totalCost": 0.0, "observations": observations, "scores": [],
    }
    model = parse_obj_as(TraceWithFullDetails, document)  # as the SDK's API client reads it
    written: dict[str, Any] = json.loads(model.json())
    return written


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    runs = {
        "weather": _trace("Paris", "18°C and sunny in Paris", "It is 18°C and sunny in Paris."),
        "weather_wrong_city": _trace("London", "18°C and sunny in London",
                                     "It is 18°C and sunny in London."),
        "weather_tool_error": _trace("Paris", "weather service unavailable",
                                     "Sorry, the weather service is down.", failed=True),
    }
    for name, document in runs.items():
        (OUT / f"{name}.json").write_text(json.dumps(document, indent=1, ensure_ascii=False)
                                          + "\n")
    (OUT / "VERSION.txt").write_text(
        f"langfuse {importlib.metadata.version('langfuse')} (shape validated, not recorded)\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Record MCP client and server spans of ``tools/call`` (``mcp``), under a Strands agent.

A real ``mcp`` server (``MCPServer`` with a ``get_weather`` tool) runs in process over mcp's
own in-memory streams; a real ``strands.Agent`` calls it through Strands' ``MCPClient``, its
model a Strands ``OpenAIModel`` over an ``openai`` client with an ``httpx2`` mock transport.
The trace holds, for one call, Strands' ``execute_tool`` span, the MCP client span and the MCP
server span (``gen_ai.operation.name=execute_tool``, linked by ``jsonrpc.request.id``): one
tool call. ``weather_wrong_city`` has the model ask for London; ``two_cities`` makes two
``tools/call`` (Paris, then Rome). Rewrites
``tests/data/adapters/otel_mcp/``::

    python tests/adapters/producers/record_mcp.py
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _otlp import DATA, recorder, write, write_versions

FOLDER = DATA / "otel_mcp"


def weather_server() -> Any:
    from _mock_openai import weather
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("weather")

    @server.tool()
    def get_weather(city: str) -> str:
        """Current weather of a city."""
        return weather(city)

    return server


@asynccontextmanager
async def in_memory(server: Any) -> AsyncIterator[Any]:
    import anyio
    from mcp.shared.memory import create_client_server_memory_streams

    lowlevel = server._lowlevel_server
    async with (create_client_server_memory_streams() as (client_streams, server_streams),
                anyio.create_task_group() as group):
        async def run() -> None:
            await lowlevel.run(server_streams[0], server_streams[1],
                               lowlevel.create_initialization_options())

        group.start_soon(run)
        yield client_streams
        group.cancel_scope.cancel()


def record(name: str, city: str, *more: str) -> None:
    import openai
    from _mock_openai import weather_model
    from httpx2 import AsyncClient
    from opentelemetry import trace
    from strands import Agent
    from strands.models.openai import OpenAIModel
    from strands.tools.mcp import MCPClient

    provider, exporter = recorder("weather-agent")
    trace.set_tracer_provider(provider)
    server = weather_server()
    client = openai.AsyncOpenAI(api_key="sk-test", base_url="http://mock.local/v1",
                                http_client=AsyncClient(transport=weather_model(city, *more)))
    with MCPClient(lambda: in_memory(server)) as mcp_client:
        agent = Agent(model=OpenAIModel(client=client, model_id="gpt-4o-mini"),
                      tools=mcp_client.list_tools_sync(),
                      system_prompt="You answer weather questions.",
                      callback_handler=None, name="weather_agent")
        agent("What is the weather in Paris?")
    provider.force_flush()
    spans = exporter.get_finished_spans()
    # Opening the session (server/discover, tools/list) makes traces of their own, outside
    # the agent's run: the fixture is the agent's trace.
    run = next(s.context.trace_id for s in spans if s.name.startswith("invoke_agent"))
    write(FOLDER / f"{name}.otlp.json", [s for s in spans if s.context.trace_id == run])


if __name__ == "__main__":
    if len(sys.argv) > 1:
        record(sys.argv[1], *sys.argv[2:])
    else:
        import subprocess

        for recording, cities in (("weather", ["Paris"]), ("weather_wrong_city", ["London"]),
                                  ("two_cities", ["Paris", "Rome"])):
            subprocess.run([sys.executable, __file__, recording, *cities], check=True)
        write_versions(FOLDER, ["mcp", "strands-agents", "openai", "opentelemetry-sdk"])

"""Trace adapters: every supported trace format in, one :class:`~openeval.models.AgentTrace` out.

``load_trace(path)`` detects the format by content. Each format also has a Python entry point
(``from_openai_messages``, ``from_langchain_run`` ...), resolved lazily so that importing this
package never imports an optional dependency. Every entry point takes the same keywords
(``task_id``, ``input``, ``final_output``, ``actual_state``, ``metadata``), which replace what
the source says when given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.adapters.base import LoadOptions, TraceAdapter, TraceSource
from openeval.adapters.registry import (
    detect_format,
    format_names,
    get_adapter,
    load_trace,
    read_trace,
    register_adapter,
)
from openeval.lazy import lazy_exports

_LAZY: dict[str, str] = {
    "from_adk_session": "openeval.adapters.adk_session",
    "from_anthropic_messages": "openeval.adapters.anthropic",
    "from_fixtura_trace": "openeval.adapters.fixtura",
    "from_inspect_log": "openeval.adapters.inspect_log",
    "from_langchain_messages": "openeval.adapters.langchain",
    "from_langfuse_trace": "openeval.adapters.langfuse_export",
    "from_langchain_run": "openeval.adapters.langchain",
    "from_mlflow_trace": "openeval.adapters.mlflow",
    "from_openai_agents_trace": "openeval.adapters.openai_agents",
    "from_openai_messages": "openeval.adapters.openai",
    "from_otel_spans": "openeval.adapters.otel",
    "iter_traces": "openeval.adapters.stream",
}

__all__ = [
    "LoadOptions",
    "TraceAdapter",
    "TraceSource",
    "detect_format",
    "format_names",
    "from_adk_session",
    "from_anthropic_messages",
    "from_fixtura_trace",
    "from_inspect_log",
    "from_langchain_messages",
    "from_langchain_run",
    "from_langfuse_trace",
    "from_mlflow_trace",
    "from_openai_agents_trace",
    "from_openai_messages",
    "from_otel_spans",
    "get_adapter",
    "iter_traces",
    "load_trace",
    "read_trace",
    "register_adapter",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)


if TYPE_CHECKING:
    from openeval.adapters.adk_session import from_adk_session
    from openeval.adapters.anthropic import from_anthropic_messages
    from openeval.adapters.fixtura import from_fixtura_trace
    from openeval.adapters.inspect_log import from_inspect_log
    from openeval.adapters.langchain import from_langchain_messages, from_langchain_run
    from openeval.adapters.langfuse_export import from_langfuse_trace
    from openeval.adapters.mlflow import from_mlflow_trace
    from openeval.adapters.openai import from_openai_messages
    from openeval.adapters.openai_agents import from_openai_agents_trace
    from openeval.adapters.otel import from_otel_spans
    from openeval.adapters.stream import iter_traces

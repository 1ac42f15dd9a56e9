"""OpenEval's own trace format: the JSON of ``AgentTrace.to_dict()``.

Files written by openeval-core 0.2.1 are a subset of this format and load unchanged.
"""

from __future__ import annotations

from openeval.adapters.base import TraceSource
from openeval.errors import TraceFormatError
from openeval.models import AgentTrace
from openeval.schemas import validate


class NativeAdapter:
    """Reads a JSON object with ``task_id`` and ``steps`` (OpenEval's own trace JSON)."""

    name = "native"
    description = "OpenEval trace JSON (AgentTrace.to_dict(); openeval-core 0.2.1 traces too)"

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for a JSON object with a string ``task_id`` and a ``steps`` list."""
        document = source.document_or_none()
        if not isinstance(document, dict):
            return "not a JSON object" if document is not None else "not a JSON document"
        if not isinstance(document.get("steps"), list):
            return "no 'steps' list"
        if not isinstance(document.get("task_id"), str):
            return "no 'task_id' string"
        return None

    def typed_decode(self, data: bytes) -> AgentTrace | None:
        """Return the trace in one line or document ``data`` when the typed decoder accepts
        it (what :meth:`refusal` and :meth:`load` would give), else None: the caller then
        reads it the general way, which words any error (proposals/0183)."""
        from openeval.adapters.native_typed import decode

        return decode(data)

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the trace, after checking it against the trace schema."""
        document = source.document()
        validate(document, "trace", source=source.path, error=TraceFormatError)
        return AgentTrace.from_dict(document)


ADAPTER = NativeAdapter()

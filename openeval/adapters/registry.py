"""The adapter registry: which trace formats exist, and how a file finds its reader.

The recipe every kind of entry follows (proposals/0110-one-registry-recipe.md): a built-in
adapter is one module in this package exposing ``ADAPTER`` and one line in ``_BUILTIN`` below;
third-party adapters register through the ``openeval.adapters`` entry-point group (the entry
point names an object with the :class:`TraceAdapter` shape, or a module holding ``ADAPTER``),
or at run time with :func:`register`; :func:`get` and :func:`names` read all three. The
registry is the shared :class:`openeval.registry.Registry`, set to list added formats first,
so a plugin's format is tried before the built-ins. Modules are imported only when a trace is
read, so ``openeval --help`` never pays for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openeval.adapters.base import LoadOptions, TraceAdapter, TraceSource
from openeval.errors import TraceFormatError
from openeval.io import check_trace
from openeval.io.limits import check_json_values
from openeval.io.source import first_byte
from openeval.jsonio import UTF8_BOM
from openeval.models import AgentTrace
from openeval.registry import Registry

# Detection order. The native format comes first: it is what suites hold most, and its refusal
# (an object with a string task_id and a steps list) matches no other format's shape. Among
# the others, the most specific shapes come before the looser ones (openai before anthropic:
# a text-only message list reads as openai).
_BUILTIN: dict[str, str] = {
    "native": "openeval.adapters.native",
    "fixtura": "openeval.adapters.fixtura",
    "otel": "openeval.adapters.otel",
    "langchain": "openeval.adapters.langchain",
    "openai_agents": "openeval.adapters.openai_agents",
    "mlflow": "openeval.adapters.mlflow",
    "inspect": "openeval.adapters.inspect_log",
    "adk_session": "openeval.adapters.adk_session",
    "langfuse_export": "openeval.adapters.langfuse_export",
    "openai": "openeval.adapters.openai",
    "anthropic": "openeval.adapters.anthropic",
}

BUILTIN: dict[str, str] = {name: f"{module}:ADAPTER" for name, module in _BUILTIN.items()}
"""Built-in formats as ``name -> module:ADAPTER``, in detection order (the table above)."""

REGISTRY: Registry[Any] = Registry(
    "trace format", "openeval.adapters", BUILTIN, added_first=True, module_attr="ADAPTER",
    error=TraceFormatError,
)

ADAPTERS = REGISTRY
"""The name :data:`REGISTRY` had before every registry followed one recipe."""


def register(adapter: TraceAdapter) -> TraceAdapter:
    """Add ``adapter`` to the registry (tried before the built-ins, replacing one of the same
    name); return it unchanged."""
    REGISTRY.register(adapter.name, adapter, replace=True)
    return adapter


def get(name: str) -> TraceAdapter:
    """Return the adapter called ``name``; raise TraceFormatError listing the valid names."""
    adapter: TraceAdapter = REGISTRY.get(name)
    return adapter


def names() -> list[str]:
    """Return every known format name, in detection order."""
    return REGISTRY.names()


register_adapter = register
get_adapter = get
format_names = names


def detect_format(source: TraceSource) -> TraceAdapter:
    """Return the first adapter that accepts ``source``.

    Raises TraceFormatError listing every format tried and why each refused.
    """
    reasons: list[str] = []
    for name in format_names():
        adapter = get_adapter(name)
        reason = adapter.refusal(source)
        if reason is None:
            return adapter
        reasons.append(f"{name}: {reason}")
    _raise_if_broken_json(source)
    raise TraceFormatError(
        "not a trace format OpenEval knows (force one with --format); tried "
        + "; ".join(reasons),
        source=source.path,
    )


def _raise_if_broken_json(source: TraceSource) -> None:
    """Raise the read error of a file that is JSON (or zstd) but cannot be read as such.

    "No adapter knows this format" would hide the real problem: a corrupt or truncated zstd
    frame, one that needs a dictionary, a truncated or hand-edited JSON document, ``NaN``
    written by Python's json module. The read error names the line and column, or the byte.
    """
    if source.is_zstd:
        if source.first_line_error is not None:
            raise source.first_line_error
        return
    if source.head.removeprefix(UTF8_BOM).lstrip()[:1] not in (b"{", b"["):
        return
    if source.is_json_lines:
        return  # JSON Lines whose first line parses: the adapters' refusals say more
    source.document()


def read_trace(
    path: str | Path, format: str | None = None, *, options: LoadOptions | None = None
) -> tuple[AgentTrace, str]:
    """Return the trace stored in ``path`` and the name of the format it was read as.

    The format is detected by content unless ``format`` names one. Raises TraceFormatError
    (naming the file and, where known, the line or JSON path) when the file is missing, empty,
    in no known format, or broken.
    """
    source = TraceSource(path, options)  # a Path kept as it is
    try:
        if not first_byte(source.head):  # a missing file fails here, before any adapter
            raise TraceFormatError("empty file, expected a trace", source=source.path)
        trace = _typed_native(source) if format in (None, "native") else None
        if trace is not None:
            check_trace(trace, source.limits, source.path, size=source.size)
            return trace, "native"
        adapter = get_adapter(format) if format else detect_format(source)
        trace = adapter.load(source)
    except MemoryError:
        # The readers bound what they hold by the read limits; past those, only the machine
        # is left, and running out of it is a fact about this file, said as one.
        raise TraceFormatError(
            "does not fit in the memory available while it is read (lower the read limits, "
            "or give OpenEval more memory)",
            source=source.path,
        ) from None
    check_trace(trace, source.limits, source.path)
    return trace, adapter.name


def _typed_native(source: TraceSource) -> AgentTrace | None:
    """Return the trace when ``source`` is a native trace the typed decoder accepts, else None.

    Native comes first in detection and accepts every object the decoder does, so the answer
    is what detection and the native adapter would give; on None they read the file and word
    any error as they always have (openeval/adapters/native_typed.py).
    """
    data = source.plain_bytes()
    if data is None:
        return None
    check_json_values(data, source.limits, source.path)  # before the parse spends the memory
    from openeval.adapters.native_typed import decode

    return decode(data)


def load_trace(
    path: str | Path, format: str | None = None, *, options: LoadOptions | None = None
) -> AgentTrace:
    """Return the trace stored in ``path``, detecting its format by content unless ``format``.

    Raises TraceFormatError as :func:`read_trace` does.
    """
    return read_trace(path, format, options=options)[0]

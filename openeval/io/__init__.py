"""Reading trace bytes: files and bytes, zstd frames, JSON Lines, and the limits on all of it.

This package knows nothing of trace formats: it turns a path (or bytes) into a
:class:`TraceSource` that adapters sniff and read, streaming where it can and within the
:class:`ReadLimits`. The rule for which files may be read at all is in
:mod:`openeval.io.files`. See proposals/0015-io-layer.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports

# Lazy, so that openeval.jsonio can use the read rule (openeval.io.files) without importing
# the sources, which import openeval.jsonio themselves.
_LAZY: dict[str, str] = {
    "HEAD_BYTES": "openeval.io.source",
    "ZSTD_MAGIC": "openeval.io.zstd",
    "ReadLimits": "openeval.io.limits",
    "TraceBudget": "openeval.io.limits",
    "TraceSource": "openeval.io.source",
    "check_trace": "openeval.io.limits",
    "open_regular": "openeval.io.files",
}

__all__ = [
    "HEAD_BYTES",
    "ZSTD_MAGIC",
    "ReadLimits",
    "TraceBudget",
    "TraceSource",
    "check_trace",
    "open_regular",
]


__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)


if TYPE_CHECKING:
    from openeval.io.files import open_regular
    from openeval.io.limits import ReadLimits, TraceBudget, check_trace
    from openeval.io.source import HEAD_BYTES, TraceSource
    from openeval.io.zstd import ZSTD_MAGIC

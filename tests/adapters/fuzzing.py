"""Hypothesis helpers shared by the adapter tests (imported as ``fuzzing``; not a test file)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from openeval.adapters import get_adapter
from openeval.adapters.base import TraceSource
from openeval.errors import OpenEvalError
from openeval.models import AgentTrace


def json_values(keys: Sequence[str], *, floats: bool = False) -> st.SearchStrategy[Any]:
    """Return a strategy of small JSON values whose objects use ``keys`` (a format's own words).

    Drawing keys from the format's vocabulary makes the generated documents look enough like
    the real thing to get past the first shape checks, where the interesting bugs are.
    """
    scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8)
    if floats:
        scalars = scalars | st.floats(allow_nan=False, allow_infinity=False)
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(list(keys)), inner, max_size=5),
        max_leaves=20,
    )


def replace_at(document: Any, path: Sequence[int], replacement: Any) -> Any:
    """Return a copy of ``document`` with the node ``path`` walks to replaced (indices wrap).

    Each index picks a child (object keys in sorted order); the walk stops early at a leaf.
    """
    if not path or not isinstance(document, (dict, list)) or not document:
        return replacement
    keys = sorted(document) if isinstance(document, dict) else list(range(len(document)))
    key = keys[path[0] % len(keys)]
    copy: Any = dict(document) if isinstance(document, dict) else list(document)
    copy[key] = replace_at(document[key], path[1:], replacement)
    return copy


def assert_reads_or_refuses(format_name: str, path: Path) -> None:
    """Check that the adapter ``format_name`` handles the file at ``path`` as promised.

    Its refusal never raises. Loading either returns a trace that survives a round trip, or
    raises our own error naming this file.
    """
    adapter = get_adapter(format_name)
    refusal = adapter.refusal(TraceSource(path))
    assert refusal is None or isinstance(refusal, str)
    try:
        trace = adapter.load(TraceSource(path))
    except OpenEvalError as exc:
        assert exc.source == str(path)
        return
    assert AgentTrace.from_dict(trace.to_dict()) == trace

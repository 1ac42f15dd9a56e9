"""Reading a trace file by content: what the registry says when no adapter can read it."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from openeval import adapters
from openeval.adapters import load_trace
from openeval.errors import TraceFormatError

NATIVE = {"task_id": "t", "steps": [], "metadata": {"score": float("nan")}}


@pytest.mark.parametrize(
    ("dump", "literal", "location"),
    [
        (lambda v: json.dumps(v), "NaN", "line 1 column 53"),
        (lambda v: json.dumps(v, indent=2), "NaN", "line 5 column 14"),
        (lambda v: json.dumps([{"role": "user", "content": "hi", "x": float("inf")}]),
         "Infinity", "line 1 column 41"),
        (lambda v: json.dumps({"a": float("-inf")}), "-Infinity", "line 1 column 8"),
    ],
    ids=["one line", "indented", "Infinity", "-Infinity"],
)
def test_python_non_finite_floats_are_named(
    tmp_path: Path, dump: Any, literal: str, location: str
) -> None:
    # Python's json.dump writes these for float("nan") / float("inf"); they are not JSON.
    path = tmp_path / "trace.json"
    path.write_text(dump(NATIVE))
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.message.startswith(f"{literal} is not valid JSON")
    assert caught.value.location == location


ENTRY_POINTS = [
    "from_anthropic_messages", "from_fixtura_trace", "from_langchain_messages",
    "from_langchain_run", "from_openai_messages", "from_otel_spans",
]
SHARED = ("task_id", "input", "final_output", "actual_state", "metadata")


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_every_entry_point_takes_the_same_keywords(name: str) -> None:
    parameters = inspect.signature(getattr(adapters, name)).parameters
    keywords = {
        p.name for p in parameters.values()
        if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
    }
    assert set(SHARED) <= keywords

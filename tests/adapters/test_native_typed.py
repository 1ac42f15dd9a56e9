"""The typed native decoder answers exactly as the general reader: the same trace for what it
accepts, and for everything else no answer, so the general reader's error stands word for word."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from openeval.adapters.base import TraceSource
from openeval.adapters.native_typed import STEP_FIELDS, _Step, decode
from openeval.adapters.registry import detect_format, load_trace
from openeval.adapters.stream import TraceRecord, Unreadable, iter_traces
from openeval.errors import TraceFormatError
from openeval.jsonio import dump_json
from openeval.models import TraceStep

CASES = json.loads((Path(__file__).parents[1] / "data" / "adapters" / "native_typed"
                    / "cases.json").read_text(encoding="utf-8"))


def _general(path: Path) -> Any:
    """What the reader without the typed path gives: the trace's bytes, or the error line."""
    source = TraceSource(path)
    try:
        trace = detect_format(source).load(source)
    except TraceFormatError as exc:
        return str(exc)
    return dump_json(trace.to_dict())


def _loaded(path: Path) -> Any:
    try:
        return dump_json(load_trace(path).to_dict())
    except TraceFormatError as exc:
        return str(exc)


@pytest.mark.parametrize("name", sorted(CASES["refused"]))
def test_what_the_general_reader_refuses_gets_its_error(tmp_path: Path, name: str) -> None:
    path = tmp_path / "trace.json"
    path.write_text(CASES["refused"][name], encoding="utf-8", errors="surrogatepass")
    assert decode(path.read_bytes()) is None
    general = _general(path)
    assert isinstance(general, str) and general.startswith(str(path)), general
    assert _loaded(path) == general


@pytest.mark.parametrize("name", sorted(CASES["accepted"]))
def test_what_it_accepts_is_the_general_readers_trace(tmp_path: Path, name: str) -> None:
    path = tmp_path / "trace.json"
    path.write_text(CASES["accepted"][name], encoding="utf-8", errors="surrogatepass")
    typed = decode(path.read_bytes())
    assert typed is not None
    general = _general(path)
    assert isinstance(general, bytes), general
    assert dump_json(typed.to_dict()) == general
    assert _loaded(path) == general


def test_example_traces_read_the_same_both_ways() -> None:
    traces = sorted((Path(__file__).parents[2] / "examples").rglob("trace.json"))
    assert len(traces) > 10
    for path in traces:
        if decode(path.read_bytes()) is not None:
            assert _loaded(path) == _general(path), path


def test_the_step_struct_mirrors_the_model() -> None:
    assert _Step.__struct_fields__ == STEP_FIELDS == tuple(f.name for f in fields(TraceStep))


@pytest.mark.parametrize("name", sorted(n for n, text in CASES["refused"].items()
                                        if "\n" not in text))
def test_a_json_lines_file_of_native_traces_keeps_every_refusal(tmp_path: Path, name: str
                                                                ) -> None:
    good = CASES["accepted"]["every-field"]
    path = tmp_path / "traces.jsonl"
    path.write_text(f"{good}\n{CASES['refused'][name]}\n{good}\n", encoding="utf-8",
                    errors="surrogatepass")
    records = list(iter_traces(path))
    assert [type(r).__name__ for r in records] == ["TraceRecord", "Unreadable", "TraceRecord"]
    first = records[0]
    assert isinstance(first, TraceRecord) and first.format == "native"
    (tmp_path / "one.json").write_text(good, encoding="utf-8")
    assert dump_json(first.trace.to_dict()) == _general(tmp_path / "one.json")
    refused = records[1]
    assert isinstance(refused, Unreadable) and refused.line == 2 and refused.message

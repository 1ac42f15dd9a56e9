"""Many traces per file: iter_traces / read_records over real producers' output and bad lines.

Line-level cases are data (tests/data/production/line_cases.json); OTel files are written from
real opentelemetry-sdk spans with the SDK's own OTLP encoder, OpenAI and Anthropic lines from
the SDKs' own objects dumped.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from openeval.adapters import LoadOptions, iter_traces, load_trace
from openeval.adapters.stream import (
    TraceRecord,
    Unreadable,
    expand_inputs,
    read_blob_records,
    read_records,
)
from openeval.errors import OpenEvalError, TraceFormatError

DATA = Path(__file__).resolve().parents[1] / "data" / "production"
CASES = json.loads((DATA / "line_cases.json").read_text())["cases"]


def _line(item: Any) -> bytes:
    if isinstance(item, str):
        return item.encode()
    if isinstance(item, dict) and "$repeat" in item:
        return b"x" * item["$repeat"]
    return orjson.dumps(item)


def _outcome(item: TraceRecord | Unreadable) -> list[Any]:
    if isinstance(item, TraceRecord):
        return ["trace", item.line, item.trace_id]
    return ["unreadable", item.line, item.message]


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "zstd"])
def test_line_cases(case: dict[str, Any], compressed: bool, tmp_path: Path) -> None:
    data = b"\n".join(_line(x) for x in case["lines"]) + b"\n"
    if compressed:
        data = zstandard.ZstdCompressor().compress(data)
    path = tmp_path / ("traces.jsonl.zst" if compressed else "traces.jsonl")
    path.write_bytes(data)
    options = LoadOptions(max_line_bytes=case.get("max_line_bytes", LoadOptions.max_line_bytes))
    got = [_outcome(i) for i in read_records(path, trace_format=case.get("format"),
                                             options=options)]
    expected = [[kind, line, text.replace("{file}", path.as_posix())]
                for kind, line, text in case["expect"]]
    assert [g[:2] for g in got] == [e[:2] for e in expected]
    for (kind, _, found), (_, _, wanted) in zip(got, expected, strict=True):
        assert wanted == found if kind == "trace" else wanted in found
    # The same bytes in memory (what a Ray worker gets) give the same records.
    blob = [_outcome(i) for i in read_blob_records(path.as_posix(), data,
                                                   trace_format=case.get("format"),
                                                   options=options)]
    assert blob == got


# --- OTel: real SDK spans of several traces, interleaved over export lines ---------------------


def _otel_spans(traces: int, *, drop_root_of: int | None = None) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": "support"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("tests")
    for n in range(traces):
        answer = json.dumps([{"role": "assistant",
                              "parts": [{"type": "text", "content": f"answer {n}"}]}])
        with tracer.start_as_current_span("invoke_agent support", attributes={
            "gen_ai.operation.name": "invoke_agent", "gen_ai.output.messages": answer,
        }), tracer.start_as_current_span(f"execute_tool lookup_{n}", attributes={
            "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": f"lookup_{n}",
            "gen_ai.tool.call.arguments": '{"id": 1}',
        }):
            pass
    spans = list(exporter.get_finished_spans())
    if drop_root_of is not None:
        root_trace = spans[2 * drop_root_of].context.trace_id
        spans = [s for s in spans if not (s.context.trace_id == root_trace and s.parent is None)]
    return spans


def _export_line(spans: list[ReadableSpan]) -> bytes:
    return orjson.dumps(MessageToDict(encode_spans(spans)))


def _interleaved(spans: list[ReadableSpan]) -> bytes:
    """Children of every trace first, then the roots in reverse: a collector's mixed batches."""
    children = [s for s in spans if s.parent is not None]
    roots = [s for s in spans if s.parent is None][::-1]
    return _export_line(children) + b"\n" + b"\n".join(_export_line([r]) for r in roots) + b"\n"


def _tool_of(record: TraceRecord) -> str | None:
    return record.trace.steps[0].tool_name if record.trace.steps else None


def test_otel_collector_file_is_split_by_trace_id(tmp_path: Path) -> None:
    spans = _otel_spans(3)
    path = tmp_path / "export.otlp.jsonl"
    path.write_bytes(_interleaved(spans))
    records = list(read_records(path))
    assert all(isinstance(r, TraceRecord) for r in records)
    ids = {f"{s.context.trace_id:032x}" for s in spans}
    got = [r for r in records if isinstance(r, TraceRecord)]
    assert {r.trace_id for r in got} == ids
    # Each trace has its own tool and answer: no spans of one leak into another.
    assert sorted(_tool_of(r) or "" for r in got) == ["lookup_0", "lookup_1", "lookup_2"]
    for r in got:
        assert r.trace.final_output == f"answer {_tool_of(r)[-1]}"  # type: ignore[index]
        assert r.line == 1 and r.format == "otel"
    # Roots come on lines 2-4 in reverse: traces come in the order they end.
    assert [_tool_of(r) for r in got] == ["lookup_2", "lookup_1", "lookup_0"]


def test_a_single_trace_entry_point_refuses_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "export.otlp.jsonl"
    path.write_bytes(_interleaved(_otel_spans(2)))
    with pytest.raises(TraceFormatError, match=r"holds 2 traces .*openeval score"):
        load_trace(path)


def test_otel_trace_that_never_got_its_root_is_unreadable(tmp_path: Path) -> None:
    spans = _otel_spans(2, drop_root_of=0)
    path = tmp_path / "export.otlp.jsonl"
    path.write_bytes(_interleaved(spans))
    records = list(read_records(path))
    unreadable = [r for r in records if isinstance(r, Unreadable)]
    assert len(unreadable) == 1 and unreadable[0].line == 1
    assert "no root span among its 1 span on line 1" in unreadable[0].message
    assert [_tool_of(r) for r in records if isinstance(r, TraceRecord)] == ["lookup_1"]


def test_otel_document_with_several_traces_is_split(tmp_path: Path) -> None:
    path = tmp_path / "export.otlp.json"
    path.write_bytes(json.dumps(MessageToDict(encode_spans(_otel_spans(2))), indent=2).encode())
    records = list(read_records(path))
    assert [(type(r).__name__, r.line) for r in records] == [("TraceRecord", 1)] * 2


# --- OpenAI / Anthropic SDK objects, dumped one per line ------------------------------------


def _openai_line(n: int) -> dict[str, Any]:
    from openai.types.chat import ChatCompletion

    completion = ChatCompletion.model_validate({
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": f"reply {n}"}}],
    })
    return {"task_id": f"oa-{n}", "messages": [
        {"role": "user", "content": f"question {n}"}, completion.model_dump(mode="json")]}


def _anthropic_line(n: int) -> dict[str, Any]:
    from anthropic.types import Message

    message = Message.model_validate({
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": "claude-sonnet-4",
        "content": [{"type": "text", "text": f"reply {n}"}], "stop_reason": "end_turn",
        "usage": {"input_tokens": 3, "output_tokens": 2},
    })
    return {"task_id": f"an-{n}", "messages": [
        {"role": "user", "content": f"question {n}"}, message.model_dump(mode="json")]}


@pytest.mark.parametrize("make", [_openai_line, _anthropic_line], ids=["openai", "anthropic"])
def test_sdk_objects_one_per_line(make: Any, tmp_path: Path) -> None:
    path = tmp_path / "dump.jsonl"
    path.write_bytes(b"".join(orjson.dumps(make(n)) + b"\n" for n in range(3)))
    records = list(read_records(path))
    assert [(r.line, r.trace.final_output) for r in records  # type: ignore[union-attr]
            ] == [(n + 1, f"reply {n}") for n in range(3)]


# --- whole files, inputs --------------------------------------------------------------------


def test_fixtura_trace_is_one_trace(tmp_path: Path) -> None:
    source = Path(__file__).resolve().parents[1] / "data" / "adapters" / "fixtura"
    records = list(read_records(source / "checkout.trace"))
    assert [(type(r).__name__, r.line, r.format) for r in records] == [
        ("TraceRecord", 1, "fixtura")]


def test_truncated_zstd_stream_is_one_unreadable_record_after_the_lines_before(
    tmp_path: Path,
) -> None:
    lines = b"".join(orjson.dumps({"task_id": f"t{n}", "steps": []}) + b"\n" for n in range(50))
    data = zstandard.ZstdCompressor().compress(lines)
    path = tmp_path / "cut.jsonl.zst"
    path.write_bytes(data[: len(data) - 5])
    records = list(read_records(path))
    *read, last = records
    assert all(isinstance(r, TraceRecord) for r in read)
    assert isinstance(last, Unreadable) and "truncated" in last.message
    assert last.line == len(read) + 1


def test_empty_file_is_one_record_at_line_0(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"\n\n")
    assert [str(r) for r in read_records(path)] == [f"{path.as_posix()}: empty file, "
                                                    "expected traces"]


def test_inputs_files_folders_globs(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("a.jsonl", "b/c.jsonl.zst", "b/notes.txt", "b/.hidden.jsonl"):
        (tmp_path / name).write_bytes(b"{}")
    assert expand_inputs([tmp_path]) == [tmp_path / "a.jsonl", tmp_path / "b" / "c.jsonl.zst"]
    assert expand_inputs([f"{tmp_path}/**/*.zst", tmp_path / "a.jsonl", tmp_path]) == [
        tmp_path / "b" / "c.jsonl.zst", tmp_path / "a.jsonl"]
    with pytest.raises(OpenEvalError, match="no file matches the glob"):
        expand_inputs([f"{tmp_path}/*.parquet"])
    with pytest.raises(OpenEvalError, match="file not found"):
        expand_inputs([tmp_path / "missing.jsonl"])


def test_iter_traces_raise_mode_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b'{"task_id": "a", "steps": []}\nnot json\n')
    assert len(list(iter_traces(path))) == 2
    with pytest.raises(TraceFormatError, match=r"t\.jsonl: line 2: .*invalid JSON"):
        list(iter_traces(str(path), unreadable="raise"))


def test_stream_names_no_format() -> None:
    # How a format's items group into traces is its adapter's to say (the grouping hook):
    # the streaming reader must not branch on a format or reach into an adapter's modules.
    import openeval.adapters.stream as stream

    source = Path(stream.__file__).read_text()
    code = source.split('"""', 2)[2]  # past the module docstring, which explains the rules
    for name in ("otel", "langchain", "fixtura", "openai", "anthropic", "native"):
        assert f'"{name}"' not in code and f"adapters.{name}" not in code, name



def test_a_folder_that_cannot_be_listed_is_an_unreadable_record(tmp_path: Path) -> None:
    # iter_traces walks inputs as openeval score does: nothing under a folder it cannot list
    # is dropped without a word. Root lists any folder, so the child drops the capabilities
    # that let it (mode bits apply again).
    import os
    import subprocess
    import sys

    for name in ("a", "b"):
        (tmp_path / "in" / name).mkdir(parents=True)
        (tmp_path / "in" / name / "t.jsonl").write_bytes(
            orjson.dumps({"task_id": name, "steps": []}) + b"\n")
    (tmp_path / "in" / "b").chmod(0o311)  # may enter, may not list
    prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if (
        os.geteuid() == 0) else []
    code = ("import sys; from openeval.adapters import iter_traces\n"
            "for i in iter_traces(sys.argv[1]): print(type(i).__name__, i.file)")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([*prefix, sys.executable, "-c", code, str(tmp_path / "in")],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={**os.environ, "PYTHONPATH": str(root)})
    (tmp_path / "in" / "b").chmod(0o755)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [f"TraceRecord {tmp_path}/in/a/t.jsonl",
                                        f"Unreadable {tmp_path}/in/b"]

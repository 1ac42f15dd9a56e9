"""Every trace reader, fed random and mutated files: a trace or an OpenEvalError, nothing else.

Generic over the adapter registry and the golden folders ``tests/data/adapters/*/``, so a new
adapter or golden file is fuzzed without touching this file. A failure names the input that
broke a reader (hypothesis prints the shrunk example). Raise the number of examples with
``OPENEVAL_FUZZ_EXAMPLES=2000``.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openeval.adapters import detect_format, format_names, load_trace
from openeval.adapters.base import ZSTD_MAGIC, TraceSource
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.jsonio import dump_json
from openeval.models import AgentTrace
from openeval.schemas import validate

DATA = Path(__file__).parent.parent / "data" / "adapters"
_SKIP_SUFFIXES = (".py", ".md", ".txt", ".db")  # a .db is a seed beside a recording, not a trace


def golden_inputs() -> list[Path]:
    """Return every producer file under the golden folders (not the expected outputs)."""
    return sorted(
        p
        for p in DATA.glob("*/*")
        if p.is_file() and ".expected." not in p.name and not p.name.endswith(_SKIP_SUFFIXES)
    )


GOLDENS = golden_inputs()
FUZZ = settings(
    max_examples=int(os.environ.get("OPENEVAL_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check_every_reader(path: Path) -> None:
    """Read ``path`` with each registered format and by detection; fail on any other error."""
    for name in format_names():
        _expect_trace_or_error(lambda name=name: load_trace(path, format=name), path, name)
    try:
        adapter = detect_format(TraceSource(path))
    except OpenEvalError:
        return
    _expect_trace_or_error(lambda: load_trace(path), path, f"detected {adapter.name}")


def _expect_trace_or_error(read: Any, path: Path, how: str) -> None:
    try:
        trace = read()
    except OpenEvalError:
        return
    except Exception as exc:  # the property under test: nothing but OpenEvalError escapes
        content = path.read_bytes()
        pytest.fail(
            f"{how} reader raised {type(exc).__name__}: {exc}\n"
            f"input {path.name} ({len(content)} bytes): {content[:400]!r}"
        )
    assert isinstance(trace, AgentTrace), f"{how} returned {type(trace).__name__}"
    # What a reader returns must survive `openeval convert` and read back as a native trace.
    document = orjson.loads(dump_json(trace.to_dict()))
    validate(document, "trace", source=f"{how} output of {path.name}", error=TraceFormatError)


def _workdir(golden: Path | None = None) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if golden is not None:
            # Siblings too: some formats read neighbour files (a fixtura branch's parent).
            for sibling in golden.parent.iterdir():
                if sibling.is_file():
                    shutil.copy(sibling, root / sibling.name)
        yield root


# ----------------------------------------------------------------------------- random input


def _documents(content: bytes) -> tuple[list[Any], str]:
    """Return the JSON values in a golden file and how it is stored: doc, lines, zstd or zip
    (a zip of JSON members, such as an Inspect ``.eval`` log, is one ``{member: value}``)."""
    if content.startswith(b"PK\x03\x04"):
        return [_zip_members(content)], "zip"
    container = "doc"
    if content.startswith(ZSTD_MAGIC):
        import zstandard

        reader = zstandard.ZstdDecompressor().stream_reader(content, read_across_frames=True)
        content = reader.read()
        container = "zstd"
    try:
        return [json.loads(content)], container
    except ValueError:
        pass
    values = [json.loads(line) for line in content.splitlines() if line.strip()]
    return values, "zstd" if container == "zstd" else "lines"


def _zip_members(content: bytes) -> dict[str, Any]:
    import io
    import zipfile

    import zstandard

    members: dict[str, Any] = {}
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        for info in archive.infolist():
            if info.compress_type == 93:  # zstd, which zipfile before 3.14 cannot read
                start = info.header_offset
                name_length = int.from_bytes(content[start + 26:start + 28], "little")
                extra_length = int.from_bytes(content[start + 28:start + 30], "little")
                begin = start + 30 + name_length + extra_length
                stored = content[begin:begin + info.compress_size]
                raw = zstandard.ZstdDecompressor().stream_reader(stored).read()
            else:
                raw = archive.read(info)
            members[info.filename] = json.loads(raw)
    return members


def _zip_bytes(value: Any) -> bytes:
    import io
    import zipfile

    members = value if isinstance(value, dict) else {"header.json": value}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, member in members.items():
            archive.writestr(str(name) or "x", json.dumps(member))
    return buffer.getvalue()


def _encode(values: list[Any], container: str) -> bytes:
    if container == "zip":
        return _zip_bytes(values[0])
    if container == "doc":
        return json.dumps(values[0]).encode()
    lines = [json.dumps(v).encode() + b"\n" for v in values]
    if container == "lines":
        return b"".join(lines)
    import zstandard

    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(line) for line in lines)  # one frame per line




def _vocabulary() -> list[str]:
    """Keys seen in the golden inputs, so random JSON often looks like a real format."""
    keys: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            keys.update(k for k in node if len(k) < 40)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for path in GOLDENS:
        for document in _documents(path.read_bytes())[0]:
            walk(document)
    return sorted(keys) or ["steps"]


def _json_values(keys: list[str]) -> st.SearchStrategy[Any]:
    scalars = (
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**70), max_value=2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20)
        | st.sampled_from(keys)
    )
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(keys) | st.text(max_size=8), inner, max_size=5),
        max_leaves=25,
    )


KEYS = _vocabulary()
NAMES = st.sampled_from(["trace.json", "trace.jsonl", "run.trace", "t.otlp.json", "x"])


@FUZZ
@given(content=st.binary(max_size=3000), name=NAMES)
def test_random_bytes(content: bytes, name: str) -> None:
    for root in _workdir():
        path = root / name
        path.write_bytes(content)
        check_every_reader(path)


@FUZZ
@given(value=_json_values(KEYS), lines=st.booleans(), name=NAMES)
def test_random_json(value: Any, lines: bool, name: str) -> None:
    for root in _workdir():
        path = root / name
        text = json.dumps(value)
        if lines and isinstance(value, list):
            text = "\n".join(json.dumps(v) for v in value)
        path.write_text(text)
        check_every_reader(path)


# ----------------------------------------------------------------------------- mutated goldens


def _paths(node: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*prefix, i))


def _mutate(root: Any, path: tuple[Any, ...], op: str, new: Any) -> Any:
    if not path:
        return new
    parent = root
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if op == "drop":
        del parent[last]
    else:
        parent[last] = new
    return root


MUTATIONS = st.sampled_from(["drop", "retype", "null", "garbage", "empty"])


@FUZZ
@given(data=st.data())
def test_mutated_golden_structure(data: st.DataObject) -> None:
    golden = data.draw(st.sampled_from(GOLDENS), label="golden")
    values, container = _documents(golden.read_bytes())
    index = data.draw(st.integers(0, len(values) - 1), label="line")
    paths = list(_paths(values[index]))
    path = data.draw(st.sampled_from(paths), label="path")
    op = data.draw(MUTATIONS, label="op")
    new = {
        "retype": lambda: data.draw(_json_values(KEYS), label="new value"),
        "null": lambda: None,
        "garbage": lambda: data.draw(st.text(max_size=30), label="garbage"),
        "empty": lambda: data.draw(st.sampled_from([[], {}, "", 0]), label="empty"),
        "drop": lambda: None,
    }[op]()
    if op == "drop" and not path:
        values.pop(index)
    else:
        values[index] = _mutate(values[index], path, op, new)
    for root in _workdir(golden):
        target = root / golden.name
        target.write_bytes(_encode(values, container) if values else b"")
        check_every_reader(target)


@FUZZ
@given(data=st.data())
def test_mutated_golden_bytes(data: st.DataObject) -> None:
    golden = data.draw(st.sampled_from(GOLDENS), label="golden")
    content = bytearray(golden.read_bytes())
    at = data.draw(st.integers(0, len(content)), label="offset")
    op = data.draw(st.sampled_from(["truncate", "insert", "flip", "delete"]), label="op")
    if op == "truncate":
        del content[at:]
    elif op == "insert":
        content[at:at] = data.draw(
            st.binary(min_size=1, max_size=40) | st.sampled_from([b"{", b"]", b'"', b"\n", b"\0"]),
            label="garbage",
        )
    elif op == "flip" and at < len(content):
        content[at] ^= data.draw(st.integers(1, 255), label="mask")
    elif op == "delete":
        del content[at : at + data.draw(st.integers(1, 64), label="length")]
    for root in _workdir(golden):
        target = root / golden.name
        target.write_bytes(bytes(content))
        check_every_reader(target)


def test_golden_inputs_are_found() -> None:
    assert "otel" in {p.parent.name for p in GOLDENS}


@pytest.mark.parametrize("golden", GOLDENS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_golden_is_detected_as_its_folder_format(golden: Path) -> None:
    check_every_reader(golden)
    if golden.parent.name in format_names():
        assert detect_format(TraceSource(golden)).name == golden.parent.name


# ----------------------------------------------------------------------------- bounded zips


def _zip_of(members: dict[str, bytes], method: int = 8) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def _zip64_end_claiming(count: int) -> bytes:
    """A zip that is only end records, claiming ``count`` members (zip64)."""
    import struct

    head = b"PK\x03\x04" + bytes(26)
    offset = len(head)
    record = (b"PK\x06\x06" + struct.pack("<QHHII", 44, 45, 45, 0, 0)
              + struct.pack("<QQQQ", count, count, 0, 0))
    locator = b"PK\x06\x07" + struct.pack("<IQI", 0, offset, 1)
    end = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0, 0, 0)
    return head + record + locator + end


HEADER = json.dumps({"eval": {"task": "t"}, "status": "success"}).encode()
ZIP_BOMBS: dict[str, tuple[bytes, int | None, str]] = {
    "directory_claims_millions_of_members": (
        _zip64_end_claiming(5_000_000), None, "claims 5000000 members"),
    "members_larger_than_the_read_limit": (
        _zip_of({"header.json": HEADER, "samples/a.json": b" " * 3_000_000}), 1_000_000,
        "over the 1000000-byte limit"),
    "not_a_zip_after_its_magic": (b"PK\x03\x04" + b"header.json" + bytes(200), None,
                                  "not a readable zip"),
    "no_header": (_zip_of({"samples/a.json": b"{}"}), None, "no header.json"),
    "sample_nested_too_deep": (
        _zip_of({"header.json": HEADER, "samples/a.json": b"[" * 5000 + b"]" * 5000}), None,
        "samples/a.json"),
}


@pytest.mark.parametrize("name", sorted(ZIP_BOMBS))
def test_eval_zip_reading_is_bounded(name: str, tmp_path: Path) -> None:
    from openeval.adapters.base import LoadOptions

    content, limit, expected = ZIP_BOMBS[name]
    path = tmp_path / "log.eval"
    path.write_bytes(content)
    options = LoadOptions(max_decompressed_bytes=limit) if limit else None
    with pytest.raises(TraceFormatError) as raised:
        load_trace(path, format="inspect", options=options)
    message = str(raised.value)
    assert expected in message and "log.eval" in message and "\n" not in message


def test_mlflow_attribute_json_nested_too_deep_is_kept_as_text(tmp_path: Path) -> None:
    deep = "[" * 5000 + "]" * 5000
    span = {"name": "get_weather", "span_id": "a", "parent_span_id": None,
            "start_time_unix_nano": 1, "end_time_unix_nano": 2, "status": {"code": "OK"},
            "attributes": {"mlflow.spanType": '"TOOL"', "mlflow.spanInputs": deep,
                           "mlflow.spanOutputs": '"ok"'}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps({"info": {"trace_id": "tr-1"}, "data": {"spans": [span]}}))
    trace = load_trace(path)
    [call] = trace.tool_calls()
    assert call.tool_args is None and call.error is not None and call.tool_result == "ok"


# ----------------------------------------------------------------------------- span content

# OTel producers keep their content as JSON text inside attribute values (messages, arguments,
# results, the flattened OpenInference keys): mutating the document's structure rarely reaches
# it, so these tests rewrite the values themselves.
SPAN_GOLDENS = [p for p in GOLDENS if p.parent.name.startswith("otel")]


def _attribute_slots(document: Any) -> list[tuple[list[Any], int]]:
    """Return ``(attribute list, index)`` of every span and span-event attribute."""
    slots: list[tuple[list[Any], int]] = []
    for resource in document.get("resourceSpans") or ():
        for scope in resource.get("scopeSpans") or ():
            for span in scope.get("spans") or ():
                lists = [span.get("attributes") or []]
                lists += [event.get("attributes") or [] for event in span.get("events") or ()]
                slots += [(items, i) for items in lists for i in range(len(items))]
    return slots


def _hostile_text(data: st.DataObject) -> Any:
    kind = data.draw(st.sampled_from(["json", "deep", "garbage", "kind", "huge-index"]),
                     label="content")
    if kind == "json":
        return {"stringValue": json.dumps(data.draw(_json_values(KEYS), label="json"))}
    if kind == "deep":
        depth = data.draw(st.integers(100, 3000), label="depth")
        opener = data.draw(st.sampled_from(["[", '{"a":']), label="opener")
        return {"stringValue": opener * depth}
    if kind == "garbage":
        return {"stringValue": data.draw(st.text(max_size=40), label="garbage")}
    if kind == "huge-index":
        return {"stringValue": "x"}
    return data.draw(st.sampled_from([{"intValue": "7"}, {"boolValue": True},
                                      {"arrayValue": {"values": [{"stringValue": "{"}]}},
                                      {"kvlistValue": {"values": []}}]), label="kind")


@FUZZ
@given(data=st.data())
def test_mutated_span_content(data: st.DataObject) -> None:
    golden = data.draw(st.sampled_from(SPAN_GOLDENS), label="golden")
    values, container = _documents(golden.read_bytes())
    index = data.draw(st.integers(0, len(values) - 1), label="line")
    slots = _attribute_slots(values[index])
    for _ in range(data.draw(st.integers(1, 3), label="how many")):
        items, at = data.draw(st.sampled_from(slots), label="attribute")
        new = _hostile_text(data)
        if new == {"stringValue": "x"}:  # a flattened key with an index past any bound
            items[at] = {"key": f"llm.input_messages.{10**30}.message.role", "value": new}
        else:
            items[at] = {**items[at], "value": new}
    for root in _workdir(golden):
        target = root / golden.name
        target.write_bytes(_encode(values, container))
        check_every_reader(target)


def test_span_goldens_are_found() -> None:
    assert {p.parent.name for p in SPAN_GOLDENS} >= {
        "otel_openinference", "otel_strands", "otel_mcp", "otel_vercel_ai", "otel_langfuse",
        "otel_adk", "otel_pydantic_ai", "otel_openai_v2"}

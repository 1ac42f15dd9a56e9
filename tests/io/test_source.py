"""A trace source (``openeval.io.TraceSource``): detection, documents, streamed JSON Lines.

Bombs are built with the ``zstandard`` package from highly compressible data; the memory
tests read them in a fresh interpreter and compare its peak RSS with what the bomb would need.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

import orjson
import pytest
import zstandard

from openeval.adapters import detect_format, get_adapter, load_trace
from openeval.adapters.base import LoadOptions, TraceSource
from openeval.errors import OpenEvalError, TraceFormatError
from openeval.io import TraceSource as ByteSource
from openeval.io.source import HEAD_BYTES, first_byte

DATA = Path(__file__).parent.parent / "data" / "adapters" / "fixtura"
MiB = 1 << 20


def _frames(lines: list[bytes]) -> bytes:
    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(line + b"\n") for line in lines)


def _bomb(path: Path, block: bytes, count: int) -> Path:
    """Write ``block`` repeated ``count`` times as one zstd stream; return ``path``."""
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    with path.open("wb") as out:
        for _ in range(count):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def _read_all(path: Path, options: LoadOptions | None = None) -> list[tuple[int, object]]:
    return list(TraceSource(path, options).json_lines())


# --- lowered limits -------------------------------------------------------------------------


@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "zstd"])
def test_endless_line_is_an_error_naming_the_line(tmp_path: Path, compressed: bool) -> None:
    content = b'{"event_type": "llm_call"}\n' + b"x" * (3 * MiB)
    path = tmp_path / "endless.trace"
    path.write_bytes(zstandard.ZstdCompressor().compress(content) if compressed else content)
    with pytest.raises(TraceFormatError, match="longer than the 1048576-byte limit") as caught:
        _read_all(path, LoadOptions(max_line_bytes=MiB))
    assert (caught.value.source, caught.value.location) == (str(path), "line 2")


def test_bomb_stops_at_a_lowered_decompressed_limit(tmp_path: Path) -> None:
    path = _bomb(tmp_path / "bomb.trace", b" " * (MiB - 1) + b"\n", 64)
    assert path.stat().st_size < 64 * 1024  # 64 MiB in a few KiB
    with pytest.raises(TraceFormatError, match="passes the 8388608-byte limit") as caught:
        _read_all(path, LoadOptions(max_decompressed_bytes=8 * MiB))
    assert caught.value.source == str(path)
    assert caught.value.location is not None and caught.value.location.startswith("line ")


def test_limits_reach_load_trace(tmp_path: Path) -> None:
    path = _bomb(tmp_path / "bomb.trace", b"\n" * MiB, 16)
    with pytest.raises(TraceFormatError, match="decompressed size"):
        load_trace(path, "fixtura", options=LoadOptions(max_decompressed_bytes=MiB))


# --- default limits against real bombs, measured in a fresh interpreter ---------------------

_MEASURE = textwrap.dedent(
    """
    import resource, sys
    from pathlib import Path
    from openeval.adapters.base import TraceSource
    import zstandard  # imported before the baseline, so only reading is measured
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    try:
        for _ in TraceSource(Path(sys.argv[1])).json_lines():
            pass
        print("read")
    except Exception as exc:
        print(type(exc).__name__, exc)
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print((after - before) * 1024)  # ru_maxrss is in KiB on Linux
    """
)


def _peak_growth(path: Path) -> tuple[str, int]:
    done = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(path)],
        capture_output=True, text=True, check=True, timeout=300,
    )
    message, growth = done.stdout.strip().rsplit("\n", 1)
    return message, int(growth)


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units differ off Linux")
def test_default_line_limit_stops_a_gigabyte_bomb_in_bounded_memory(tmp_path: Path) -> None:
    # 1 GiB of zero bytes, no newline: the 64 MiB default line limit must stop it.
    path = _bomb(tmp_path / "zeros.trace", bytes(MiB), 1024)
    message, growth = _peak_growth(path)
    assert message.startswith("TraceFormatError") and "line 1" in message
    assert "67108864-byte limit" in message
    assert growth < 160 * MiB, f"peak RSS grew by {growth / MiB:.0f} MiB reading a 1 GiB bomb"


# Slow (2.1 GiB decompressed); tests/io/test_lines.py reaches the same limit with a smaller one.
@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units differ off Linux")
def test_default_size_limit_stops_a_bomb_of_blank_lines_in_bounded_memory(
    tmp_path: Path,
) -> None:
    # 2.1 GiB of whitespace lines: every line is short, so only the 2 GiB total limit stops it.
    path = _bomb(tmp_path / "blank.trace", b" " * (MiB - 1) + b"\n", 2150)
    message, growth = _peak_growth(path)
    assert message.startswith("TraceFormatError")
    assert "2147483648-byte limit" in message
    assert growth < 64 * MiB, f"peak RSS grew by {growth / MiB:.0f} MiB reading a 2 GiB bomb"


# --- corruption -----------------------------------------------------------------------------


def _frame_ends(data: bytes) -> set[int]:
    """Return the byte offsets where Fixtura's frames end in ``data``."""
    ends, offset = set(), 0
    for line in zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read(
    ).splitlines(keepends=True):
        offset += len(zstandard.ZstdCompressor().compress(line))
        ends.add(offset)
    return ends


def test_truncated_real_trace_is_an_error_at_every_cut(tmp_path: Path) -> None:
    data = (DATA / "checkout.trace").read_bytes()
    ends = _frame_ends(data)
    assert max(ends) == len(data)  # Fixtura writes exactly one default frame per line
    path = tmp_path / "cut.trace"
    for cut in range(4, len(data), 3):
        path.write_bytes(data[:cut])
        if cut in ends:
            assert _read_all(path)  # a cut between frames is a shorter, valid trace
            continue
        with pytest.raises(TraceFormatError, match=r"truncated|corrupt") as caught:
            _read_all(path)
        assert caught.value.source == str(path)
        assert caught.value.location is not None


def test_cut_in_the_middle_names_the_line_and_the_frame(tmp_path: Path) -> None:
    data = (DATA / "checkout.trace").read_bytes()
    path = tmp_path / "half.trace"
    path.write_bytes(data[: len(data) // 2])
    complete = sum(end <= len(data) // 2 for end in _frame_ends(data))
    with pytest.raises(TraceFormatError, match="truncated: the zstd frame starting at byte"):
        _read_all(path)
    try:
        _read_all(path)
    except TraceFormatError as exc:
        assert exc.location == f"line {complete + 1}"


def test_garbage_after_the_last_frame_is_corrupt(tmp_path: Path) -> None:
    data = (DATA / "checkout.trace").read_bytes()
    path = tmp_path / "tail.trace"
    path.write_bytes(data + b"not zstd at all")
    with pytest.raises(TraceFormatError, match=f"corrupt zstd data .* at byte {len(data)}"):
        _read_all(path)


@pytest.mark.parametrize(
    ("lines", "location", "message"),
    [
        ([b'{"a": 1}', b'{"b": "\xff"}'], "line 2", "invalid UTF-8 at byte 7"),
        ([b'{"a": 1}', b"", b'{"b": '], "line 3 column", "invalid JSON"),
        ([b'{"a": 1}', b'{"a": 1} {"b": 2}'], "line 2 column", "invalid JSON"),
        ([b'{"s": "\\ud800"}'], "line 1 column", "invalid JSON: no low surrogate"),
    ],
    ids=["utf8", "json", "two-values", "lone-surrogate"],
)
@pytest.mark.parametrize("compressed", [False, True], ids=["plain", "zstd"])
def test_bad_lines_name_the_file_and_line(
    tmp_path: Path, lines: list[bytes], location: str, message: str, compressed: bool
) -> None:
    path = tmp_path / "bad.trace"
    path.write_bytes(_frames(lines) if compressed else b"\n".join(lines) + b"\n")
    with pytest.raises(TraceFormatError, match=message) as caught:
        _read_all(path)
    assert caught.value.source == str(path)
    assert caught.value.location is not None and caught.value.location.startswith(location)


def test_python_json_constants_are_read(tmp_path: Path) -> None:
    # Python's json.dumps (Fixtura's writer) spells non-finite floats NaN and Infinity.
    path = tmp_path / "nan.trace"
    path.write_bytes(_frames([b'{"a": NaN, "b": -Infinity}', b"", b'{"c": 1}']))
    rows = _read_all(path)
    assert [n for n, _ in rows] == [1, 3]
    assert rows[1][1] == {"c": 1}


def test_lines_split_across_reads_and_frames_are_joined(tmp_path: Path) -> None:
    record = {"event_type": "llm_call", "completion": "y" * (3 * MiB)}
    text = orjson.dumps(record)
    compressor = zstandard.ZstdCompressor()
    # One JSON line cut over three frames, with CRLF endings and a blank line.
    pieces = [text[:10], text[10 : 2 * MiB], text[2 * MiB :] + b"\r\n\r\n" + b'{"z": 0}\r\n']
    path = tmp_path / "split.trace"
    path.write_bytes(b"".join(compressor.compress(p) for p in pieces))
    assert _read_all(path) == [(1, record), (3, {"z": 0})]


def test_first_json_line_stops_early_on_a_bomb(tmp_path: Path) -> None:
    # Detection must not pay for the whole file: it reads only as far as the first line.
    path = _bomb(tmp_path / "lazy.trace", b'{"event_type": "trace_header"}\n' + bytes(MiB), 512)
    assert TraceSource(path).first_json_line() == {"event_type": "trace_header"}


def test_a_truncated_zstd_frame_is_an_openeval_error(tmp_path: Path) -> None:
    path = tmp_path / "only-magic.trace"
    path.write_bytes(b"\x28\xb5\x2f\xfd")
    with pytest.raises(OpenEvalError, match="truncated"):
        _read_all(path)


# --- detection: a JSON Lines file is never read whole -----------------------------------------


def test_json_lines_are_told_apart_from_a_document_by_their_first_two_lines(
    tmp_path: Path,
) -> None:
    # Line 3 is broken: detection never gets that far, loading names it.
    path = tmp_path / "run.jsonl"
    path.write_bytes(
        b'{"event_type": "llm_call", "step_id": "s1", "completion": "hi"}\n\n'
        b'{"event_type": "tool_call", "step_id": "s2", "tool_name": "t"}\n'
        b"{broken\n"
    )
    source = TraceSource(path)
    assert source.is_json_lines
    assert source.document_or_none() is None
    with pytest.raises(TraceFormatError, match=r"JSON Lines \(one value per line\)"):
        source.document()
    assert detect_format(source).name == "fixtura"
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.location is not None and caught.value.location.startswith("line 4")


@pytest.mark.parametrize(
    "content",
    [b'{"task_id": "t", "steps": []}', b'{"task_id": "t", "steps": []}\n\n  \n',
     b'{\n  "task_id": "t",\n  "steps": []\n}\n'],
    ids=["one line", "one line and blank ones", "indented"],
)
def test_a_document_on_one_or_many_lines(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "trace.json"
    path.write_bytes(content)
    source = TraceSource(path)
    assert not source.is_json_lines
    assert source.document() == {"task_id": "t", "steps": []}


def test_a_document_over_its_limit_names_the_flag_that_raises_it(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(b'{"task_id": "t", "steps": [], "input": "' + b"x" * 5000 + b'"}')
    with pytest.raises(TraceFormatError, match="raise it with --max-decompressed-bytes"):
        load_trace(path, options=LoadOptions(max_decompressed_bytes=4096))
    with pytest.raises(TraceFormatError, match=r"JSON document .*LoadOptions\.max_document_bytes"):
        load_trace(path, options=LoadOptions(max_document_bytes=4096))


def test_a_source_from_bytes_reads_like_a_file(tmp_path: Path) -> None:
    data = (DATA / "checkout.trace").read_bytes()
    from_bytes = TraceSource.from_bytes(data, name="upload.trace")
    assert from_bytes.file is None and from_bytes.path == Path("upload.trace")
    trace = get_adapter("fixtura").load(from_bytes)
    assert trace == replace(load_trace(DATA / "checkout.trace"), task_id="upload")
    plain = ByteSource.from_bytes(b'{"a": 1}\n{"b": 2}\n')
    assert list(plain.json_lines()) == [(1, {"a": 1}), (2, {"b": 2})]


@pytest.mark.parametrize("data", [b"", b"{}", b"   ", b" \t\r\n\x0b\x0c[1]", b"\n\n{", b"\x00{",
                                  b"\xef\xbb\xbf{", b"\x85{", b"\xa0{"])
def test_first_byte_is_the_first_byte_lstrip_leaves(data: bytes) -> None:
    assert first_byte(data) == data.lstrip()[:1]


@pytest.mark.parametrize("size", [0, 1, 100, HEAD_BYTES - 1, HEAD_BYTES, HEAD_BYTES + 1, 3 * MiB])
def test_the_head_is_the_same_read_whatever_the_buffer(tmp_path: Path, size: int) -> None:
    content = (b'{"a": "' + b"x" * size)[:size]
    path = tmp_path / "t.json"
    path.write_bytes(content)
    source = TraceSource(path)
    assert source.head == content[:HEAD_BYTES] and source.size == size
    assert source.plain_bytes() == (content if content else None)

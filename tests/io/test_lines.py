"""JSON Lines under hostile input: blank-line bombs, lines larger than memory, deep nesting.

The memory tests run in a fresh interpreter whose address space is capped (``RLIMIT_AS``) a
little above what it already uses, so "larger than memory" is reached in a fraction of a
second without touching the machine's real limits.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import orjson
import pytest
import zstandard

from openeval.adapters import load_trace
from openeval.adapters.base import LoadOptions, TraceSource
from openeval.errors import TraceFormatError
from openeval.io.lines import split_lines

MiB = 1 << 20
LINUX_ONLY = pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc are Linux's")


def _zstd_stream(path: Path, pieces: list[tuple[bytes, int]]) -> Path:
    """Write each ``(block, count)`` as ``block`` repeated ``count`` times, in one zstd stream."""
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    with path.open("wb") as out:
        for block, count in pieces:
            for _ in range(count):
                out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def test_a_blank_line_bomb_reaches_the_size_limit(tmp_path: Path) -> None:
    # 512 MiB of newlines: read a line at a time in Python, this ran for a quarter of an hour.
    path = _zstd_stream(tmp_path / "blank.trace", [(b"\n" * MiB, 512)])
    with pytest.raises(TraceFormatError, match="passes the 268435456-byte limit") as caught:
        load_trace(path, "fixtura", options=LoadOptions(max_decompressed_bytes=256 * MiB))
    assert caught.value.location is not None and caught.value.location.startswith("line ")


def test_lines_after_a_long_blank_run_keep_their_numbers(tmp_path: Path) -> None:
    event = b'{"event_type": "llm_call", "step_id": "s1", "completion": "hi"}'
    path = _zstd_stream(
        tmp_path / "gap.trace",
        [(b'{"event_type": "trace_header"}\n', 1), (b"\n" * MiB, 20), (b" \t\r\n" * 1000, 1),
         (event + b"\n", 1), (b"   ", 1)],
    )
    lines = list(TraceSource(path).json_lines())
    assert [number for number, _ in lines] == [1, 20 * MiB + 1000 + 2]
    assert load_trace(path).steps[0].content == "hi"


@pytest.mark.parametrize(
    ("chunks", "expected"),
    [
        ([b"a\n", b"\n\n", b"  b\n"], [(1, b"a"), (4, b"  b")]),
        ([b"  ", b"  a", b"b\n c"], [(1, b"    ab"), (2, b" c")]),
        ([b"\r\n", b"x\r\n"], [(2, b"x\r")]),
        ([b"", b"\n" * 100 + b"z"], [(101, b"z")]),
        ([b" \t "], []),
    ],
    ids=["blank between", "split across chunks", "crlf", "last line unended", "only blanks"],
)
def test_split_lines(chunks: list[bytes], expected: list[tuple[int, bytes]]) -> None:
    found = [(n, bytes(line)) for n, line in split_lines(iter(chunks), "x", 1000)]
    assert found == expected


def test_a_line_nested_past_the_limit_names_its_path(tmp_path: Path) -> None:
    deep = '{"event_type": "llm_call", "step_id": "s1", "completion": ' + "[" * 250 + "]" * 250
    path = tmp_path / "deep.jsonl"
    path.write_text('{"event_type": "trace_header"}\n' + deep + "}\n")
    with pytest.raises(TraceFormatError, match="nested more than 200 levels deep") as caught:
        load_trace(path, "fixtura")
    assert caught.value.location == "line 2: completion" + "[0]" * 199


_CAPPED = textwrap.dedent(
    """
    import resource, sys
    from pathlib import Path
    import zstandard, orjson
    from openeval.adapters import load_trace
    from openeval.adapters.base import LoadOptions

    def address_space():
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024

    limit = address_space() + int(sys.argv[2]) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    options = LoadOptions(max_line_bytes=1 << 40, max_decompressed_bytes=1 << 40)
    try:
        load_trace(Path(sys.argv[1]), options=options)
        print("read")
    except Exception as exc:
        print(type(exc).__name__, exc)
    """
)


def _capped_read(path: Path, headroom_mib: int) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _CAPPED, str(path), str(headroom_mib)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


@LINUX_ONLY
def test_a_line_larger_than_memory_fails_cleanly(tmp_path: Path) -> None:
    # --max-line-bytes raised past what the machine can hold: memory runs out first.
    path = _zstd_stream(
        tmp_path / "endless.trace",
        [(b'{"event_type": "trace_header"}\n{"completion": "', 1), (b"x" * MiB, 1024)],
    )
    outcome = _capped_read(path, 200)
    assert outcome.startswith("TraceFormatError"), outcome
    assert "line 2: line too long for the memory available" in outcome


@LINUX_ONLY
def test_json_too_large_for_memory_fails_cleanly(tmp_path: Path) -> None:
    # 5 million empty objects: orjson's allocation fails (as SystemError, MemoryError or a
    # JSONDecodeError saying so, depending on where), never a traceback.
    path = tmp_path / "objects.json"
    path.write_bytes(b"[" + b"{}," * 5_000_000 + b"{}]")
    for headroom in (150, 600):
        outcome = _capped_read(path, headroom)
        assert outcome.startswith("TraceFormatError"), outcome
        assert str(path) in outcome


def test_many_small_events_stop_at_the_step_limit(tmp_path: Path) -> None:
    events = [{"event_type": "llm_call", "step_id": f"s{i}", "completion": "x"} for i in range(50)]
    path = tmp_path / "flood.jsonl"
    path.write_bytes(b"".join(orjson.dumps(e) + b"\n" for e in events))
    with pytest.raises(TraceFormatError, match=r"more than 20 steps .*LoadOptions\.max_steps") as e:
        load_trace(path, options=LoadOptions(max_steps=20))
    assert e.value.location == "line 21"
    with pytest.raises(TraceFormatError, match="more than 30 characters of text"):
        load_trace(path, options=LoadOptions(max_text_chars=30))
    assert len(load_trace(path).steps) == 50


def test_a_document_reader_is_held_to_the_step_limit(tmp_path: Path) -> None:
    path = tmp_path / "chat.json"
    path.write_bytes(orjson.dumps([{"role": "assistant", "content": "x"}] * 30))
    with pytest.raises(TraceFormatError, match="more than 10 steps"):
        load_trace(path, options=LoadOptions(max_steps=10))

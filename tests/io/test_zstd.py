"""zstd streams whose first frame cannot be read say why, instead of "not a trace format"."""

from __future__ import annotations

from pathlib import Path

import pytest
import zstandard

from openeval.adapters import load_trace
from openeval.errors import TraceFormatError

EVENT = b'{"event_type": "llm_call", "step_id": "s1", "completion": "hi"}\n'


def _dictionary() -> zstandard.ZstdCompressionDict:
    samples = [b'{"event_type": "llm_call", "step_id": "s%d", "completion": "x"}\n' % i
               for i in range(2000)]
    return zstandard.train_dictionary(4096, samples)


def test_a_dictionary_compressed_trace_names_the_dictionary(tmp_path: Path) -> None:
    dictionary = _dictionary()
    path = tmp_path / "dict.trace"
    path.write_bytes(zstandard.ZstdCompressor(dict_data=dictionary).compress(EVENT))
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.source == str(path)
    assert f"compressed with zstd dictionary {dictionary.dict_id()}" in caught.value.message
    assert "not a trace format" not in caught.value.message


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"\x28\xb5\x2f\xfd" + b"\xff" * 40, "corrupt zstd data in the frame starting at byte 0"),
        (b"\x28\xb5\x2f\xfd", "truncated: the zstd frame starting at byte 0 never ends"),
        (zstandard.ZstdCompressor().compress(EVENT)[:-6], "truncated"),
    ],
    ids=["corrupt header", "magic only", "cut short"],
)
def test_a_broken_first_frame_says_why(tmp_path: Path, content: bytes, words: str) -> None:
    path = tmp_path / "broken.trace"
    path.write_bytes(content)
    with pytest.raises(TraceFormatError, match=words) as caught:
        load_trace(path)
    assert "not a trace format" not in caught.value.message


def test_a_later_frame_with_a_dictionary_is_corrupt_data_at_its_byte(tmp_path: Path) -> None:
    first = zstandard.ZstdCompressor().compress(EVENT)
    second = zstandard.ZstdCompressor(dict_data=_dictionary()).compress(EVENT)
    path = tmp_path / "mixed.trace"
    path.write_bytes(first + second)
    with pytest.raises(TraceFormatError, match=f"frame starting at byte {len(first)}") as caught:
        load_trace(path)
    assert caught.value.location == "line 2"

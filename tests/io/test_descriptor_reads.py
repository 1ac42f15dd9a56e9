"""Reads on the descriptor (``read_up_to``) against the buffered file they replaced."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from openeval.io.files import open_regular, open_regular_fd, read_up_to

SIZES = [0, 1, 4095, 4096, 65536, 65537, 300_000]
COUNTS = {"nothing": lambda n: 0, "less": lambda n: n // 2, "all": lambda n: n,
          "one more": lambda n: n + 1, "a head": lambda n: 65536}


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("count", COUNTS.values(), ids=COUNTS.keys())
def test_same_bytes_as_the_buffered_read(tmp_path: Path, size: int, count: object) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(bytes(i % 251 for i in range(size)))
    wanted = count(size)  # type: ignore[operator]
    handle, buffered_size = open_regular(path)
    with handle:
        expected = handle.read(wanted)
    fd, fd_size = open_regular_fd(path)
    try:
        assert read_up_to(fd, wanted) == expected
    finally:
        os.close(fd)
    assert fd_size == buffered_size == size


def test_short_reads_are_read_on() -> None:
    # A pipe returns what its writer wrote so far: each read is short until the last piece.
    reader, writer = os.pipe()
    pieces = [b"a" * 1000, b"b" * 3000, b"c" * 10]

    def write() -> None:
        for piece in pieces:
            os.write(writer, piece)
            threading.Event().wait(0.02)
        os.close(writer)

    thread = threading.Thread(target=write)
    thread.start()
    try:
        assert read_up_to(reader, 5000) == b"".join(pieces)
    finally:
        thread.join()
        os.close(reader)


def test_the_descriptor_is_refused_as_the_file_is(tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        with pytest.raises(Exception) as buffered:
            open_regular(path)
        with pytest.raises(Exception) as raw:
            open_regular_fd(path)
        assert str(raw.value) == str(buffered.value)

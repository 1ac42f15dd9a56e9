"""The read rule: only regular files are read, and opening one never blocks."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

from openeval.adapters import load_trace
from openeval.errors import TraceFormatError
from openeval.io import open_regular

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="devices and FIFOs are POSIX")


@pytest.mark.parametrize(
    ("path", "what"),
    [("/dev/zero", "a character device"), ("/dev/urandom", "a character device"),
     ("/dev/null", "a character device")],
)
def test_devices_are_refused_by_name(path: str, what: str) -> None:
    with pytest.raises(TraceFormatError) as caught:
        load_trace(path)
    assert caught.value.source == path
    assert caught.value.message == f"is {what}, not a regular file; expected a trace file"


def test_fifo_without_a_writer_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "trace.json"
    os.mkfifo(fifo)
    # A blocking open would wait for a writer forever; this returns at once with an error.
    with pytest.raises(TraceFormatError, match="is a named pipe \\(FIFO\\), not a regular file"):
        load_trace(fifo)


def test_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(TraceFormatError) as caught:
            load_trace(path)
    # A socket cannot be opened at all; either way the file is named.
    assert caught.value.source == str(path)


def test_folder_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(TraceFormatError, match="is a folder, expected a trace file"):
        load_trace(tmp_path)
    with pytest.raises(TraceFormatError, match="file not found"):
        load_trace(tmp_path / "nope.json")


def test_a_symlink_to_a_regular_file_is_read(tmp_path: Path) -> None:
    target = tmp_path / "real.json"
    target.write_bytes(b'{"task_id": "t", "steps": []}')
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert load_trace(link).task_id == "t"


def test_open_regular_gives_the_size(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"12345")
    handle, size = open_regular(path)
    with handle:
        assert (handle.read(), size) == (b"12345", 5)

"""A case file written on the descriptor, whatever was at its name first."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from openeval.results.files import open_new_file, write_new_file

DATA = b'{"case": 1}\n'


def _nothing(path: Path, outside: Path) -> None:
    pass


def _a_file(path: Path, outside: Path) -> None:
    path.write_bytes(b"old and longer than the new one" * 10)


def _a_link(path: Path, outside: Path) -> None:
    path.symlink_to(outside)


def _a_dangling_link(path: Path, outside: Path) -> None:
    path.symlink_to(outside.with_name("nowhere"))


BEFORE: dict[str, Callable[[Path, Path], None]] = {
    "nothing": _nothing, "a file": _a_file, "a link": _a_link,
    "a dangling link": _a_dangling_link,
}


@pytest.mark.parametrize("before", BEFORE.values(), ids=BEFORE.keys())
@pytest.mark.parametrize("writer", ["descriptor", "file object"])
def test_written_in_place_never_through_a_link(
    tmp_path: Path, before: Callable[[Path, Path], None], writer: str
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep")
    path = tmp_path / "out" / "case.result.json"
    path.parent.mkdir()
    before(path, outside)
    if writer == "descriptor":
        write_new_file(path, DATA)
    else:
        with open_new_file(path) as handle:
            handle.write(DATA)
    assert not path.is_symlink()
    assert path.read_bytes() == DATA
    assert outside.read_bytes() == b"keep"
    assert not outside.with_name("nowhere").exists()


def test_a_folder_at_the_name_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "case.result.json"
    path.mkdir()
    with pytest.raises(OSError) as raw:
        write_new_file(path, DATA)
    with pytest.raises(OSError) as buffered:
        open_new_file(path)
    assert (raw.value.strerror, raw.value.filename) == (
        buffered.value.strerror, buffered.value.filename)
    assert os.path.isdir(path)

"""The tolerant line splitter, however its input is cut into chunks, gives what splitting the
whole text at its newlines gives: each line without its indent, blank ones left out, one too
long an error in its place (the quick checks it makes per line hold this;
proposals/0315-score-read-once-per-line.md)."""

from __future__ import annotations

from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from openeval.errors import TraceFormatError
from openeval.io.lines import split_lines_tolerant

_BLANKS = b" \t\r\n\f\v"


def _reference(data: bytes, limit: int) -> list[tuple[int, bytes | str]]:
    found: list[tuple[int, bytes | str]] = []
    for number, line in enumerate(data.split(b"\n"), 1):
        kept = line.lstrip(_BLANKS)
        if kept:
            found.append((number, "too long" if len(kept) > limit else kept))
    return found


def _chunks(data: bytes, cuts: list[int]) -> Iterator[bytes]:
    at = 0
    for cut in sorted(c % (len(data) + 1) for c in cuts):
        yield data[at:cut]
        at = max(at, cut)
    yield data[at:]


def _split(data: bytes, cuts: list[int], limit: int) -> list[tuple[int, bytes | str]]:
    found: list[tuple[int, bytes | str]] = []
    for number, line in split_lines_tolerant(_chunks(data, cuts), "f.jsonl", limit):
        if isinstance(line, TraceFormatError):
            assert line.location == f"line {number}"
            found.append((number, "too long"))
        else:
            found.append((number, bytes(line)))
    return found


PIECES = st.sampled_from([b"\n", b" ", b"\t", b"\r\n", b"\r", b"{}", b"ab", b"x", b"\n\n  "])


@given(pieces=st.lists(PIECES, max_size=40), cuts=st.lists(st.integers(0, 200), max_size=6),
       limit=st.integers(1, 12))
def test_any_chunking_gives_the_lines_of_the_whole_text(
        pieces: list[bytes], cuts: list[int], limit: int) -> None:
    data = b"".join(pieces)
    assert _split(data, cuts, limit) == _reference(data, limit)


def test_a_table_of_shapes() -> None:
    for data in (b"", b"\n", b"a", b"a\n", b"  a\n\n b\r\n", b"\n\n\nx", b"   \n  y  \n"):
        for cuts in ([], [1], [1, 2, 3], [len(data) - 1]):
            assert _split(data, cuts, 64) == _reference(data, 64), (data, cuts)

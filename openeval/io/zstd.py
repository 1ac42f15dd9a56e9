"""Decompressing a series of zstd frames (Fixtura's ``.trace``) in bounded pieces.

``zstandard`` is an optional dependency (the ``fixtura`` extra), imported only when a
compressed file is read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from openeval.errors import MissingDependencyError, TraceFormatError

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
"""The first four bytes of every zstd frame."""

_FEED_BYTES = 256
"""Compressed bytes handed to the decompressor at a time. zstd can expand one input byte to at
most about 32 KiB (a run-length block), so 256 bytes bound one call's output to about 8 MiB:
a decompression bomb is caught by the size limit before it can allocate more than that."""


def _require_zstandard(name: Path | str) -> None:
    try:
        import zstandard  # noqa: F401
    except ImportError:
        raise MissingDependencyError(
            'reading zstd-compressed traces needs zstandard: pip install "openeval-core[fixtura]"',
            source=name,
        ) from None


def dictionary_id(head: bytes) -> int:
    """Return the id of the dictionary the first zstd frame in ``head`` needs (0: none)."""
    import zstandard

    try:
        return int(zstandard.get_frame_parameters(head).dict_id)
    except zstandard.ZstdError:
        return 0  # a header too damaged to read; decompressing it says why


def zstd_chunks(raw: Iterable[bytes], name: Path | str, max_bytes: int) -> Iterator[bytes]:
    """Yield the decompressed content of the zstd frames in ``raw``, in bounded pieces.

    Raises TraceFormatError naming ``name`` for corrupt data (with the byte where its frame
    starts), a frame that needs a dictionary, a frame cut short, or a decompressed size over
    ``max_bytes``. ``stream_reader`` would be simpler, but it ends silently on a frame cut
    short, which would drop the last events of a truncated trace without a word.
    """
    _require_zstandard(name)
    import zstandard

    decompressor = zstandard.ZstdDecompressor()
    frame = decompressor.decompressobj()
    frame_start = 0
    fed = 0  # compressed bytes consumed so far
    in_frame = False
    total = 0
    for block in raw:
        view = memoryview(block)
        for start in range(0, len(view), _FEED_BYTES):
            piece: bytes | memoryview = view[start : start + _FEED_BYTES]
            while piece:
                try:
                    out = frame.decompress(piece)
                except zstandard.ZstdError as exc:
                    raise TraceFormatError(
                        _corrupt_reason(bytes(piece), frame_start, fed, exc), source=name
                    ) from None
                in_frame = True
                if out:
                    total += len(out)
                    if total > max_bytes:
                        raise TraceFormatError(
                            f"decompressed size passes the {max_bytes}-byte limit (a "
                            "decompression bomb? raise the limit with --max-decompressed-bytes)",
                            source=name,
                        )
                    yield out
                if frame.eof:
                    rest = frame.unused_data
                    fed += len(piece) - len(rest)
                    frame_start, in_frame = fed, False
                    frame = decompressor.decompressobj()
                    piece = rest
                else:
                    fed += len(piece)
                    piece = b""
    if in_frame:
        raise TraceFormatError(
            f"truncated: the zstd frame starting at byte {frame_start} never ends (the file "
            f"stops at byte {fed}; was it cut short while being written or copied?)",
            source=name,
        )


def _corrupt_reason(piece: bytes, frame_start: int, fed: int, exc: Exception) -> str:
    where = f"the frame starting at byte {frame_start}"
    if fed == frame_start and piece.startswith(ZSTD_MAGIC):
        needed = dictionary_id(piece)
        if needed:
            return (
                f"{where} was compressed with zstd dictionary {needed}, which OpenEval does not "
                "have (Fixtura writes frames without one); decompress the file with its "
                "dictionary first"
            )
    if fed == frame_start and not piece.startswith(ZSTD_MAGIC):
        return f"corrupt zstd data in {where}: no zstd magic number there ({exc})"
    return f"corrupt zstd data in {where}: {exc}"

"""The one rule for which files a trace may be read from: regular files, opened without blocking.

A trace path can point anywhere: at ``/dev/zero`` (endless), ``/dev/urandom``, a FIFO with no
writer (an ``open`` that never returns), a socket or a folder. The file is opened with
``O_NONBLOCK`` (so a FIFO cannot hang the open) and checked with ``fstat`` on the open handle
(so it cannot be swapped between the check and the read); anything but a regular file is an
error that names the file and says what it is instead.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

from openeval.errors import OpenEvalError, TraceFormatError

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
)


def _what(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def open_regular(
    path: Path,
    *,
    error: type[OpenEvalError] = TraceFormatError,
    expected: str = "a trace file",
) -> tuple[BinaryIO, int]:
    """Return ``path`` opened for binary reading, and its size in bytes.

    Raises ``error`` naming the file when it is missing, unreadable, or not a regular file (a
    folder, a device such as /dev/zero, a FIFO, a socket); ``expected`` says what it should
    have been. Never blocks on open.
    """
    fd, size = open_regular_fd(path, error=error, expected=expected)
    try:
        return os.fdopen(fd, "rb"), size
    except BaseException:
        os.close(fd)
        raise


def open_regular_fd(
    path: Path,
    *,
    error: type[OpenEvalError] = TraceFormatError,
    expected: str = "a trace file",
) -> tuple[int, int]:
    """Return a descriptor of ``path`` open for reading, and its size in bytes, as
    :func:`open_regular` opens it; the caller closes it. For a whole-file read with
    :func:`read_up_to`, which needs no file object around the descriptor."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        raise error("file not found", source=path) from None
    except IsADirectoryError:
        raise error(f"is a folder, expected {expected}", source=path) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", source=path) from None
    except ValueError:  # a NUL character: no file system can name such a file
        raise error("the path holds a NUL character, which no file name can",
                    source=str(path).replace("\x00", "\\x00")) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            what = _what(info.st_mode)
            message = (
                f"is a folder, expected {expected}"
                if what == "a folder"
                else f"is {what}, not a regular file; expected {expected}"
            )
            raise error(message, source=path)
        return fd, info.st_size
    except BaseException:
        os.close(fd)
        raise


def read_up_to(fd: int, count: int) -> bytes:
    """Return the next ``count`` bytes of ``fd``, fewer only at the end of the file: what a
    buffered file's ``read(count)`` returns, without the buffered file. Raises OSError."""
    data = os.read(fd, count)
    if len(data) == count or not data:
        return data
    # A short read before the end (a signal, a file system that reads in pieces): go on.
    pieces = [data]
    left = count - len(data)
    while left > 0:
        more = os.read(fd, left)
        if not more:
            break
        pieces.append(more)
        left -= len(more)
    return b"".join(pieces)


def check_size(path: Path | str, size: int, limit: int, flag: str) -> None:
    """Raise TraceFormatError when a file of ``size`` bytes is over ``limit``, before reading it."""
    if size > limit:
        raise TraceFormatError(
            f"{size} bytes, over the {limit}-byte limit for one trace file (raise it with {flag})",
            source=path,
        )

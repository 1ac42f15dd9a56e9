"""What every command shares: the one-line error, writing a file, and reading a limits flag."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import click

from openeval.errors import OpenEvalError
from openeval.printable import printable


def one_line(text: str) -> str:
    """Return ``text`` on one printable line: line breaks become spaces, and any other control
    character is escaped (so a message can never forge a CI workflow command)."""
    return printable(" ".join(text.splitlines()))


def fail(error: OpenEvalError, code: int) -> NoReturn:
    """Print ``error`` as one line on stderr and exit with ``code``."""
    # One line, always: CI log parsers and the GitHub Action read the first line only.
    click.echo(f"openeval: error: {one_line(str(error))}", err=True)
    raise SystemExit(code)


def write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path``, creating its folder; raise OpenEvalError on failure. A link
    at ``path`` is replaced, never written through (``--junit report.xml`` may name a file a
    pull request committed as a link)."""
    from openeval.results.files import write_whole

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, data)
    except OSError as exc:
        raise OpenEvalError(f"cannot write: {exc.strerror}", source=path) from None


def write_text(path: Path, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path``, creating its folder; raise OpenEvalError on failure."""
    write_bytes(path, text.encode("utf-8"))

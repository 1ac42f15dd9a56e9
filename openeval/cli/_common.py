"""What every command shares: the one-line error, the one error-to-exit mapping, the command
class that applies it, and writing a file."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_USAGE
from openeval.errors import OpenEvalError, RunAborted
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


def exit_code(error: OpenEvalError, failing: tuple[type[OpenEvalError], ...] = ()) -> int:
    """Return the exit code of a command that stopped on ``error``: EXIT_FAIL for a run that
    did not finish (a worker died) and for the kinds a command lists as ``failing``; else
    EXIT_USAGE (bad usage, a file that cannot be read or written)."""
    return EXIT_FAIL if isinstance(error, (RunAborted, *failing)) else EXIT_USAGE


class Command(click.Command):
    """An ``openeval`` command: an OpenEvalError it raises ends it with one line on stderr and
    :func:`exit_code`'s code, so no command repeats the mapping.

    ``failing`` (a keyword of :func:`command`) lists the error kinds that are the command's
    verdict rather than bad usage (``report``: a malformed result file).
    """

    def __init__(
        self, *args: Any, failing: tuple[type[OpenEvalError], ...] = (), **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        self.failing = failing

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OpenEvalError as exc:
            fail(exc, exit_code(exc, self.failing))


def command(**attrs: Any) -> Callable[[Callable[..., Any]], Command]:
    """``click.command`` making a :class:`Command`."""
    made: Callable[[Callable[..., Any]], Command] = click.command(cls=Command, **attrs)
    return made


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

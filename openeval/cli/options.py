"""Options that several commands take, defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

_F = TypeVar("_F", bound=Callable[..., Any])

trace_format = click.option(
    "--format", "trace_format", metavar="NAME",
    help="Read traces with this adapter instead of detecting their format.",
)
"""``--format NAME``: force a trace adapter."""

trace_argument = click.argument("trace_path", metavar="TRACE", type=click.Path(path_type=Path))
"""The ``TRACE`` argument of the trace commands."""


def read_limits(function: _F) -> _F:
    """Add ``--agent-spec``, ``--max-decompressed-bytes`` and ``--max-line-bytes``."""
    for option in reversed((
        click.option("--agent-spec", metavar="MODULE:ATTR",
                     help="The current agent, to compute Fixtura drift verdicts."),
        click.option("--max-decompressed-bytes", type=click.IntRange(min=1),
                     help="Largest decompressed size accepted from a compressed trace."),
        click.option("--max-line-bytes", type=click.IntRange(min=1),
                     help="Longest line accepted in a JSON Lines trace."),
    )):
        function = option(function)
    return function


def load_options(
    agent_spec: str | None, max_decompressed_bytes: int | None, max_line_bytes: int | None
) -> Any:
    """Return the LoadOptions that the :func:`read_limits` flags ask for."""
    from openeval.adapters.base import LoadOptions

    defaults = LoadOptions()
    return LoadOptions(
        agent_spec=agent_spec,
        max_decompressed_bytes=max_decompressed_bytes or defaults.max_decompressed_bytes,
        max_line_bytes=max_line_bytes or defaults.max_line_bytes,
    )

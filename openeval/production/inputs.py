"""What ``openeval score`` reads: the files its inputs name, and the folders it could not list.

The walk is the adapters' (:func:`openeval.adapters.stream.trace_inputs`), the one
:func:`openeval.adapters.iter_traces` uses too: a file, a folder (recursively, links followed
once per real folder) or a glob, and an :class:`~openeval.production.records.Unreadable` at the
place of each folder that cannot be listed, which every engine writes as a row and counts, so
the run cannot pass with traces unaccounted for. :func:`outside_output` leaves out what the
run itself writes, so results never come back as traces.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from pathlib import Path

from openeval.adapters.stream import Unreadable, folder_inputs
from openeval.adapters.stream import trace_inputs as score_inputs
from openeval.errors import OpenEvalError

ScoreInput = Path | Unreadable
"""One input of an engine: a file to read, or a folder already known to be unreadable."""

__all__ = ["ScoreInput", "folder_inputs", "outside_output", "score_inputs"]


def outside_output(
    given: Sequence[str | Path], found: list[ScoreInput], output: Path | None,
    own_names: Collection[str],
) -> list[ScoreInput]:
    """Return ``found`` without what this run writes: ``openeval score`` must not read its own
    results back as traces when its output folder lies inside an input folder.

    Left out: everything under the output folder when that folder lies inside a folder given
    as input (the subtree is the run's own), and otherwise the files it writes there
    (``own_names``). Raises OpenEvalError for a file given by name inside the output folder:
    the run would overwrite or remove what it reads.
    """
    if output is None:
        return found
    home = os.path.realpath(output)
    inside_home = home.rstrip(os.sep) + os.sep
    given_files: set[str] = set()
    subtree = False
    for named in given:
        real = os.path.realpath(named)
        if os.path.isdir(real):
            under = inside_home.startswith(real.rstrip(os.sep) + os.sep) and real != home
            subtree = subtree or under
        else:
            given_files.add(real)
    kept: list[ScoreInput] = []
    for item in found:
        path = item if isinstance(item, Path) else Path(item.file)
        real = os.path.realpath(path)
        if not real.startswith(inside_home):
            kept.append(item)
        elif real in given_files:
            raise OpenEvalError(
                f"lies in the output folder {output.as_posix()}, which this run rewrites; "
                "move it out or choose another --output-dir", source=path.as_posix())
        elif not subtree and not (os.path.dirname(real) == home and path.name in own_names):
            kept.append(item)
    return kept

"""What ``openeval score`` reads: the files its inputs name, and the folders it could not list.

An input is a file, a folder (every file under it whose name ends in
:data:`~openeval.adapters.stream.TRACE_FILE_ENDINGS`, hidden ones left out, recursively) or a
glob (``**`` reaches into sub-folders; a folder it matches is read as a folder). A folder is
walked as ``openeval run`` walks a suite: a link to a folder is followed, once per real folder
(so a loop ends), and a folder that cannot be listed is not dropped but becomes one
:class:`~openeval.production.records.Unreadable` in its place, which every engine writes as a
row and counts, so the run cannot pass with traces unaccounted for.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from pathlib import Path

from openeval.adapters.stream import TRACE_FILE_ENDINGS
from openeval.errors import OpenEvalError
from openeval.production.records import Unreadable

ScoreInput = Path | Unreadable
"""One input of an engine: a file to read, or a folder already known to be unreadable."""

_GLOB_CHARS = frozenset("*?[")


def score_inputs(inputs: Sequence[str | Path]) -> list[ScoreInput]:
    """Return the files ``inputs`` name, in order (each input's files sorted), with an
    :class:`Unreadable` at the place of each folder that could not be listed.

    A file named twice is read once, where it first appears. Raises OpenEvalError for a
    missing path, a glob matching nothing, a folder holding no trace file (and no unlistable
    folder), or no input at all.
    """
    if not inputs:
        raise OpenEvalError("no input given: name trace files, folders or globs")
    found: list[ScoreInput] = []
    seen: set[str] = set()

    def add(item: ScoreInput) -> None:
        path = item if isinstance(item, Path) else Path(item.file)
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            found.append(item)

    for given in inputs:
        path = Path(given)
        text = str(given)
        if not path.exists() and _GLOB_CHARS & set(text):
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise OpenEvalError(f"no file matches the glob {text!r}")
            for match in matches:
                each = Path(match)
                for item in folder_inputs(each) if each.is_dir() else [each]:
                    add(item)
        elif path.is_dir():
            inside = folder_inputs(path)
            if not inside:
                raise OpenEvalError(
                    "holds no trace file (names ending in "
                    + ", ".join(TRACE_FILE_ENDINGS) + ")", source=path.as_posix())
            for item in inside:
                add(item)
        elif path.exists() or path.is_symlink():
            add(path)
        else:
            raise OpenEvalError("file not found", source=path.as_posix())
    return found


def folder_inputs(folder: Path) -> list[ScoreInput]:
    """Return the trace files under ``folder`` and its unlistable folders, sorted by path."""
    found: list[ScoreInput] = []

    def unlistable(error: OSError) -> None:
        where = Path(error.filename) if error.filename else folder
        reason = error.strerror or type(error).__name__
        found.append(Unreadable(
            where.as_posix(), 0,
            f"cannot list this folder: {reason}; every trace below it is unaccounted for"))

    walked: set[str] = set()
    for root, dirs, files in os.walk(folder, onerror=unlistable, followlinks=True):
        real = os.path.realpath(root)
        if real in walked:  # a link back to a folder already walked: a loop, or a second name
            dirs[:] = []
            continue
        walked.add(real)
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if not name.startswith(".") and name.lower().endswith(TRACE_FILE_ENDINGS):
                found.append(Path(root) / name)
    return sorted(found, key=_sort_key)


def _sort_key(item: ScoreInput) -> str:
    return item.as_posix() if isinstance(item, Path) else item.file

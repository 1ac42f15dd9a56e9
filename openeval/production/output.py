"""The files of an ``openeval score`` run: ``results.jsonl`` (one row per trace or unreadable
line, in input order) and then ``summary.json``.

The output folder is held with the results folder's lock (:func:`openeval.results.files.
output_folder_lock`) until the summary is written, so a second run into it is refused. The
previous summary is removed before the first row is scored, the rows are streamed into a file
beside their place and renamed over it, and the summary is written last with the shared
atomic writer (:func:`openeval.results.files.write_whole`): a summary present means its
results file is complete and current.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, Any

from openeval.errors import MissingDependencyError, OpenEvalError, SuiteError
from openeval.production.rows import row_line
from openeval.production.summary import ScoreSummary

RESULTS_NAME = "results.jsonl"
SUMMARY_NAME = "summary.json"

Progress = Callable[[int], None]
"""Called after each row with the number of rows done."""


def check_results_name(name: str) -> None:
    """Raise SuiteError unless ``name`` is a plain file name for the rows (not the summary)."""
    if not name or "/" in name or "\\" in name or name.startswith(".") or name == SUMMARY_NAME:
        raise SuiteError(f"--results-name {name!r}: expected a plain file name such as "
                         f"{RESULTS_NAME} or {RESULTS_NAME}.zst")


def write_score_output(
    rows: Iterable[dict[str, Any]],
    output_dir: Path | None,
    *,
    results_name: str = RESULTS_NAME,
    progress: Progress | None = None,
) -> ScoreSummary:
    """Count every row, writing it to ``output_dir/results_name`` as it comes (ending in
    ``.zst``: zstd-compressed); then write ``summary.json``; return the summary. Without
    ``output_dir`` the rows are only counted.

    Raises OpenEvalError naming the file when the folder is locked by another run or cannot
    be written.
    """
    summary = ScoreSummary()
    with ExitStack() as held:
        if output_dir is not None:
            from openeval.results.files import output_folder_lock

            held.enter_context(output_folder_lock(output_dir))
        with _results_writer(output_dir, results_name) as out:
            for done, row in enumerate(rows, 1):
                summary.add(row)
                if out is not None:
                    out(row_line(row))
                if progress is not None:
                    progress(done)
        if output_dir is not None:
            _write_summary(output_dir / SUMMARY_NAME, summary)
    return summary


@contextmanager
def _results_writer(
    output_dir: Path | None, name: str
) -> Iterator[Callable[[bytes], None] | None]:
    if output_dir is None:
        yield None
        return
    final = _prepare(output_dir, name)
    temporary = final.with_name(f".{final.name}.tmp")
    try:
        with _open_results(temporary, name.lower().endswith(".zst")) as stream:

            def write(data: bytes) -> None:
                stream.write(data)

            yield write
        os.replace(temporary, final)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        raise OpenEvalError(f"cannot write results: {exc.strerror}",
                            source=exc.filename or final) from None
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


@contextmanager
def _open_results(path: Path, compressed: bool) -> Iterator[IO[bytes]]:
    from openeval.results.files import open_new_file

    # A new file, never through a link a pull request committed in the output folder.
    with open_new_file(path) as raw:
        if not compressed:
            yield raw
            return
        try:
            import zstandard
        except ImportError:
            raise MissingDependencyError(
                f'writing {path.name[1:-4]} needs zstandard: pip install '
                '"openeval-core[fixtura]"') from None
        with zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False) as stream:
            yield stream


def _prepare(output_dir: Path, name: str) -> Path:
    """Make the folder and remove the previous run's summary first, so an interrupted run
    never leaves an old summary reading as current; return the results file's path."""
    from openeval.results.files import refuse_linked_folder

    refuse_linked_folder(output_dir)
    try:
        output_dir.mkdir(parents=True, exist_ok=True)
        (output_dir / SUMMARY_NAME).unlink(missing_ok=True)
    except OSError as exc:
        raise OpenEvalError(f"cannot prepare the results folder: {exc.strerror}",
                            source=exc.filename or output_dir) from None
    return output_dir / name


def _write_summary(path: Path, summary: ScoreSummary) -> None:
    from openeval.jsonio import dump_json
    from openeval.results.files import write_whole

    try:
        write_whole(path, dump_json(summary.to_json()))
    except OSError as exc:
        raise OpenEvalError(f"cannot write: {exc.strerror}", source=path) from None

"""Result files: a :class:`SuiteResult` written as one JSON file per case plus ``summary.json``.

The format is described in proposals/0001-result-files-and-pass-rate.md and 0002 (schema
version 2) and fixed by the ``result`` and ``summary`` schemas shipped in
:mod:`openeval.schemas`. Output is canonical (sorted keys, no clock), so the same run gives
byte-identical files.

Stale verdicts never read as current: :func:`prepare_output` removes the previous run's
``summary.json`` (and the case files it listed) before the first case is scored; each case
file is written once, in place (a new file, never through a link); and ``summary.json`` is
written last and whole (temporary file, then rename), listing each case file with its size
and SHA-256. The summary is the run's commit record: a folder whose run did not finish holds
no summary, and a case file that is not what the summary records (cut short, edited, swapped)
is refused by :func:`read_results`, so ``report``, ``diff`` and the Action never trust it
(proposals/0232-results-written-once.md). Files that no
OpenEval run listed are left alone. :func:`output_folder_lock` keeps a second run (or any other
writer that takes it, such as ``openeval score``) out of a folder a run is writing.

:func:`read_results` also reads folders written before schema version 2 (version 1 files of
earlier OpenEval releases, and the one-file-per-task results of openeval-core 0.2.1).
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from openeval.errors import OpenEvalError, ResultFileError
from openeval.jsonio import (
    dump_json,
    loads_exact,
    parse_json_file,
    read_json_bytes,
    read_json_file,
)
from openeval.results.records import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.results.trials import TrialsRule
from openeval.schemas import validate
from openeval.scores import Score, Verdict, verdict

SCHEMA_VERSION = 2
SUMMARY_NAME = "summary.json"
ADDED_IN_V2 = ("fail_under_cases", "gates", "trials", "result_digests")
"""Summary keys added after the first version-2 files were written (proposals/0060): a file
without them is read as having none (no case floor, no gate, no trials)."""
RESULT_SUFFIX = ".result.json"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_STEM = 80


def result_file_name(case_id: str) -> str:
    """Return the file name of a case's result: readable, and unique per ``case_id``.

    The readable part is ``case_id`` with unsafe characters replaced; a short hash of the exact
    ``case_id`` keeps two cases apart even when their readable parts are the same.
    """
    stem = _UNSAFE.sub("_", case_id).strip("._-")[:_MAX_STEM] or "case"
    # surrogateescape: a folder name that is not valid UTF-8 still hashes, never raises.
    digest = hashlib.sha256(case_id.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"{stem}-{digest}{RESULT_SUFFIX}"


def _file_names(suite: SuiteResult) -> list[str]:
    names: list[str] = []
    used: set[str] = set()
    for case in suite.cases:
        name = result_file_name(case.case_id)
        n = 2
        while name in used:  # only when one suite holds the same case_id twice
            name = result_file_name(f"{case.case_id}#{n}")
            n += 1
        used.add(name)
        names.append(name)
    return names


Digests = dict[str, dict[str, Any]]
"""``{file name: {"bytes": size, "sha256": hex digest}}`` of a run's case files."""


def summary_document(
    suite: SuiteResult, result_files: list[str], digests: Digests | None = None
) -> dict[str, Any]:
    """Return the JSON object of ``summary.json`` for ``suite`` and its case file names, with
    ``result_digests`` when the files' digests are given."""
    return {
        "schema_version": SCHEMA_VERSION,
        **suite.summary.to_dict(),
        "result_files": result_files,
        **({"result_digests": digests} if digests is not None else {}),
        "metadata": suite.metadata,
    }


def digest_of(data: bytes) -> dict[str, Any]:
    """Return what ``summary.json`` records of one case file's bytes."""
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}


def case_document(case: CaseResult) -> dict[str, Any]:
    """Return the JSON object of one case's result file."""
    return {"schema_version": SCHEMA_VERSION, **case.to_dict()}


_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))


def open_new_file(path: Path) -> BinaryIO:
    """Return ``path`` opened for writing as a new file, never through a link.

    Whatever is at ``path`` first (a file, or a symbolic link a pull request committed there,
    pointing anywhere) is removed, not followed; the file is then created exclusively, so a
    link made in between is refused rather than written through.
    """
    return os.fdopen(_create_new(path), "wb")


def _create_new(path: Path) -> int:
    """Return a descriptor of ``path`` created anew, as :func:`open_new_file` creates it."""
    # Created exclusively first: in a prepared folder nothing is at the name, and a removal
    # that finds nothing costs a system call per file. Something there (a file, a link) is
    # removed, never followed, and the creation is tried again, exclusive as before.
    try:
        return os.open(path, _NEW_FILE, 0o644)
    except FileExistsError:
        pass
    with suppress(FileNotFoundError):
        os.unlink(path)
    return os.open(path, _NEW_FILE, 0o644)


def write_new_file(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as :func:`open_new_file` would, with no file object made."""
    fd = _create_new(path)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_whole(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` so a reader never sees half a file: beside it, then renamed
    over it. A link at ``path`` or at the temporary name is replaced, never written through
    (the rename replaces the link itself)."""
    temporary = path.with_name(f".{path.name}.tmp")
    try:
        with open_new_file(temporary) as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException:
        with suppress(OSError):
            os.unlink(temporary)
        raise


def refuse_linked_folder(out_dir: str | Path) -> None:
    """Raise ResultFileError when the output folder is a symbolic link, or lies below one
    inside the working folder (a checkout's links are a pull request's to make): results
    are written only where the command line says, never where a committed link points."""
    absolute = Path(os.path.abspath(out_dir))
    here = Path(os.getcwd())
    below = absolute.relative_to(here).parts if absolute.is_relative_to(here) else ()
    folders = [here.joinpath(*below[: i + 1]) for i in range(len(below))]
    for folder in folders or [absolute]:
        if folder.is_symlink():
            shown = folder.relative_to(here) if folder.is_relative_to(here) else folder
            raise ResultFileError(
                f"is a symbolic link to {os.readlink(folder)}; results are written only into a "
                "real folder (remove the link, or give another --output)",
                source=shown.as_posix(),
            )


def _listed_by_previous_run(out: Path) -> list[str]:
    """Return the case files the folder's summary.json lists (none when it is unreadable, or a
    link: what it points at is not ours to read)."""
    try:
        if (out / SUMMARY_NAME).is_symlink():
            return []
        # Only its list of names is read, each checked below, so the parser's own refusals
        # are enough (no depth pass over a 2 MB summary of 10,000 cases).
        document = loads_exact(read_json_bytes(out / SUMMARY_NAME))
    except (OSError, OpenEvalError, orjson.JSONDecodeError, MemoryError):
        return []
    listed = document.get("result_files") if isinstance(document, dict) else None
    if not isinstance(listed, list):
        return []
    return [n for n in listed if isinstance(n, str) and _is_plain_result_name(n)]


def _is_plain_result_name(name: str) -> bool:
    return name.endswith(RESULT_SUFFIX) and "/" not in name and "\\" not in name and name[0] != "."


_FOLDER = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0)


def _remove_names(out: Path, names: list[str]) -> None:
    """Remove each of ``names`` (plain file names) from the folder ``out`` where it exists,
    never following a link: a link is removed as itself. Relative to one descriptor of the
    folder where the system allows it (each removal then resolves one name, not the whole
    path: a third of the cost of clearing 10,000 files)."""
    if not names:
        return
    if os.unlink not in os.supports_dir_fd:
        for name in names:
            (out / name).unlink(missing_ok=True)
        return
    folder = os.open(out, _FOLDER)  # no link: refuse_linked_folder said so, O_NOFOLLOW holds it
    try:
        for name in names:
            with suppress(FileNotFoundError):
                os.unlink(name, dir_fd=folder)
    finally:
        os.close(folder)


def prepare_output(out_dir: str | Path) -> Path:
    """Make ``out_dir`` ready for a new run, before any case is scored; return it.

    Removes the previous run's ``summary.json`` and the case files it listed, so an
    interrupted run can never leave an old verdict that reads as current. Raises
    ResultFileError when the folder cannot be made or cleared.
    """
    out = Path(out_dir)
    refuse_linked_folder(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        stale = _listed_by_previous_run(out)
        summary = out / SUMMARY_NAME
        if summary.is_file() or summary.is_symlink():
            summary.unlink()
        _remove_names(out, stale)
    except OSError as exc:
        raise ResultFileError(
            f"cannot prepare the results folder: {exc.strerror}", source=exc.filename or out
        ) from None
    return out


LOCK_NAME = ".openeval.lock"
"""The lock file a run holds in its output folder while it writes there (it holds its pid)."""


@contextmanager
def output_folder_lock(out_dir: str | Path) -> Iterator[Path]:
    """Hold ``out_dir``'s write lock (making the folder if needed) while the block runs.

    Take it before :func:`prepare_output` and keep it until the last file is written, so two
    runs never clear or write one folder at once. The lock is an OS lock on ``LOCK_NAME`` in
    the folder: the system drops it when its holder exits, however it exits, so the lock of a
    run that was killed is simply taken over. It keeps other processes out, not other callers
    in this process. Raises ResultFileError naming the folder and the pid of the run holding
    it, or when the folder cannot be made or the lock file not opened.
    """
    out = Path(out_dir)
    path = out / LOCK_NAME
    refuse_linked_folder(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        fd = _locked(path)
    except OSError as exc:
        raise ResultFileError(
            f"cannot lock the results folder: {exc.strerror}", source=exc.filename or out
        ) from None
    try:
        try:
            os.ftruncate(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:  # the pid only helps the message of a run that is refused
            pass
        yield out
    finally:
        # Removed while still held: a run that opened it meanwhile sees it is gone (_locked)
        # and makes a new one, so two runs never hold two files at once. Windows cannot
        # remove an open file; the next run reuses it.
        with suppress(OSError):
            path.unlink()
        os.close(fd)


def _locked(path: Path) -> int:
    """Return an open descriptor of ``path`` holding its lock; raise ResultFileError if held."""
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        if path.is_symlink():  # never truncate what a committed link points at
            path.unlink()
        fd = os.open(path, flags, 0o644)
        try:
            _try_lock(fd)
        except OSError:
            os.lseek(fd, 0, os.SEEK_SET)
            holder = os.read(fd, 32).decode("ascii", "replace").strip()
            os.close(fd)
            who = f"pid {holder}" if holder.isdigit() else "another process"
            raise ResultFileError(
                f"another OpenEval run ({who}) is writing this results folder; wait for it to "
                "finish or choose another folder", source=path.parent,
            ) from None
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # the holder removed it as we opened it: take the new one


if sys.platform == "win32":
    import msvcrt

    def _try_lock(fd: int) -> None:
        # Lock a byte past the pid, so the pid stays readable by the run that is refused.
        os.lseek(fd, 1024, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
else:
    import fcntl

    def _try_lock(fd: int) -> None:
        # A POSIX record lock, not flock: it belongs to this process only, so worker processes
        # forked during the run do not inherit it and cannot keep it after the run is gone.
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def write_results(suite: SuiteResult, out_dir: str | Path) -> Path:
    """Write ``suite`` into ``out_dir`` (prepared first if needed) and return ``out_dir``.

    Callers that share folders with other processes hold :func:`output_folder_lock` around
    the run (``openeval run --output`` does). Raises ResultFileError when the folder cannot be
    written.
    """
    out = prepare_output(out_dir)
    names = _file_names(suite)
    digests: Digests = {}
    try:
        for case, name in zip(suite.cases, names, strict=True):
            # In place, once: no reader trusts a case file the summary does not vouch for,
            # so a temporary name and a rename per case would buy nothing.
            data = dump_json(case_document(case))
            write_new_file(out / name, data)
            digests[name] = digest_of(data)
        # Written last and whole: a summary present means every case file it lists was
        # written, and its digests say what each holds.
        write_whole(out / SUMMARY_NAME, dump_json(summary_document(suite, names, digests)))
    except OSError as exc:
        raise ResultFileError(
            f"cannot write results: {exc.strerror}", source=exc.filename or out
        ) from None
    return out


def read_results(in_dir: str | Path) -> SuiteResult:
    """Return the suite stored in ``in_dir`` by :func:`write_results` (any schema version).

    Raises ResultFileError naming the file (and JSON path) when the folder is missing or holds
    no result, when a file is not valid JSON or does not fit its schema, when ``summary.json``
    and the case files disagree, when a listed entry is not a plain result file name of this
    folder or is listed twice, or when a case file is not listed in the summary.
    """
    folder = Path(in_dir)
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise ResultFileError(f"result folder {what}", source=folder)
    summary_path = folder / SUMMARY_NAME
    present = sorted(p.name for p in folder.glob(f"*{RESULT_SUFFIX}"))
    if not summary_path.is_file() and not present:
        # No file of ours: perhaps the one-file-per-task results of openeval-core 0.2.1.
        legacy = [(p, read_json_file(p, error=ResultFileError))
                  for p in sorted(folder.glob("*.json"))]
        if any(isinstance(doc, dict) and "metrics" in doc for _, doc in legacy):
            return read_results_021(legacy)
    if not summary_path.is_file():
        message = (
            "holds no result (expected summary.json and *.result.json files written by "
            "`openeval run --output`)"
            if not present
            else "summary.json is missing beside the case result files: the run that wrote "
            "them did not finish, so they are not a verdict"
        )
        raise ResultFileError(message, source=folder)
    summary = read_json_file(summary_path, error=ResultFileError)
    version = summary.get("schema_version") if isinstance(summary, dict) else None
    if version == 1:
        return _read_v1(folder, summary_path, summary, present)
    validate(summary, "summary", source=summary_path, error=ResultFileError)
    listed = _listed(summary, summary_path, present, folder)
    digests = summary.get("result_digests")
    cases = tuple(_read_case(folder / name, summary_path, i, digests)
                  for i, name in enumerate(listed))
    suite = SuiteResult(
        cases=cases,
        fail_under=summary["fail_under"],
        metadata=summary["metadata"],
        gates=tuple((g["name"], g["line"]) for g in summary.get("gates", [])),
        fail_under_cases=summary.get("fail_under_cases"),
        gate_sources=_gate_sources(summary["metadata"]),
        gate_notes=tuple(n for n in summary["metadata"].get("gate_notes", ())
                         if isinstance(n, str)),
    )
    _agree(summary, summary_document(suite, listed, digests), summary_path)
    return suite


def _gate_sources(metadata: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """Return the gate lines' sources a run recorded in its metadata (proposals/0162)."""
    found = metadata.get("gate_sources")
    if not isinstance(found, dict):
        return ()
    return tuple((k, v) for k, v in sorted(found.items()) if isinstance(v, str))


def _listed(
    summary: dict[str, Any], summary_path: Path, present: list[str], folder: Path
) -> list[str]:
    listed: list[str] = summary["result_files"]
    if not listed:
        raise ResultFileError("holds no result: summary.json lists no case", source=summary_path)
    seen: set[str] = set()
    for i, name in enumerate(listed):
        if not _is_plain_result_name(name):
            raise ResultFileError(
                f"{name!r} is not a result file of this folder (expected a name ending in "
                f"{RESULT_SUFFIX}, with no folder part)",
                source=summary_path, location=f"result_files[{i}]",
            )
        if name in seen:
            raise ResultFileError(
                f"{name!r} is listed twice", source=summary_path, location=f"result_files[{i}]"
            )
        seen.add(name)
    for name in sorted(set(present) - seen):
        raise ResultFileError(
            "case result file not listed in summary.json (left from another run?)",
            source=folder / name,
        )
    return listed


def _agree(summary: dict[str, Any], expected: dict[str, Any], summary_path: Path) -> None:
    for key in sorted(expected):
        if key in ADDED_IN_V2 and key not in summary:
            continue
        if summary.get(key) != expected[key]:
            raise ResultFileError(
                f"says {summary.get(key)!r} but the case result files give {expected[key]!r}",
                source=summary_path,
                location=key,
            )


def _read_document(
    path: Path, summary_path: Path, index: int, digests: Digests | None = None
) -> Any:
    if not path.is_file():
        raise ResultFileError(
            f"lists {path.name}, which is missing", source=summary_path,
            location=f"result_files[{index}]",
        )
    data = read_json_bytes(path, error=ResultFileError)
    if digests is not None:
        _check_digest(path, summary_path, digests, data)
    return parse_json_file(data, path, error=ResultFileError)


def _check_digest(path: Path, summary_path: Path, digests: Digests, data: bytes) -> None:
    """Raise ResultFileError unless ``data``, read from ``path``, is what the summary records
    for it."""
    recorded = digests.get(path.name)
    if recorded is None:
        raise ResultFileError(f"records no digest for {path.name}", source=summary_path,
                              location="result_digests")
    found = digest_of(data)
    if found != recorded:
        raise ResultFileError(
            f"is not the file the run wrote: summary.json records {recorded.get('bytes')} bytes "
            f"with SHA-256 {str(recorded.get('sha256'))[:12]}..., the file "
            + f"holds {found['bytes']} bytes with SHA-256 {found['sha256'][:12]}..."
            + " (cut short or changed after the run; run it again)",
            source=path,
        )


def _read_case(
    path: Path, summary_path: Path, index: int, digests: Digests | None = None
) -> CaseResult:
    document = _read_document(path, summary_path, index, digests)
    validate(document, "result", source=path, error=ResultFileError)
    try:
        case = CaseResult.from_dict(document)
    except ValueError as exc:  # a score whose value does not fit its data type
        raise ResultFileError(str(exc), source=path, location="checks") from None
    _check_verdicts(case, path, "")
    if case.trials:
        if case.checks:
            raise ResultFileError(
                "a case with trials holds its checks in each trial, not beside them",
                source=path, location="checks",
            )
        try:
            TrialsRule.parse(case.trials_rule or "")
        except ValueError as exc:
            raise ResultFileError(str(exc), source=path, location="trials_rule") from None
        for i, trial in enumerate(case.trials):
            _check_verdicts(trial, path, f"trials[{i}].")
        expected = case_document(case)
        for i, (trial, written) in enumerate(zip(expected["trials"], document["trials"],
                                                 strict=True)):
            if trial["status"] != written["status"]:
                raise ResultFileError(
                    f"status {written['status']!r} does not match the trial's error and checks "
                    f"(expected {trial['status']!r})", source=path,
                    location=f"trials[{i}].status",
                )
        if document.get("trial_stats") != expected["trial_stats"]:
            raise ResultFileError(
                f"says {document.get('trial_stats')!r} but the trials give "
                f"{expected['trial_stats']!r}", source=path, location="trial_stats",
            )
    if case_document(case) != document:
        raise ResultFileError(
            f"status {document['status']!r} does not match the case's error and checks "
            f"(expected {case.status!r})",
            source=path,
            location="status",
        )
    return case


def _check_verdicts(case: CaseResult, path: Path, prefix: str) -> None:
    for i, check in enumerate(case.checks):
        derived = "error" if check.verdict == "error" and not check.scores else verdict(
            check.scores, check.spec.threshold
        )
        if derived != check.verdict:
            raise ResultFileError(
                f"verdict {check.verdict!r} does not follow from its scores and threshold "
                f"(expected {derived!r})", source=path, location=f"{prefix}checks[{i}].verdict",
            )


# ---- schema version 1 (OpenEval before the scoring core was widened) ----

def _verdict_of(passed: bool | None) -> Verdict:
    return "n.a." if passed is None else ("pass" if passed else "fail")


def _metric_v1(result: dict[str, Any]) -> CheckResult:
    name = result["metric_name"]
    passed = result["passed"]
    scores = () if passed is None else (Score(float(result["score"]), "NUMERIC", None, name, True),)
    return CheckResult(
        spec=CheckSpec(kind=name, name=name, family="metric"),
        verdict=_verdict_of(passed),
        scores=scores,
        details=result["details"],
    )


def _read_v1(
    folder: Path, summary_path: Path, summary: dict[str, Any], present: list[str]
) -> SuiteResult:
    validate(summary, "summary_v1", source=summary_path, error=ResultFileError)
    listed = _listed(summary, summary_path, present, folder)
    cases = []
    for i, name in enumerate(listed):
        path = folder / name
        document = _read_document(path, summary_path, i)
        validate(document, "result_v1", source=path, error=ResultFileError)
        cases.append(
            CaseResult(
                case_id=document["case_id"],
                task_id=document["task_id"],
                testcase_path=document["testcase"],
                trace_path=document["trace"],
                trace_format=document["trace_format"],
                checks=tuple(_metric_v1(m) for m in document["metrics"]),
                error=document["error"],
                trace_task_id=document.get("trace_task_id"),
            )
        )
    metadata = {**summary["metadata"], "read_from": "OpenEval result files, schema version 1"}
    return SuiteResult(cases=tuple(cases), fail_under=summary["fail_under"], metadata=metadata)


# ---- openeval-core 0.2.1 ----

def read_results_021(files: list[tuple[Path, Any]]) -> SuiteResult:
    """Return the suite held by result files that openeval-core 0.2.1 wrote, one per case.

    0.2.1 wrote ``<task_id>.json`` holding ``task_id``, ``metrics`` (display name -> result)
    and, for a case it could not read, ``error``; there was no summary. Metric names are
    turned into today's snake_case names ("Tool Selection Accuracy" -> tool_selection_accuracy)
    and kept in the order written. Raises ResultFileError naming the file and JSON path when a
    file does not have that shape.
    """
    cases = []
    for path, document in files:
        validate(document, "result_v0", source=path, error=ResultFileError)
        checks = tuple(
            _metric_v1({**result, "metric_name": _snake_case(result["metric_name"]),
                        "score": float(result["score"])})
            for result in document["metrics"].values()
        )
        cases.append(
            CaseResult(
                case_id=path.stem,
                task_id=document["task_id"],
                testcase_path=None,
                trace_path=None,
                trace_format=None,
                checks=() if "error" in document else checks,
                error=document.get("error"),
            )
        )
    return SuiteResult(cases=tuple(cases), metadata={"read_from": "openeval-core 0.2.1 results"})


def _snake_case(display_name: str) -> str:
    return "_".join(display_name.lower().split())

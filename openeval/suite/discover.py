"""Suite discovery: the cases of a suite folder, in sorted path order
(docs/semantics.md#suites-and-result-files).

Two layouts are understood, and both may appear in one tree:

(a) openeval-core 0.2.1: ``DIR/testcases/X.json`` paired with ``DIR/traces/X.*``;
(b) case folders: a ``testcase.json`` (or ``X.testcase.json``) whose trace is the file its
    ``trace`` key names, else the one trace file beside it (``trace.*``, ``*.trace``,
    ``*.trace.json``, ``*.trace.jsonl``).

A ``testcase.json`` folder may instead hold several traces of the same task, its trials
(proposals/0060): ``trace-1.json``, ``trace-2.jsonl`` ... beside it, or every file of a
``trials/`` folder beside it, in any trace format, mixed formats allowed, in natural order
(``trace-2`` before ``trace-10``).

Discovery reads no file's content; a case whose trace cannot be found is still returned, with
the reason in :attr:`CaseSpec.problem`, so it becomes an errored case and is never dropped. A
folder that cannot be listed (no read permission, a symbolic link loop) is a case too, errored
with the reason; symbolic links to folders are followed, each real folder visited once. Hidden
folders (``.b``) are walked like any other (only ``.git`` and ``__pycache__`` are not), and a
folder, FIFO, device or dangling link named like a test case is a case, errored when it is
read: in a pull request renaming or replacing a failing case must not make it vanish. Case ids
keep a file name that is not valid UTF-8 readable, with the odd bytes escaped.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from openeval.adapters.stream import TRACE_FILE_ENDINGS
from openeval.errors import SuiteError

TESTCASE_NAME = "testcase.json"
TESTCASE_SUFFIX = ".testcase.json"
LEGACY_TESTCASES = "testcases"
LEGACY_TRACES = "traces"
TRIALS_FOLDER = "trials"
MAX_TRIALS = 1000
"""Most trials one case may hold: pass^k for every k stays cheap, hostile folders bounded."""

_NEVER_CASES = frozenset({".git", "__pycache__"})
"""Folders discovery does not enter."""

_TRIAL_NAME = re.compile(r"trace-[0-9]+(\.[^/\\]+)?")
_DIGITS = re.compile(r"([0-9]+)")


@dataclass(frozen=True)
class CaseSpec:
    """A case found in a suite: where its files are, or why its trace could not be found."""

    case_id: str
    """The case's path relative to the suite folder, POSIX style."""
    testcase_path: Path
    trace_path: Path | None
    """The trace file; None when it is named by the test case's ``trace`` key (read later)
    or when ``problem`` says why none was found."""
    problem: str | None = None
    """Why the case cannot be scored before reading anything (no trace, several traces)."""
    unreadable: bool = False
    """True when ``problem`` is that the case's folder could not even be listed."""
    trials: tuple[Path, ...] = ()
    """The traces of a case run several times, in order; empty for a case with one trace."""


def is_trial_name(name: str) -> bool:
    """Return True when a file name marks one trial of a case: ``trace-N`` or ``trace-N.*``."""
    return _TRIAL_NAME.fullmatch(name) is not None


def natural_key(name: str) -> tuple[tuple[tuple[int, str], ...], str]:
    """Return a sort key that orders digit runs by value: ``trace-2`` before ``trace-10``; the
    name itself breaks ties (``t2`` and ``t02``), so the order never depends on the folder."""
    parts = tuple((int(part), "") if part.isdigit() else (-1, part)
                  for part in _DIGITS.split(name) if part)
    return parts, name


def is_testcase_name(name: str) -> bool:
    """Return True when a file name marks a test case: ``testcase.json``, ``*.testcase.json``."""
    return name == TESTCASE_NAME or name.endswith(TESTCASE_SUFFIX)


def is_trace_name(name: str) -> bool:
    """Return True when a file name marks a trace: ``trace.*``, ``*.trace``, ``*.trace.json(l)``."""
    return (
        name.startswith("trace.")
        or name.endswith((".trace", ".trace.json", ".trace.jsonl"))
    )


def discover(suite_dir: str | Path) -> list[CaseSpec]:
    """Return every case under ``suite_dir``, in sorted path order.

    Raises SuiteError when ``suite_dir`` is not a folder or holds no case.
    """
    root = Path(suite_dir)
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise SuiteError(f"suite folder {what}", source=root)
    specs: list[CaseSpec] = []
    for folder, dirnames, filenames in _walk(root, specs):
        dirnames.sort()
        names = sorted(filenames)
        if folder.name == LEGACY_TESTCASES and (folder.parent / LEGACY_TRACES).is_dir():
            specs += _legacy_cases(root, folder, names)
            continue
        # A folder named like a test case is one too: reading it says it is a folder, so the
        # case is errored, never silently missing.
        testcases = sorted(n for n in names + dirnames if is_testcase_name(n))
        traces = [n for n in names if is_trace_name(n)]
        specs += [_folder_case(root, folder, name, traces, names, dirnames)
                  for name in testcases]
        if traces and not testcases:
            specs += _misnamed_cases(root, folder, names)
    if not specs:
        raise SuiteError(
            "no case found: expected folders holding testcase.json (or *.testcase.json) and a "
            "trace file, or testcases/ and traces/ folders (openeval-core 0.2.1 layout)",
            source=root,
        )
    return sorted(specs, key=lambda s: s.case_id)


def _looks_like_a_testcase(name: str) -> bool:
    """``test_case.json``, ``testCase.json``, ``refund.test-case.json``: a test case file by
    its name, but for the spelling discovery looks for."""
    return re.sub(r"[^a-z]", "", name.lower()).endswith("testcasejson")


def _misnamed_cases(root: Path, folder: Path, names: list[str]) -> list[CaseSpec]:
    """A folder holding a trace and a file named almost like a test case is an errored case,
    not a silently skipped one: the gate must not pass on a suite missing a case it was
    meant to run."""
    return [
        CaseSpec(_case_id(root, folder / name), folder / name, None,
                 f"looks like a test case but is not named {TESTCASE_NAME} (or "
                 f"NAME{TESTCASE_SUFFIX}), so nothing pairs it with its trace; rename it")
        for name in names if _looks_like_a_testcase(name)
    ]


def _walk(root: Path, specs: list[CaseSpec]) -> Iterator[tuple[Path, list[str], list[str]]]:
    """Walk ``root``, following links to folders once each; a folder that cannot be listed
    is appended to ``specs`` as an unreadable case."""

    def unlistable(error: OSError) -> None:
        folder = Path(error.filename) if error.filename else root
        reason = error.strerror or type(error).__name__
        specs.append(CaseSpec(
            _case_id(root, folder) if folder != root else folder.name, folder, None,
            f"cannot list this folder: {reason}; every case below it is unaccounted for",
            unreadable=True,
        ))

    seen: set[str] = set()
    for folder, dirnames, filenames in os.walk(root, onerror=unlistable, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:  # a link back to a folder already walked: a loop, or a second name
            dirnames[:] = []
            continue
        seen.add(real)
        # Hidden folders are walked too: renaming a failing case's folder to `.b` must not
        # drop it. Only Git's own folder, which no commit can fill, and Python's caches are not.
        dirnames[:] = [d for d in dirnames if d not in _NEVER_CASES]
        yield Path(folder), dirnames, filenames


def display_path(path: Path | str) -> str:
    """Return a path as readable text: POSIX style, bytes that are not UTF-8 escaped.

    The path's bytes are read as UTF-8 whatever the locale: under a Latin-1 filesystem
    encoding ``ü`` arrives as ``Ã¼``, and case ids (and so result file names) would differ
    from machine to machine."""
    text = path.as_posix() if isinstance(path, Path) else path
    return os.fsencode(text).decode("utf-8", "backslashreplace")


def _case_id(root: Path, path: Path) -> str:
    return display_path(path.relative_to(root))


def _legacy_cases(root: Path, folder: Path, names: list[str]) -> list[CaseSpec]:
    traces_dir = folder.parent / LEGACY_TRACES
    trace_names = sorted(p.name for p in traces_dir.iterdir() if p.is_file())
    specs = []
    for name in names:
        if not name.endswith(".json"):
            continue
        stem = name[: -len(".json")]
        matches = [t for t in trace_names if t == stem or t.startswith(stem + ".")]
        testcase = folder / name
        if len(matches) == 1:
            specs.append(CaseSpec(_case_id(root, testcase), testcase, traces_dir / matches[0]))
            continue
        problem = (
            f"no trace for this test case: expected {LEGACY_TRACES}/{stem}.json (or {stem}.*)"
            if not matches
            else f"several traces for this test case in {LEGACY_TRACES}/: {', '.join(matches)}"
        )
        specs.append(CaseSpec(_case_id(root, testcase), testcase, None, problem))
    return specs


def _folder_case(
    root: Path, folder: Path, name: str, traces: list[str], files: list[str],
    folders: list[str],
) -> CaseSpec:
    testcase = folder / name
    # A case folder is named by its path. A suite that is itself one case folder has no path
    # to name it by: the empty id asks for its task id, read when the case runs.
    if name == TESTCASE_NAME and folder == root:
        case_id = ""
    else:
        case_id = _case_id(root, folder if name == TESTCASE_NAME else testcase)
    if name != TESTCASE_NAME:
        # X.testcase.json pairs with X.trace* first, so several cases may share a folder.
        stem = name[: -len(TESTCASE_SUFFIX)]
        own = [t for t in traces if t.startswith(stem + ".trace")]
        traces = own or traces
    else:
        trials = _trials(folder, files, folders)
        if trials is not None:
            return _trials_case(case_id, testcase, folder, trials, traces)
    if len(traces) == 1:
        return CaseSpec(case_id, testcase, folder / traces[0])
    # The test case's own `trace` key may still name it; decided when the case runs.
    problem = (
        "no trace file beside the test case (expected trace.json, trace.jsonl, *.trace, "
        "*.trace.json or a 'trace' key in the test case)"
        if not traces
        else f"several trace files beside the test case ({', '.join(traces)}); name one with "
        "the test case's 'trace' key"
    )
    return CaseSpec(case_id, testcase, None, problem)


def _trials(
    folder: Path, listed_files: list[str], listed_folders: list[str]
) -> tuple[list[Path], str] | None:
    """Return the trial traces of a case folder and where they are (or, with no trace, why
    they cannot be used); None when it has no trials. ``listed_files`` and ``listed_folders``
    are what the walk listed in ``folder``, so the folder is not listed a second time."""
    try:
        numbered = [folder / n for n in sorted(listed_files, key=natural_key)
                    if is_trial_name(n) and (folder / n).is_file()]
        trials_dir = folder / TRIALS_FOLDER
        if TRIALS_FOLDER not in listed_folders or not trials_dir.is_dir():
            return (numbered, "trace-N files") if numbered else None
        if numbered:
            return [], (f"both trace-N files and a {TRIALS_FOLDER}/ folder; keep one kind of "
                        "trials")
        # A trials/ folder ignores what a case folder ignores (a README, notes): only files
        # named like traces are trials.
        files = [trials_dir / n for n in sorted(os.listdir(trials_dir), key=natural_key)
                 if not n.startswith(".") and n.endswith(TRACE_FILE_ENDINGS)
                 and (trials_dir / n).is_file()]
    except OSError as exc:
        return [], f"cannot list the trials: {exc.strerror or type(exc).__name__}"
    if not files:
        return [], f"the {TRIALS_FOLDER}/ folder holds no trace file"
    return files, f"{TRIALS_FOLDER}/"


def _trials_case(
    case_id: str, testcase: Path, folder: Path, found: tuple[list[Path], str], traces: list[str]
) -> CaseSpec:
    files, where = found
    problem = None if files else where
    if files and traces:
        problem = (f"holds trials ({where}) and a single trace ({', '.join(traces)}); keep "
                   "one or the other")
    elif len(files) > MAX_TRIALS:
        problem = f"holds {len(files)} trials; at most {MAX_TRIALS} are read per case"
    if problem is not None:
        return CaseSpec(case_id, testcase, None, problem)
    return CaseSpec(case_id, testcase, None, trials=tuple(files))

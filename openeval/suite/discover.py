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
    trace_real: str | None = None
    """The real path of ``trace_path`` when the walk knows it (the trace is no link: its
    folder's real path and its name), so the run's confinement needs no ``realpath``; None
    otherwise."""


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


def discover(suite_dir: str | Path, *, tree: SuiteTree | None = None) -> list[CaseSpec]:
    """Return every case under ``suite_dir``, in sorted path order.

    ``tree`` is the suite already walked (:meth:`SuiteTree.walk`), shared with the
    configuration loader. Raises SuiteError when ``suite_dir`` is not a folder or holds no case.
    """
    root = Path(suite_dir)
    if not root.is_dir():
        what = "does not exist" if not root.exists() else "is not a folder"
        raise SuiteError(f"suite folder {what}", source=root)
    tree = tree or SuiteTree.walk(root)
    specs: list[CaseSpec] = []
    unlistable = list(tree.unlistable)
    for index, found in enumerate(tree.folders):
        while unlistable and unlistable[0][0] <= index:
            specs.append(_unlistable(root, unlistable.pop(0)[1]))
        if not found.cases:
            continue
        folder, dirnames = Path(found.path), found.dirnames
        names = sorted(found.filenames)
        if folder.name == LEGACY_TESTCASES and (folder.parent / LEGACY_TRACES).is_dir():
            specs += _legacy_cases(root, folder, names)
            continue
        # A folder named like a test case is one too: reading it says it is a folder, so the
        # case is errored, never silently missing.
        testcases = sorted(n for n in names + dirnames if is_testcase_name(n))
        traces = [n for n in names if is_trace_name(n)]
        specs += [_folder_case(root, folder, name, traces, names, dirnames,
                               _real_beside(found, traces))
                  for name in testcases]
        if traces and not testcases:
            specs += _misnamed_cases(root, folder, names)
    specs += [_unlistable(root, error) for _, error in unlistable]
    if not specs:
        raise SuiteError(
            "no case found: expected folders holding testcase.json (or *.testcase.json) and a "
            "trace file, or testcases/ and traces/ folders (openeval-core 0.2.1 layout)",
            source=root,
        )
    return sorted(specs, key=lambda s: s.case_id)


def _real_beside(folder: Folder, names: list[str]) -> dict[str, str]:
    """Return the real path of each of ``names`` in ``folder`` that is no link: the folder's
    real path and the name, known without a system call."""
    return {n: os.path.join(folder.real, n) for n in names if n not in folder.links}


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


def _unlistable(root: Path, error: OSError) -> CaseSpec:
    folder = Path(error.filename) if error.filename else root
    reason = error.strerror or type(error).__name__
    return CaseSpec(
        _case_id(root, folder) if folder != root else folder.name, folder, None,
        f"cannot list this folder: {reason}; every case below it is unaccounted for",
        unreadable=True,
    )


@dataclass(frozen=True)
class Folder:
    """One folder of a suite's walk, listed once for discovery and configuration alike."""

    path: str
    """The folder as the walk reached it: the suite folder, joined with the names below it."""
    real: str
    """Its real path: the suite folder's ``realpath`` joined with the names below it, and
    resolved again only at a symbolic link met on the way."""
    dirnames: list[str]
    """The folders in it discovery enters, sorted."""
    filenames: list[str]
    """The names in it that are not folders (links followed), as listed."""
    links: frozenset[str]
    """The names in it that are symbolic links (to files or folders)."""
    cases: bool
    """True when discovery reads it (every folder but ``.git`` and ``__pycache__``, each real
    folder once)."""
    config: bool
    """True when configuration reads it (hidden folders not entered, each real folder once)."""


@dataclass(frozen=True)
class SuiteTree:
    """A suite folder walked once: what discovery and the configuration loader each read.

    Each of the two keeps its own rules (discovery enters hidden folders, configuration does
    not; each visits a real folder once, in sorted order), so what each finds is what its own
    walk would find; the folders are listed once, and a real path is resolved only at a link
    (proposals/0280).
    """

    root: Path
    folders: tuple[Folder, ...]
    unlistable: tuple[tuple[int, OSError], ...]
    """Folders discovery would enter that could not be listed, with their place among
    ``folders`` (the index of the next folder walked), so their cases keep the walk's order."""

    @classmethod
    def walk(cls, suite_dir: str | Path) -> SuiteTree:
        """Return the walk of ``suite_dir``; a folder that cannot be listed is recorded, and
        ``suite_dir`` itself not being a folder is recorded as such (discovery refuses it)."""
        root = Path(suite_dir)
        folders: list[Folder] = []
        unlistable: list[tuple[int, OSError]] = []
        cases_seen: set[str] = set()
        config_seen: set[str] = set()
        top = os.fspath(root)
        stack: list[tuple[str, str, bool, bool]] = [(top, os.path.realpath(top), True, True)]
        while stack:
            path, real, cases, config = stack.pop()
            listed = _list(path)
            if isinstance(listed, OSError):
                if cases:
                    unlistable.append((len(folders), listed))
                continue
            dirs, files, links = listed
            # Seen checks after the listing, as a walk that lists then resolves: an
            # unlistable second name of a folder is reported too.
            if cases:
                cases = real not in cases_seen
                cases_seen.add(real)
            if config:
                config = real not in config_seen
                config_seen.add(real)
            if not (cases or config):
                continue
            # Hidden folders are walked too: renaming a failing case's folder to `.b` must not
            # drop it. Only Git's own folder, which no commit can fill, and Python's caches are
            # not. Configuration files are read outside hidden folders only.
            dirs.sort()
            for_cases = [d for d in dirs if d not in _NEVER_CASES] if cases else []
            for_config = ({d for d in dirs if not d.startswith(".") and d != "__pycache__"}
                          if config else set())
            folders.append(Folder(path, real, for_cases, files, links, cases, config))
            below = set(for_cases)
            for name in reversed(dirs):
                in_cases, in_config = name in below, name in for_config
                if not (in_cases or in_config):
                    continue
                child = os.path.join(path, name)
                child_real = (os.path.realpath(child) if name in links
                              else os.path.join(real, name))
                stack.append((child, child_real, in_cases, in_config))
        return cls(root, tuple(folders), tuple(unlistable))


def _list(path: str) -> tuple[list[str], list[str], frozenset[str]] | OSError:
    """Return a folder's subfolders, other names and links (``os.walk``'s reading of a
    listing: a link to a folder is a folder), or the error that stopped the listing."""
    dirs: list[str] = []
    files: list[str] = []
    links: set[str] = set()
    try:
        with os.scandir(path) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                except OSError:
                    is_dir = False
                (dirs if is_dir else files).append(entry.name)
                try:
                    if entry.is_symlink():
                        links.add(entry.name)
                except OSError:
                    links.add(entry.name)  # unknown: resolved like a link, never assumed plain
    except OSError as error:
        return error
    return dirs, files, frozenset(links)


def display_path(path: Path | str) -> str:
    """Return a path as readable text: POSIX style, bytes that are not UTF-8 escaped.

    The path's bytes are read as UTF-8 whatever the locale: under a Latin-1 filesystem
    encoding ``ü`` arrives as ``Ã¼``, and case ids (and so result file names) would differ
    from machine to machine."""
    text = path.as_posix() if isinstance(path, Path) else path
    return os.fsencode(text).decode("utf-8", "backslashreplace")


def _case_id(root: Path, path: Path) -> str:
    """``display_path(path.relative_to(root))``; the paths discovery makes (the root's text, a
    slash, plain names) are cut as text, any other goes through pathlib."""
    top, text = str(root), str(path)
    if text.startswith(top) and text[len(top):len(top) + 1] == "/" and top != "/":
        rest = text[len(top) + 1:]
        if rest and not {"", ".", ".."} & set(rest.split("/")):
            return display_path(rest)
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
    folders: list[str], real: dict[str, str],
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
        return CaseSpec(case_id, testcase, folder / traces[0], trace_real=real.get(traces[0]))
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
        # Named like trials first, then sorted: the same order, with no sort key made for
        # the files that are not trials.
        numbered = [folder / n for n in sorted(filter(is_trial_name, listed_files),
                                               key=natural_key)
                    if (folder / n).is_file()]
        trials_dir = folder / TRIALS_FOLDER if TRIALS_FOLDER in listed_folders else None
        if trials_dir is None or not trials_dir.is_dir():
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

"""The one walk of a suite (``SuiteTree``) against the two walks it replaced.

Discovery walked with ``os.walk`` (hidden folders entered, ``.git`` and ``__pycache__`` not)
and the configuration loader walked again (hidden folders skipped), each resolving every
folder with ``realpath`` to visit a real folder once. The references below are those two
walks; on each tree of the table the shared walk must give each of them the same folders in
the same order, the same names in them, and real paths equal to ``realpath``.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.suite.discover import SuiteTree, discover

Layout = Callable[[Path], None]


def _old_walk(root: Path, enters: Callable[[str], bool]) -> list[tuple[str, list[str], list[str]]]:
    """One of the two old walks: ``os.walk`` through links, each real folder once, entering
    the sub-folders ``enters`` keeps, in sorted order."""
    found: list[tuple[str, list[str], list[str]]] = []
    seen: set[str] = set()
    for folder, dirnames, filenames in os.walk(root, followlinks=True):
        real = os.path.realpath(folder)
        if real in seen:
            dirnames[:] = []
            continue
        seen.add(real)
        dirnames[:] = sorted(d for d in dirnames if enters(d))
        found.append((folder, list(dirnames), sorted(filenames)))
    return found


def _discovery_walk(root: Path) -> list[tuple[str, list[str], list[str]]]:
    return _old_walk(root, lambda name: name not in (".git", "__pycache__"))


def _config_walk(root: Path) -> list[tuple[str, list[str]]]:
    entered = _old_walk(root, lambda name: not name.startswith(".") and name != "__pycache__")
    return [(folder, filenames) for folder, _, filenames in entered]


def _case(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "testcase.json").write_text("{}")
    (folder / "trace.json").write_text("{}")


def _plain(root: Path) -> None:
    for name in ("a", "b/c", "b/d", "e/f/g"):
        _case(root / name)
    (root / "openeval.toml").write_text("")


def _hidden_and_skipped(root: Path) -> None:
    for name in (".hidden/x", "__pycache__/y", ".git/z", "ok/.inner/w", "ok/v"):
        _case(root / name)
    (root / ".hidden" / "openeval.toml").write_text("")


def _link_to_a_hidden_folder(root: Path) -> None:
    # Discovery meets the real folder first (".h" sorts before "a") and skips the link; the
    # configuration skips ".h" and reads it through the link: each must keep its own answer.
    _case(root / ".h" / "inner")
    (root / ".h" / "openeval.toml").write_text("")
    (root / "a").symlink_to(".h", target_is_directory=True)


def _loops_and_second_names(root: Path) -> None:
    _case(root / "real" / "case")
    (root / "real" / "loop").symlink_to("..", target_is_directory=True)
    (root / "second").symlink_to("real", target_is_directory=True)
    (root / "z").mkdir()
    (root / "z" / "third").symlink_to("../real/case", target_is_directory=True)


def _links_to_files_and_outside(root: Path) -> None:
    outside = root.parent / f"{root.name}-outside"
    _case(outside / "case")
    _case(root / "in")
    (root / "in" / "trace.json").unlink()
    (root / "in" / "trace.json").symlink_to(outside / "case" / "trace.json")
    (root / "out").symlink_to(outside, target_is_directory=True)
    (root / "dangling").symlink_to(root / "nowhere")


LAYOUTS: dict[str, Layout] = {
    "plain folders": _plain,
    "hidden and skipped folders": _hidden_and_skipped,
    "a link to a hidden folder": _link_to_a_hidden_folder,
    "loops and second names": _loops_and_second_names,
    "links to files and outside": _links_to_files_and_outside,
}


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("spelled", ["as given", "with a dot segment"])
def test_one_walk_gives_each_reader_its_own_walk(
    tmp_path: Path, layout: Layout, spelled: str
) -> None:
    root = tmp_path / "suite"
    root.mkdir()
    layout(root)
    given = root if spelled == "as given" else root / "." / ".." / "suite"
    tree = SuiteTree.walk(given)

    cases = [(f.path, f.dirnames, sorted(f.filenames)) for f in tree.folders if f.cases]
    config = [(f.path, sorted(f.filenames)) for f in tree.folders if f.config]
    assert cases == _discovery_walk(given)
    assert config == _config_walk(given)
    for folder in tree.folders:
        assert folder.real == os.path.realpath(folder.path)


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_known_trace_path_is_its_realpath(tmp_path: Path, layout: Layout) -> None:
    root = tmp_path / "suite"
    root.mkdir()
    layout(root)
    specs = discover(root)
    known = [spec for spec in specs if spec.trace_real is not None]
    assert known  # every layout has a case whose trace is no link
    for spec in known:
        assert spec.trace_path is not None
        assert spec.trace_real == os.path.realpath(spec.trace_path)
    linked = [s for s in specs if s.trace_path is not None and s.trace_path.is_symlink()]
    assert all(spec.trace_real is None for spec in linked)


def test_an_unlistable_folder_keeps_its_place(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root lists every folder")
    root = tmp_path / "suite"
    for name in ("a", "b/locked", "c"):
        _case(root / name)
    (root / "b").chmod(0)
    try:
        ids = [spec.case_id for spec in discover(root)]
    finally:
        (root / "b").chmod(0o755)
    assert ids == ["a", "b", "c"]


_FOLDERS = ["a", "b", ".h", "a/c", "a/.d", "b/e", ".h/f", "__pycache__", ".git"]
_LINK_TARGETS = ["", "a", "b", ".h", "a/c", ".h/f", "../elsewhere", "missing"]
_LINK_PLACES = ["l", "a/l", ".h/l", "b/e/l", "0"]


@settings(max_examples=examples(60), deadline=None)
@given(
    st.sets(st.sampled_from(_FOLDERS), max_size=len(_FOLDERS)),
    st.dictionaries(st.sampled_from(_LINK_PLACES), st.sampled_from(_LINK_TARGETS), max_size=4),
)
def test_any_tree_of_folders_and_links(folders: set[str], links: dict[str, str]) -> None:
    """Folders, hidden and skipped ones, and links to folders, to the parent, to outside and
    to nothing: the shared walk gives each reader what its own walk gave."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "suite"
        (Path(tmp) / "elsewhere" / "x").mkdir(parents=True)
        root.mkdir()
        for folder in sorted(folders):
            _case(root / folder)
        for place, target in links.items():
            link = root / place
            if link.parent.is_dir() and not os.path.lexists(link):
                depth = len(Path(place).parts) - 1
                link.symlink_to("/".join([".."] * depth + [target]) if target else
                                "/".join([".."] * depth) or ".", target_is_directory=True)
        tree = SuiteTree.walk(root)
        assert [(f.path, f.dirnames, sorted(f.filenames)) for f in tree.folders
                if f.cases] == _discovery_walk(root)
        assert [(f.path, sorted(f.filenames)) for f in tree.folders
                if f.config] == _config_walk(root)
        for folder in tree.folders:
            assert folder.real == os.path.realpath(folder.path)

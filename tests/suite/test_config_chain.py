"""A test case's folder chain split as text, against ``Path.parent.relative_to``."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from openeval.suite.config import _folders_below


def _pathlib(root: str, path: str) -> tuple[str, ...] | None:
    try:
        return Path(path).parent.relative_to(root).parts
    except ValueError:
        return None


CASES = {
    "a case folder": ("suite", "suite/a/testcase.json"),
    "the root's own": ("suite", "suite/testcase.json"),
    "deeper": ("s/x", "s/x/a/b/c/t.testcase.json"),
    "the working folder": (".", "./a/testcase.json"),
    "a dot segment": ("suite", "suite/./a/testcase.json"),
    "a double slash": ("suite", "suite//a/testcase.json"),
    "a trailing slash": ("suite", "suite/a/"),
    "a parent segment": ("suite", "suite/../suite/a/testcase.json"),
    "outside": ("suite", "other/a/testcase.json"),
    "a longer name": ("suite", "suite2/a/testcase.json"),
    "absolute": ("/tmp/s", "/tmp/s/a/testcase.json"),
}


@pytest.mark.parametrize(("root", "path"), CASES.values(), ids=CASES.keys())
def test_same_folders_as_pathlib(root: str, path: str) -> None:
    found = _folders_below(root, path)
    assert (tuple(found) if found is not None else None) == _pathlib(root, path)


_NAME = st.sampled_from(["a", "b", ".", "..", "", "c.d", ".e"])


@given(st.lists(_NAME, max_size=3), st.lists(_NAME, max_size=4))
def test_same_folders_as_pathlib_on_any_path(root: list[str], below: list[str]) -> None:
    root_text = Path("/".join(["s", *root])).as_posix()
    path = "/".join([root_text, *below, "testcase.json"])
    found = _folders_below(root_text, path)
    assert (tuple(found) if found is not None else None) == _pathlib(root_text, path)

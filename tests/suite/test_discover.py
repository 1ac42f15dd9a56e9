"""Discovery of trials: ``trace-N`` files or a ``trials/`` folder beside a test case, in natural
order, and each ambiguous layout named (tests/data/suite/trials_layouts.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.suite.discover import MAX_TRIALS, discover, is_trial_name, natural_key

LAYOUTS = json.loads((Path(__file__).parents[1] / "data" / "suite" / "trials_layouts.json")
                     .read_text())


@pytest.mark.parametrize("row", LAYOUTS, ids=[r["id"] for r in LAYOUTS])
def test_trials_layouts(tmp_path: Path, row: dict[str, Any]) -> None:
    for name in row["files"]:
        path = tmp_path / name
        if name.endswith("/"):
            path.mkdir(parents=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    (spec,) = discover(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in spec.trials] == row.get("trials", [])
    assert spec.problem == row.get("problem")
    trace = spec.trace_path.relative_to(tmp_path).as_posix() if spec.trace_path else None
    assert trace == row.get("trace")


@pytest.mark.parametrize(("name", "trial"), [
    ("trace-1.json", True), ("trace-12", True), ("trace-3.otlp.json", True),
    ("trace-.json", False), ("trace-x.json", False), ("trace.json", False),
    ("mytrace-1.json", False),
])
def test_trial_names(name: str, trial: bool) -> None:
    assert is_trial_name(name) is trial


def test_natural_order() -> None:
    names = ["t10", "t2", "t1", "a", "t02b", "t02"]
    assert sorted(names, key=natural_key) == ["a", "t1", "t02", "t2", "t02b", "t10"]


def test_too_many_trials_are_refused_before_any_is_read(tmp_path: Path) -> None:
    (tmp_path / "c" / "trials").mkdir(parents=True)
    (tmp_path / "c" / "testcase.json").write_text("{}")
    for i in range(MAX_TRIALS + 1):
        (tmp_path / "c" / "trials" / f"{i}.json").write_text("{}")
    (spec,) = discover(tmp_path)
    assert spec.trials == () and spec.problem == (
        f"holds {MAX_TRIALS + 1} trials; at most {MAX_TRIALS} are read per case")


@pytest.mark.parametrize("name", ["test_case.json", "testCase.json", "TestCase.JSON",
                                  "refund.test-case.json"])
def test_a_misnamed_test_case_beside_a_trace_is_an_errored_case(tmp_path: Path, name: str
                                                                ) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "trace.json").write_text("{}")
    (tmp_path / "c" / name).write_text("{}")
    (spec,) = discover(tmp_path)
    assert spec.case_id == f"c/{name}"
    assert spec.problem is not None and "is not named testcase.json" in spec.problem


def test_other_json_beside_a_trace_is_no_case(tmp_path: Path) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "trace.json").write_text("{}")
    (tmp_path / "c" / "expected.json").write_text("{}")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "testcase.json").write_text("{}")
    assert [s.case_id for s in discover(tmp_path)] == ["d"]


CASE_ID_PATHS = [
    ("suite", "suite/case-1"), ("suite", "suite/a/b/testcase.json"), (".", "case-1"),
    ("./suite", "suite/x"), ("/abs/suite", "/abs/suite/x/y"), ("/", "/x"),
    ("suite/..", "suite/../x"), ("a/../b", "a/../b/c"), ("s", "s/ü/\udcff"),
    ("s", "s/back\\slash/x"), ("s", "s/.hidden/x"), ("s", "s/..x/y"), ("suite", "suite"),
]


@pytest.mark.parametrize(("root", "path"), CASE_ID_PATHS)
def test_a_case_id_cut_as_text_is_the_relative_path(root: str, path: str) -> None:
    """The case id of a path below the suite folder, cut as text where it can be, is what
    ``relative_to`` gives (or the same ValueError where the path is not below)."""
    from openeval.suite.discover import _case_id, display_path

    try:
        expected: object = display_path(Path(path).relative_to(Path(root)))
    except ValueError:
        expected = ValueError
    try:
        found: object = _case_id(Path(root), Path(path))
    except ValueError:
        found = ValueError
    assert found == expected

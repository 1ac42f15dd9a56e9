"""The engines of ``openeval score``: chosen by name from one registry; the old import paths
of both pipelines' engines still reach the same objects."""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson
import pytest

from openeval.errors import OpenEvalError
from openeval.production import score_to_folder
from openeval.production.engines import ENGINES, engine_names, get_engine, register_engine
from openeval.production.engines.local import score_rows as local_score_rows

# (old module path, new module path, a name both must give the same object for)
OLD_PATHS = [
    ("openeval.distributed.ray", "openeval.production.engines.ray", "score_dataset"),
    ("openeval.production.engine", "openeval.production.engines.local", "local_rows"),
    ("openeval.engines", "openeval.suite.engines", "ProcessPoolEngine"),
    ("openeval.engines.base", "openeval.suite.engines.base", "run_spec"),
    ("openeval.engines.local", "openeval.suite.engines.local", "ended_how"),
]


@pytest.mark.parametrize(("old", "new", "name"), OLD_PATHS, ids=[r[0] for r in OLD_PATHS])
def test_an_old_import_path_reaches_the_same_object(old: str, new: str, name: str) -> None:
    assert getattr(importlib.import_module(old), name) is getattr(
        importlib.import_module(new), name)


def test_the_old_ray_path_is_the_engine_module_itself() -> None:
    import openeval.distributed.ray as old
    import openeval.production.engines.ray as new

    assert old is new  # patching either name patches the one module


def test_the_built_in_engines_are_registered() -> None:
    assert engine_names()[:2] == ["local", "ray"]
    assert get_engine("local") is local_score_rows
    with pytest.raises(OpenEvalError, match="unknown engine 'spark'; expected one of: local"):
        get_engine("spark")


def test_a_registered_engine_is_chosen_by_name(tmp_path: Path) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.jsonl").write_bytes(b"\n".join(
        orjson.dumps({"task_id": f"t{n}", "steps": [], "final_output": "ok"})
        for n in range(3)) + b"\n")
    seen: list[int] = []

    def counting(files: Sequence[Any], plan: Any, **settings: Any) -> Iterator[dict[str, Any]]:
        seen.append(len(files))
        yield from local_score_rows(files, plan, **settings)

    register_engine("counting", counting)
    try:
        by_name = score_to_folder([tmp_path / "in"], engine="counting", output=tmp_path / "a")
        local = score_to_folder([tmp_path / "in"], output=tmp_path / "b")
    finally:
        ENGINES.unregister("counting")
    assert seen == [1]
    assert by_name.summary.to_json() == local.summary.to_json()
    assert (tmp_path / "a" / "results.jsonl").read_bytes() == (
        tmp_path / "b" / "results.jsonl").read_bytes()


def test_the_local_engine_refuses_a_cluster_address(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text('{"task_id": "t", "steps": []}\n')
    with pytest.raises(OpenEvalError, match="applies to the ray engine"):
        score_to_folder([tmp_path], address="10.0.0.5:6379")

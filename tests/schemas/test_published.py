"""The published schemas (``schemas/v2/``): identical to the package's but for a versioned
``$id``; valid JSON Schemas; ``"$schema"`` keys that ``snapshot`` and ``init`` write are read
back and ignored, and files without one keep their bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from openeval.adapters.registry import read_trace
from openeval.errors import OpenEvalError
from openeval.jsonio import dump_json
from openeval.models import SCHEMA_KEY, AgentTrace, EvalTestCase
from openeval.scaffold import INIT_FORMATS, init_files
from openeval.schemas import load_schema, validate
from openeval.schemas.publish import FOLDER, PUBLISHED, published, schema_url, write
from openeval.suite.config import read_config_file
from openeval.testcase_file import load_test_case
from tests.builders import invoke

ROOT = Path(__file__).resolve().parents[2]
BOOKING = ROOT / "tests" / "data" / "snapshot" / "booking.trace.json"


@pytest.mark.parametrize("name", PUBLISHED)
def test_each_published_copy_is_the_package_schema_with_a_versioned_id(name: str) -> None:
    relative = (FOLDER / f"{name}.schema.json").as_posix()
    kept = (ROOT / relative).read_bytes()
    # Out of date: regenerate with `python -m openeval.schemas.publish` from the root.
    assert kept == published()[relative], f"{relative} is not what the package's schema gives"
    copy = json.loads(kept)
    assert copy["$id"] == schema_url(name) == f"https://openeval.dev/schemas/v2/{name}.schema.json"
    assert {**copy, "$id": None} == {**load_schema(name), "$id": None}
    Draft202012Validator.check_schema(copy)


def test_the_published_folder_holds_nothing_else(tmp_path: Path) -> None:
    assert sorted(p.name for p in (ROOT / FOLDER).iterdir()) == sorted(
        f"{name}.schema.json" for name in PUBLISHED)
    written = write(tmp_path)
    assert [p.relative_to(tmp_path).as_posix() for p in written] == list(published())


def test_a_schema_key_is_ignored_in_a_test_case_and_a_native_trace(tmp_path: Path) -> None:
    case = {"task_id": "t", "input": "hi", "expected_output_contains": ["hi"]}
    trace = {"task_id": "t", "steps": [{"step_id": 0, "type": "output", "content": "hi"}]}
    with_key = tmp_path / "with.json"
    with_key.write_bytes(dump_json({SCHEMA_KEY: schema_url("testcase"), **case}))
    assert load_test_case(with_key) == EvalTestCase.from_dict(case)
    trace_file = tmp_path / "trace.json"
    trace_file.write_bytes(dump_json({SCHEMA_KEY: schema_url("trace"), **trace}))
    assert read_trace(trace_file) == (AgentTrace.from_dict(trace), "native")
    # The key is no field: writing the case back leaves it out, as it was.
    assert SCHEMA_KEY not in EvalTestCase.from_dict(case).to_dict()
    with pytest.raises(OpenEvalError, match="expected a string"):
        validate({SCHEMA_KEY: 3, **case}, "testcase", source="x")


@pytest.mark.parametrize("fmt", INIT_FORMATS)
def test_init_names_the_schemas_of_what_it_writes(tmp_path: Path, fmt: str) -> None:
    files = init_files(fmt)  # type: ignore[arg-type]
    config = files["evals/openeval.toml"].decode()
    assert config.splitlines()[0] == f"#:schema {schema_url('config')}"
    testcase = json.loads(files["evals/example-case/testcase.json"])
    assert testcase[SCHEMA_KEY] == schema_url("testcase")
    traces = [json.loads(data) for path, data in files.items()
              if path.startswith("evals/example-case/") and path.endswith(".json")
              and not path.endswith("testcase.json")]
    assert [SCHEMA_KEY in t for t in traces if isinstance(t, dict)] == (
        [True] if fmt == "native" else [False] * sum(isinstance(t, dict) for t in traces))
    (tmp_path / "openeval.toml").write_text(config)
    assert read_config_file(tmp_path / "openeval.toml") is not None


def test_snapshot_writes_the_schema_of_the_test_case(tmp_path: Path) -> None:
    out = tmp_path / "testcase.json"
    invoke(["snapshot", str(BOOKING), "-o", str(out), "--force"], 0)
    written = json.loads(out.read_bytes())
    assert next(iter(written)) == SCHEMA_KEY and written[SCHEMA_KEY] == schema_url("testcase")
    validate(written, "testcase", source=out)
    load_test_case(out)

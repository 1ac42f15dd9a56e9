"""Every shipped example fits the published schemas, so users can copy any of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from openeval.adapters import load_trace
from openeval.adapters.base import TraceSource
from openeval.adapters.registry import detect_format
from openeval.jsonio import read_json_file
from openeval.results.files import read_results, write_results
from openeval.runner import run_suite
from openeval.schemas import validate
from openeval.testcase_file import load_test_case

EXAMPLES = Path(__file__).parents[2] / "examples"
TESTCASES = sorted(
    p for p in EXAMPLES.rglob("*.json")
    if p.name == "testcase.json" or p.name.endswith(".testcase.json")
)
NATIVE_TRACES = sorted(
    p for p in EXAMPLES.rglob("*.json")
    if p.name == "trace.json" and detect_format(TraceSource(p)).name == "native"
)


def _id(path: Path) -> str:
    return path.relative_to(EXAMPLES).as_posix()


def test_the_examples_are_found() -> None:
    assert EXAMPLES / "simple_agent" / "testcase.json" in TESTCASES
    assert EXAMPLES / "quickstart" / "01-refund-order" / "trace.json" in NATIVE_TRACES


@pytest.mark.parametrize("path", TESTCASES, ids=_id)
def test_example_test_case_fits_the_schema(path: Path) -> None:
    validate(read_json_file(path), "testcase", source=path)
    load_test_case(path)


@pytest.mark.parametrize("path", NATIVE_TRACES, ids=_id)
def test_example_native_trace_fits_the_schema(path: Path) -> None:
    validate(read_json_file(path), "trace", source=path)
    assert load_trace(path).steps


def test_results_of_the_examples_tree_read_back(tmp_path: Path) -> None:
    suite = run_suite(EXAMPLES)
    assert read_results(write_results(suite, tmp_path)) == suite

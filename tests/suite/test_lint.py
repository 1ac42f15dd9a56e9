"""``openeval lint``: each folder under tests/data/suite/lint is a case (a test case and its
recorded trace) with ``expected.json``, the findings lint must report as ``[kind, where]``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from openeval.suite.lint import do_nothing_trace, empty_trace, lint_paths, mutate_value
from tests.builders import invoke

CASES = Path(__file__).resolve().parents[1] / "data" / "suite" / "lint"
NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir())


@pytest.mark.parametrize("name", NAMES)
def test_lint_flags_what_makes_a_case_weak(name: str) -> None:
    report = lint_paths([CASES / name / "testcase.json"])
    found = [[f.kind, f.where] for f in report.findings]
    assert found == json.loads((CASES / name / "expected.json").read_text())
    assert report.unreadable == ()


def test_a_suite_is_linted_with_its_configuration(tmp_path: Path) -> None:
    # The case alone is strong; the suite's config adds a pass line of 0 that makes it weak,
    # and with it every expected argument unfailable (no other metric reads them).
    suite = tmp_path / "suite"
    shutil.copytree(CASES / "strong", suite / "strong")
    (suite / "strong" / "expected.json").unlink()
    (suite / "openeval.toml").write_text("[thresholds]\nargument_correctness = 0\n")
    report = lint_paths([suite])
    assert report.cases == 1
    assert [(f.kind, f.where) for f in report.findings] == [
        ("zero-pass-line", "thresholds.argument_correctness"),
        ("unfailable-value", "expected_tool_calls[0].args.order_id"),
        ("unfailable-value", "expected_tool_calls[1].args.order_id"),
        ("unfailable-value", "expected_tool_calls[1].args.amount"),
    ]


@pytest.mark.parametrize("value", [True, 0, 7, 1.5, 0.0, "", "1042", [], [1], {}, {"a": 1}, None])
def test_a_mutated_value_differs_and_keeps_its_kind(value: object) -> None:
    changed = mutate_value(value)
    assert changed != value
    if value is not None:
        assert type(changed) is type(value)


def test_the_synthetic_traces_do_nothing() -> None:
    assert empty_trace("t", "hi").steps == [] and empty_trace("t", "hi").final_output == ""
    lazy = do_nothing_trace("t", "hi")
    assert lazy.tool_calls() == [] and [m.role for m in lazy.messages] == ["user", "assistant"]


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    strong = invoke(["lint", str(CASES / "strong" / "testcase.json")], 0)
    assert "1 case linted, 0 flagged" in strong.output
    weak = invoke(["lint", "--format", "json", str(CASES / "zero-pass-line")], 1)
    document = json.loads(weak.output)
    assert document["flagged_cases"] == 1 and document["findings"][0]["kind"] == "zero-pass-line"
    broken = tmp_path / "broken.testcase.json"
    broken.write_text('{"task_id": "x", "thresholds": {"no_such_metric": 1}}')
    unreadable = invoke(["lint", str(broken)], 2)
    assert "no_such_metric" in unreadable.output

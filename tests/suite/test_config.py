"""Suite configuration: merging and precedence as a data table, and every kind of bad file
named by file, line and key (tests/data/suite/config_cases.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import OpenEvalError, TestCaseError
from openeval.runner import run_suite
from openeval.suite.config import Origin, load_suite_config, merge_case
from openeval.suite.evaluate import RunPlan, read_case

DATA = json.loads((Path(__file__).parents[1] / "data" / "suite" / "config_cases.json")
                  .read_text())


def make_suite(root: Path, files: dict[str, Any]) -> None:
    """Write ``files``: TOML as a list of lines, JSON as a value, raw bytes as ``bytes:HEX``."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, str) and content.startswith("bytes:"):
            path.write_bytes(bytes.fromhex(content[len("bytes:"):]))
        elif isinstance(content, list):
            path.write_text("\n".join(content) + "\n")
        else:
            path.write_text(json.dumps(content))


def shown(origin: Origin, root: Path) -> str:
    return str(origin).replace(root.as_posix() + "/", "")


@pytest.mark.parametrize("row", DATA["merges"], ids=[r["id"] for r in DATA["merges"]])
def test_merge_and_precedence(tmp_path: Path, row: dict[str, Any]) -> None:
    make_suite(tmp_path, row["files"])
    config = load_suite_config(tmp_path)
    assert not config.problems
    testcase = tmp_path / row["case"]
    document = json.loads(testcase.read_text())
    merged = merge_case(document, config.applying(testcase), testcase_path=testcase)
    for key, value in row["merged"].items():
        assert merged.document.get(key) == value, key
    assert merged.document["task_id"] == document["task_id"]
    for path, where in row.get("origins", {}).items():
        assert shown(merged.origins[path], tmp_path) == where, path
    for path in row.get("no_origin", []):
        assert path not in merged.origins
    if "rule" in row:
        assert merged.trials_rule is not None
        rule, origin = merged.trials_rule
        assert [rule, shown(origin, tmp_path)] == row["rule"]


@pytest.mark.parametrize("row", DATA["errors"], ids=[r["id"] for r in DATA["errors"]])
def test_bad_configuration_is_named_by_file_line_and_key(tmp_path: Path, row: dict[str, Any]
                                                         ) -> None:
    make_suite(tmp_path, row["files"])
    config = load_suite_config(tmp_path)
    with pytest.raises(OpenEvalError) as caught:
        read_case(tmp_path / row["case"], RunPlan.of(config=config))
    message = str(caught.value).replace(tmp_path.as_posix() + "/", "")
    assert message.startswith(row["error"]), message
    assert message.endswith(row.get("error_ends", message[-1:]))
    assert "\n" not in message


def test_a_config_error_is_an_errored_case_and_the_suite_goes_on(tmp_path: Path) -> None:
    trace = {"task_id": "t", "steps": [], "final_output": "done"}
    make_suite(tmp_path, {
        "broken/openeval.toml": ["max_steps = [1"],
        "broken/a/testcase.json": {"task_id": "a"}, "broken/a/trace.json": trace,
        "fine/b/testcase.json": {"task_id": "b", "expected_output_contains": ["done"]},
        "fine/b/trace.json": trace,
    })
    suite = run_suite(tmp_path)
    by_id = {c.case_id: c for c in suite.cases}
    assert by_id["broken/a"].status == "error"
    assert "broken/openeval.toml: line 2, column 1 (end of file): invalid TOML" in (
        by_id["broken/a"].error or "")
    assert by_id["fine/b"].status == "passed"
    assert suite.gate_passed is False and suite.gate_reason == "1 case(s) errored"
    assert suite.metadata["config"] == ["broken/openeval.toml"]


def test_run_settings_come_from_the_root_config_only(tmp_path: Path) -> None:
    make_suite(tmp_path, {
        "openeval.toml": ["fail_under = 0.5", "fail_under_cases = 0.25", "[gates]",
                          "step_budget = 0.75"],
        "nested/openeval.toml": ["fail_under = 0.1", "[gates]", "output_contains = 1.0"],
    })
    config = load_suite_config(tmp_path)
    settings = config.run_settings()
    assert settings.fail_under is not None and settings.fail_under[0] == 0.5
    assert settings.fail_under_cases is not None and settings.fail_under_cases[0] == 0.25
    assert [(n, line, shown(o, tmp_path)) for n, line, o in settings.gates] == [
        ("step_budget", 0.75, "openeval.toml:4")]
    assert [(k, v, shown(o, tmp_path)) for k, v, o in config.ignored()] == [
        ("fail_under", 0.1, "nested/openeval.toml:1"),
        ("gates.output_contains", 1.0, "nested/openeval.toml:3"),
    ]


def test_relocate_points_a_case_entry_at_its_own_index(tmp_path: Path) -> None:
    make_suite(tmp_path, {"openeval.toml": ["[[checks]]", "check = \"a\""],
                          "x/testcase.json": {"task_id": "x"}})
    config = load_suite_config(tmp_path)
    testcase = tmp_path / "x" / "testcase.json"
    merged = merge_case({"task_id": "x", "checks": [{"check": "b"}]}, config.applying(testcase),
                        testcase_path=testcase)
    moved = merged.relocate(TestCaseError("bad", source=testcase, location="checks[1].check"))
    assert str(moved) == f"{testcase}: checks[0].check: bad"
    untouched = TestCaseError("bad", source=testcase, location="input")
    assert merged.relocate(untouched) is untouched


def test_configured_checks_run_on_every_case_before_its_own(tmp_path: Path) -> None:
    trace = {"task_id": "t", "steps": [], "final_output": "Your order ships today."}
    make_suite(tmp_path, {
        "openeval.toml": ["[[checks]]", "check = \"contains\"", "name = \"says_ships\"",
                          "values = [\"ships\"]"],
        "a/testcase.json": {"task_id": "a", "metrics": ["output_contains"],
                            "expected_output_contains": ["today"],
                            "checks": [{"check": "refusal"}]},
        "a/trace.json": trace,
    })
    (result,) = run_suite(tmp_path).cases
    assert result.error is None
    assert [(c.name, c.verdict) for c in result.checks] == [
        ("output_contains", "pass"), ("says_ships", "pass"), ("refusal", "pass")]


def test_a_bad_setting_of_a_configured_check_names_the_config_line(tmp_path: Path) -> None:
    make_suite(tmp_path, {
        "openeval.toml": ["max_steps = 3", "", "[[checks]]", "check = \"contains\"",
                          "keyword = \"ships\""],
        "a/testcase.json": {"task_id": "a"},
        "a/trace.json": {"task_id": "a", "steps": []},
    })
    (result,) = run_suite(tmp_path).cases
    assert (result.error or "").startswith(
        f"{tmp_path.as_posix()}/openeval.toml: line 5: checks[0].keyword: unknown setting "
        "'keyword' "
        "for check 'contains'; expected one of: ")

"""``openeval config``: the effective settings of a run and of a case, and where each is from."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import Invoke

from openeval.cli.exit_codes import EXIT_OK, EXIT_USAGE


def test_a_case_shows_each_setting_with_its_file_and_line(openeval: Invoke) -> None:
    out = openeval("config", "--suite", "examples/scale", "billing/refund-order")
    assert out.code == EXIT_OK, out.stderr
    lines = [" ".join(line.split()) for line in out.stdout.splitlines()]
    assert "fail_under = 0.9 examples/scale/openeval.toml:15" in lines
    assert "gates.argument_correctness = 1.0 examples/scale/openeval.toml:19" in lines
    assert "thresholds.step_efficiency = 0.8 examples/scale/billing/openeval.toml:13" in lines
    assert "thresholds.goal_completion_rate = 1.0 the metric's default pass line" in lines
    assert "max_steps = 4 examples/scale/billing/openeval.toml:2" in lines
    assert "timeout_seconds = 60 examples/scale/openeval.toml:11" in lines
    assert "trials.rule = \"majority\" examples/scale/openeval.toml:24" in lines
    assert ("case billing/refund-order (examples/scale/billing/refund-order/testcase.json):"
            in lines)


def test_json_form(openeval: Invoke) -> None:
    out = openeval("config", "--suite", "examples/scale", "examples/scale/support/"
                   "weather-two-cities", "--format", "json")
    assert out.code == EXIT_OK, out.stderr
    document = json.loads(out.stdout)
    assert document["files"] == ["examples/scale/openeval.toml",
                                 "examples/scale/billing/openeval.toml"]
    settings = {s["key"]: s for s in document["case"]["settings"]}
    assert settings["max_steps"]["value"] == 6
    assert settings["max_steps"]["origin"] == {"kind": "config", "source":
                                               "examples/scale/openeval.toml",
                                               "path": "max_steps", "line": 10}
    assert settings["optimal_steps"]["origin"]["kind"] == "default"  # none: no dead key
    assert "thresholds.step_efficiency" not in settings  # not a billing case


def test_a_nested_config_run_settings_are_listed_as_ignored(openeval: Invoke) -> None:
    out = openeval("config", "--suite", "examples")
    assert out.code == EXIT_OK
    assert "(ignored) fail_under = 0.9" in out.stdout


def test_an_unknown_case_lists_the_cases(openeval: Invoke) -> None:
    out = openeval("config", "--suite", "examples/scale", "nope")
    assert out.code == EXIT_USAGE
    assert out.stderr == ("openeval: error: examples/scale: no case 'nope' in the suite; its "
                          "cases are: billing/invoice-lookup, billing/refund-order, "
                          "support/weather-two-cities\n")


def test_a_config_that_does_not_parse_is_one_line_with_line_and_column(
    openeval: Invoke, tmp_path: Path
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "testcase.json").write_text('{"task_id": "a"}')
    (tmp_path / "openeval.toml").write_text("max_steps = 3\nmetrics = [1,,]\n")
    out = openeval("config", "--suite", str(tmp_path))
    assert out.code == EXIT_USAGE
    assert out.stderr.startswith(f"openeval: error: {tmp_path}/openeval.toml: line 2, column "
                                 "14: invalid TOML: ")  # the second comma
    assert out.stderr.count("\n") == 1


def test_a_case_can_be_named_by_its_absolute_folder(openeval: Invoke) -> None:
    folder = Path("examples/scale/billing/invoice-lookup").resolve()
    out = openeval("config", "--suite", "examples/scale", str(folder))
    assert out.code == EXIT_OK, out.stderr
    assert "case billing/invoice-lookup (" in out.stdout

"""Reading JSON: integers beyond 64 bits stay exact (orjson alone would round them to floats)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from openeval.errors import OpenEvalError, TestCaseError
from openeval.jsonio import dump_json, dump_json_compact, parse_json
from openeval.metrics import get_metric
from openeval.models import AgentTrace, TraceStep
from openeval.testcase_file import load_test_case


@pytest.mark.parametrize(
    "text",
    [
        "12345678901234567890123456789",
        "-12345678901234567890123456789",
        "[9223372036854775807, 9223372036854775808, 18446744073709551615, 18446744073709551616]",
        "[-9223372036854775808, -9223372036854775809]",
        '{"order_id": 12345678901234567890123456789, "note": "x"}',
        '{"a":\n  [1,\t123456789012345678901234567890]}',
    ],
)
def test_integers_of_any_size_are_read_exactly(text: str) -> None:
    assert parse_json(text) == json.loads(text)
    assert parse_json(text.encode()) == json.loads(text)


@pytest.mark.parametrize(
    "text",
    ['"12345678901234567890123"', '{"ts": "1717171717123456789"}', "[0.12345678901234567890123]",
     '{"x": 1.5e300}'],
)
def test_long_digit_runs_elsewhere_change_nothing(text: str) -> None:
    assert parse_json(text) == json.loads(text)


def test_a_number_too_large_for_a_float_is_an_error_naming_the_place() -> None:
    with pytest.raises(OpenEvalError, match="line 1 column"):
        parse_json("[1e400]")


def test_big_integers_are_written_back_exactly() -> None:
    value = {"b": [1, 2], "a": 12345678901234567890123456789}
    assert json.loads(dump_json(value)) == value
    assert dump_json(value).endswith(b"\n")
    assert dump_json_compact(value) == '{"a":12345678901234567890123456789,"b":[1,2]}'


def test_an_order_id_one_off_in_the_29th_digit_fails(tmp_path: Path) -> None:
    path = tmp_path / "testcase.json"
    path.write_text(
        '{"task_id": "t", "expected_tool_calls": [{"tool": "refund", '
        '"args": {"order_id": 12345678901234567890123456789}}]}'
    )
    case = load_test_case(path)
    trace = AgentTrace(task_id="t", steps=[TraceStep(
        step_id=1, type="tool_call", tool_name="refund",
        tool_args=parse_json('{"order_id": 12345678901234567890123456788}'),
    )])
    result = get_metric("argument_correctness").score(trace, case)
    assert result.passed is False
    assert result.details.endswith(
        "refund.order_id: expected 12345678901234567890123456789, got 12345678901234567890123456788"
    )


def test_a_broken_file_still_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "testcase.json"
    path.write_text('{"task_id": 12345678901234567890123456789')
    with pytest.raises(TestCaseError, match="line 1 column"):
        load_test_case(path)

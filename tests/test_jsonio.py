"""JSON in and out: the depth limit, non-finite literals, and values JSON cannot hold."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from openeval.errors import OpenEvalError, TestCaseError
from openeval.jsonio import (
    MAX_JSON_DEPTH,
    dump_json,
    dump_json_compact,
    join_path,
    parse_json,
    read_json_file,
    too_deep,
)


def _nested(depth: int) -> str:
    """Return JSON text ``depth`` containers deep: objects and lists in turn."""
    text = "1"
    for level in range(depth):
        text = f'{{"k": {text}}}' if level % 2 else f"[0, {text}]"
    return text


def test_the_limit_is_documented_and_leaves_room_to_write_back() -> None:
    # A trace adds a few levels around a value it keeps; orjson writes at most 254.
    assert MAX_JSON_DEPTH == 200
    value = parse_json(_nested(MAX_JSON_DEPTH), max_depth=MAX_JSON_DEPTH)
    assert dump_json({"steps": [{"tool_args": {"v": value}}]})


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 300, 1100])
def test_deeper_values_are_refused_with_where(depth: int) -> None:
    with pytest.raises(OpenEvalError, match="nested more than 200 levels deep") as caught:
        parse_json(_nested(depth), source="t.json", max_depth=MAX_JSON_DEPTH)
    assert caught.value.source == "t.json"
    assert caught.value.location is not None
    if depth <= 1024:  # the parsed value shows where it went too deep
        assert "k[1].k[1]" in caught.value.location
    else:  # past the parser's own limit, only the line and column are known
        assert caught.value.location.startswith("line 1 column")


@pytest.mark.parametrize(
    ("value", "limit", "path"),
    [({"a": [1, {"b": []}]}, 4, None), ({"a": [1, {"b": []}]}, 2, "a[1]"),
     ([[], [[]]], 2, "[1][0]"), ("text", 0, None), ({}, 0, "")],
    ids=["within", "object in a list", "empty list counts", "a scalar", "the top level"],
)
def test_too_deep(value: Any, limit: int, path: str | None) -> None:
    assert too_deep(value, limit) == path


@pytest.mark.parametrize(
    ("text", "message"),
    [("[NaN]", "NaN is not valid JSON"), ('{"a": Infinity}', "Infinity is not valid JSON"),
     ('{"a": -Infinity}', "-Infinity is not valid JSON"),
     ('{"a": 1', "invalid JSON: unexpected end of data")],
    ids=["NaN", "Infinity", "-Infinity", "truncated"],
)
def test_parse_errors_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(OpenEvalError) as caught:
        parse_json(text)
    assert caught.value.message.startswith(message)


def test_values_json_cannot_hold_are_our_error_when_written() -> None:
    # Big integers are written exactly (the standard library takes over, see
    # test_jsonio_big_integers.py); a key that is not a string has no JSON form at all.
    assert dump_json({"tokens": 10**30}) == b'{\n  "tokens": 1000000000000000000000000000000\n}\n'
    with pytest.raises(OpenEvalError, match="cannot be written as JSON"):
        dump_json({1: "a"})
    assert dump_json_compact({1: "a"}) == "[a value that cannot be shown as JSON]"


@pytest.mark.parametrize(
    ("base", "part", "joined"),
    [("", "steps", "steps"), ("", 3, "[3]"), ("steps", 3, "steps[3]"),
     ("steps[3]", "tool_args", "steps[3].tool_args"), ("line 7", "arguments", "line 7: arguments")],
)
def test_join_path(base: str, part: str | int, joined: str) -> None:
    assert join_path(base, part) == joined


@pytest.mark.skipif(sys.platform == "win32", reason="/dev/zero is POSIX")
def test_json_files_follow_the_read_rule(tmp_path: Path) -> None:
    # A test case path naming a device is refused, not read forever.
    with pytest.raises(TestCaseError) as caught:
        read_json_file(Path("/dev/zero"), error=TestCaseError)
    assert caught.value.message == "is a character device, not a regular file; expected a JSON file"
    with pytest.raises(TestCaseError, match="is a folder, expected a JSON file"):
        read_json_file(tmp_path, error=TestCaseError)
    (tmp_path / "case.json").write_text('{"task_id": "t"}')
    assert read_json_file(tmp_path / "case.json") == {"task_id": "t"}

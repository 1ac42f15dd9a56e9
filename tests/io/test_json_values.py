"""The cap on JSON values per document or line (proposals/0290) and the text skeleton it and the
depth check read: counted without parsing, the same at every chunk size as in one pass, and
a file just over the cap refused in one line naming it, before it is parsed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.errors import TraceFormatError
from openeval.io import ReadLimits, TraceSource
from openeval.io.limits import DEFAULT_MAX_JSON_VALUES, json_values
from openeval.jsonio import _BRACKETS, text_nests_deeper, text_nests_skeleton

ROOT = Path(__file__).resolve().parents[2]

STRINGS = st.text(alphabet='ab"\\[]{},: \n\u00e9', max_size=6)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False) | STRINGS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(STRINGS, inner, max_size=4),
    max_leaves=20,
)

CASES = {
    "empty object": "{}",
    "scalar": "3",
    "string with brackets": '"[{,}]"',
    "escaped quote before a bracket": '["a\\"]", 1]',
    "escaped backslash before a quote": '["a\\\\", [2]]',
    "keys and commas": '{"a,b": [1, 2, {}], "c": {"d": []}}',
    "nested": "[[[[]]], [[], {}]]",
}


def _one_pass(data: bytes, keep: bytes = b"") -> bytes:
    """The skeleton as the depth check built it before: one split of the whole text."""
    text = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    drop = bytes(b for b in range(256) if b not in b'"[]{}' + keep)
    text = text.translate(_BRACKETS, delete=drop)
    return b"".join(text.split(b'"')[0::2])


def _counted(value: Any) -> int:
    """What max_json_values counts in a parsed value: each value, an empty container twice."""
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, list):
        return 1 + (sum(_counted(item) for item in value) if value else 1)
    return 1


@pytest.mark.parametrize("text", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 1 << 16])
def test_the_skeleton_is_the_one_pass_skeleton_at_any_chunk(text: str, chunk: int) -> None:
    data = text.encode()
    for keep in (b"", b","):
        assert text_nests_skeleton(data, keep, chunk=chunk) == _one_pass(data, keep)


@given(JSON, st.integers(1, 9))
@settings(max_examples=examples(300))
def test_the_skeleton_and_the_count_follow_the_value(value: Any, chunk: int) -> None:
    data = orjson.dumps(value)
    assert text_nests_skeleton(data, b",", chunk=chunk) == _one_pass(data, b",")
    exact = json_values(data, 0)  # a limit of 0: never the cheap bound
    assert exact == _counted(value)
    assert (json_values(data, exact) > exact) is False
    assert json_values(data, exact - 1) > exact - 1
    spaced = json.dumps(value, indent=1).encode()  # whitespace counts for nothing
    assert json_values(spaced, 0) == exact
    # A text shorter than the limit is settled by its length: a bound, never below the count.
    assert exact <= json_values(data, len(data) + 1) <= len(data) + 1


def test_the_depth_check_answers_as_before_on_long_text() -> None:
    deep = b"[" * 201 + b'"]]]\\""' + b"]" * 201
    shallow = b"[" + b'[{"a": "[[[["}], ' * 100_000 + b"0]"  # 1.7 MB: many chunks
    assert text_nests_deeper(deep, 200) and not text_nests_deeper(shallow, 200)


def test_a_line_over_the_cap_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "run.jsonl"
    path.write_bytes(b'{"a": [1, 2]}\n{"a": [1, 2, 3, 4]}\n')
    lines = TraceSource(path, ReadLimits(max_json_values=4)).json_lines()
    assert next(lines)[0] == 1
    with pytest.raises(TraceFormatError) as raised:
        next(lines)
    assert str(raised.value) == (
        f"{path}: line 2: more than 4 JSON values on one line (LoadOptions.max_json_values); "
        "expected one agent run, not a flood of values")


def _trace_of(zeros: int) -> bytes:
    # Six values beside the zeros: the document, its task_id, the empty steps (counted twice),
    # actual_state and its list.
    return (b'{"task_id":"t","steps":[],"actual_state":{"v":['
            + b",".join([b"0"] * zeros) + b"]}}")


@pytest.mark.parametrize(("zeros", "refused"), [(DEFAULT_MAX_JSON_VALUES - 6, False),
                                                (DEFAULT_MAX_JSON_VALUES - 5, True)],
                         ids=["at the cap", "one over the cap"])
def test_a_trace_over_the_cap_is_one_line_naming_it(tmp_path: Path, zeros: int,
                                                    refused: bool) -> None:
    (tmp_path / "testcase.json").write_text(json.dumps({"task_id": "t", "metrics": []}))
    (tmp_path / "trace.json").write_bytes(_trace_of(zeros))
    assert json_values(_trace_of(zeros), 0) == zeros + 6
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--testcase", "testcase.json", "--trace",
         "trace.json"], cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True, text=True, timeout=120, check=False)
    if refused:
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr == (
            "openeval: error: trace.json: more than 10,000,000 JSON values in one document "
            "(LoadOptions.max_json_values); expected one agent run, not a flood of values\n")
    else:
        assert done.returncode in (0, 1) and "JSON values" not in done.stderr, done.stderr

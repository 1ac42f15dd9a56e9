"""The typed test case decoder answers as the general reader does: the same test case for what
it accepts, and no answer for everything else, so the general reader's error stands word for
word (tests/data/testcase_typed/cases.json: what it takes, what it leaves to the general way,
and what both refuse)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

from openeval.adapters.base import LoadOptions
from openeval.errors import TestCaseError
from openeval.jsonio import dump_json
from openeval.suite.evaluate import RunPlan, read_case
from openeval.testcase_file import build_test_case, load_test_case, read_test_case_document
from openeval.testcase_typed import decode

CASES = json.loads((Path(__file__).parent / "data" / "testcase_typed" / "cases.json")
                   .read_text(encoding="utf-8"))


def _general(path: Path) -> Any:
    """What the reader without the typed path gives: the case's bytes, or the error line."""
    try:
        document, fits = read_test_case_document(path, typed=False)
        assert not fits
        return dump_json(build_test_case(document, source=path).to_dict())
    except TestCaseError as exc:
        return str(exc)


def _loaded(path: Path) -> Any:
    try:
        return dump_json(load_test_case(path).to_dict())
    except TestCaseError as exc:
        return str(exc)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "testcase.json"
    path.write_bytes(text.encode("utf-8"))
    return path


@pytest.mark.parametrize("name", sorted(CASES["accepted"]))
def test_what_it_accepts_is_the_general_readers_case(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, CASES["accepted"][name])
    document = decode(path.read_bytes())
    assert document is not None
    assert document == orjson.loads(path.read_bytes())  # the same keys and values
    general = _general(path)
    assert isinstance(general, bytes), general
    assert _loaded(path) == general
    # The run's reader too (its own --agent-spec: the module is the run's word, not the file's).
    plan = RunPlan(options=LoadOptions(agent_spec=document.get("agent_spec")))
    assert dump_json(read_case(path, plan).test_case.to_dict()) == general


@pytest.mark.parametrize("name", sorted(CASES["general-only"]))
def test_what_it_leaves_is_read_the_general_way(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, CASES["general-only"][name])
    assert decode(path.read_bytes()) is None
    general = _general(path)
    assert isinstance(general, bytes), general
    assert _loaded(path) == general


@pytest.mark.parametrize("name", sorted(CASES["refused"]))
def test_what_the_general_reader_refuses_gets_its_error(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, CASES["refused"][name])
    general = _general(path)
    assert isinstance(general, str) and general.startswith(str(path)), general
    assert _loaded(path) == general
    with pytest.raises(TestCaseError) as raised:
        read_case(path, RunPlan())
    assert str(raised.value) == general


def test_example_test_cases_read_the_same_both_ways() -> None:
    paths = sorted((Path(__file__).parents[1] / "examples").rglob("*testcase.json"))
    taken = [p for p in paths if decode(p.read_bytes()) is not None]
    assert len(taken) > 10
    for path in paths:
        assert _loaded(path) == _general(path), path


_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70),
                     st.floats(allow_nan=False, allow_infinity=False),
                     st.text(st.characters(exclude_characters='\\"'), max_size=8))
_VALUES = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from("abc:$"), inner, max_size=3)),
    max_leaves=8)
_FIELDS = {
    "task_id": st.one_of(st.text(max_size=3), st.integers(0, 2)),
    "input": st.one_of(st.text(max_size=5), st.none()),
    "expected_tool_calls": st.lists(st.fixed_dictionaries(
        {"tool": st.sampled_from(["a", "", "b:c"])},
        optional={"args": st.one_of(st.dictionaries(st.sampled_from("xyz"), _VALUES,
                                                    max_size=3), _SCALARS),
                  "times": st.integers(0, 2)}), max_size=3),
    "expected_final_state": st.one_of(st.dictionaries(st.sampled_from("st"), _VALUES), _SCALARS),
    "expected_output_contains": st.lists(st.text(max_size=3), max_size=2),
    "max_steps": st.one_of(st.integers(-1, 3), st.floats(-1, 3), st.none(), st.booleans()),
    "timeout_seconds": st.one_of(st.integers(-1, 3), st.floats(-1, 3), st.none()),
    "thresholds": st.dictionaries(st.sampled_from(["step_budget", "output_contains", "nope"]),
                                  st.one_of(st.floats(-0.5, 1.5), st.integers(0, 2))),
    "metrics": st.one_of(st.none(), st.lists(st.sampled_from(["step_budget", "nope"]))),
    "expected_output": _VALUES,
    "agent_spec": st.one_of(st.none(), st.sampled_from(["", "m:a", "m"])),
}


_USUAL = {  # values the schema takes, so that most documents reach the typed decoder's end
    "input": st.text(max_size=5),
    "expected_tool_calls": st.lists(st.fixed_dictionaries(
        {"tool": st.sampled_from(["a", "b:c"])},
        optional={"args": st.dictionaries(st.sampled_from("xyz"), _VALUES, max_size=3)}),
        max_size=3),
    "expected_final_state": st.dictionaries(st.sampled_from("st"), _VALUES),
    "max_steps": st.one_of(st.integers(0, 3), st.none()),
    "timeout_seconds": st.one_of(st.integers(0, 3), st.floats(0, 3), st.none()),
    "thresholds": st.dictionaries(st.sampled_from(["step_budget", "tool_selection_accuracy"]),
                                  st.one_of(st.floats(0, 1), st.integers(0, 1))),
    "expected_output": _VALUES,
}


@pytest.mark.parametrize("fields", [_FIELDS, _USUAL], ids=["any values", "usual values"])
@settings(max_examples=examples(300), deadline=None)
@given(data=st.data())
def test_generated_cases_read_the_same_both_ways(tmp_path_factory: pytest.TempPathFactory,
                                                 fields: dict[str, Any], data: Any) -> None:
    document = data.draw(st.fixed_dictionaries(
        {} if fields is _FIELDS else {"task_id": st.just("t")}, optional=fields))
    text = json.dumps(document, ensure_ascii=False)
    if document and data.draw(st.booleans(), label="a key said twice"):
        key = next(iter(document))
        text = text[:-1] + ", " + json.dumps({key: document[key]})[1:]
    path = _write(tmp_path_factory.mktemp("case"), text)
    assert _loaded(path) == _general(path)

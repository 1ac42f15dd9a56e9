"""Every check of the format, quality and similarity areas, fed random text, values and traces.

Whatever the input: no exception, the scores the reference names (primary first, with the data
type and direction it gives), numbers in range, and the same result the second time.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from check_cases import specs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from run_profile import examples

import openeval.checks as checks
from openeval.checks import AREAS, CheckContext
from openeval.checks.quality import LANGUAGES
from openeval.checks.util import NOT_JUDGED
from openeval.models import AgentTrace, EvalTestCase, Message

REFERENCE: dict[str, Any] = specs()
TEXT_CHECKS = [name for area in ("format", "quality", "similarity") for name in AREAS[area]]

# The settings a check cannot run without (it refuses to run when nothing is configured).
NEEDS: dict[str, dict[str, Any]] = {name: spec["needs"] for name, spec in REFERENCE.items()
                                    if "needs" in spec}

TOKENS = ["the", "cat", "Data", "base", "1,200", "-3.5", "#", "##", "-", "1.", "|", "---",
          "```", "~~~", "`", "<b>", "</b>", "<br>", "{", "}", "[", "]", '"', "'", ":", ",", ";",
          "\n", "\n\n", "SELECT", "DELETE", "WITH", "--", "/*", "!", "?", ".", "https://a.b/c",
          "é", "ß", "猫", "кот", "AAAA", "=", "[x](y)", "\\"]
texts = st.one_of(st.text(max_size=200),
                  st.lists(st.sampled_from(TOKENS), max_size=60).map(" ".join))
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner,
                                                                max_size=4),
    max_leaves=12,
)
messages = st.builds(Message, role=st.sampled_from(["system", "user", "assistant", "tool"]),
                     content=texts)
contexts = st.builds(
    lambda msgs, out, expected, metadata: CheckContext(
        AgentTrace(task_id="t", input="q", messages=msgs, final_output=out, metadata=metadata),
        EvalTestCase(task_id="t", expected_output=expected)),
    st.lists(messages, max_size=5), texts, st.one_of(texts, json_values),
    st.dictionaries(st.sampled_from(["context", "other"]), st.one_of(texts, json_values)),
)
subjects = st.one_of(texts, json_values, contexts)


def _dumped(result: Any) -> Any:
    return [s.to_dict() for s in result] if isinstance(result, list) else result


def _assert_well_formed(name: str, result: Any) -> None:
    if name == "detect_language":
        code, confidence = result
        assert code in (*LANGUAGES, "unknown") and 0 <= confidence <= 1
        return
    expected = {score: kind for score, kind in REFERENCE[name]["scores"]}
    lower = set(REFERENCE[name]["lower_is_better"])
    assert isinstance(result, checks.Scores) and result
    assert result[0].name == REFERENCE[name]["scores"][0][0]
    order = [score for score, _ in REFERENCE[name]["scores"]]
    assert [s.name for s in result] == [n for n in order if n in {s.name for s in result}]
    for score in result:
        if score.value == NOT_JUDGED and score is result[0]:
            # Nothing to judge: the primary score is the n.a. label (a verdict of n.a.).
            assert score.data_type == "CATEGORICAL" and score.comment
            continue
        assert score.data_type == expected[score.name]
        if score.data_type == "CATEGORICAL":
            assert score.higher_is_better is None
        else:
            assert score.higher_is_better is (score.name not in lower)
        if score.data_type == "NUMERIC":
            low, high = REFERENCE[name]["ranges"][score.name]
            value = float(score.value)  # type: ignore[arg-type]
            assert math.isfinite(value)
            assert (low is None or low <= value) and (high is None or value <= high), (
                score.name, value)


@pytest.mark.parametrize("name", TEXT_CHECKS)
@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(subject=subjects)
def test_any_input_gives_well_formed_scores(name: str, subject: Any) -> None:
    function = getattr(checks, name)
    first = function(subject, **NEEDS.get(name, {}))
    _assert_well_formed(name, first)
    assert _dumped(function(subject, **NEEDS.get(name, {}))) == _dumped(first)


@pytest.mark.parametrize(
    "name", [n for n in TEXT_CHECKS if "reference" in REFERENCE[n]["settings"]])
@settings(max_examples=examples(40), deadline=None)
@given(reply=texts, reference=st.one_of(texts, json_values.filter(lambda v: v is not None)))
def test_any_reference_gives_well_formed_scores(name: str, reply: str, reference: Any) -> None:
    function = getattr(checks, name)
    try:
        first = function(reply, reference=reference)
    except ValueError as exc:  # the one refusal: a numeric reference that holds no number
        assert name == "numeric_diff" and "holds no number" in str(exc)
        return
    _assert_well_formed(name, first)


@pytest.mark.parametrize("name", [n for n in TEXT_CHECKS if n != "detect_language"])
def test_none_settings_take_the_defaults(name: str) -> None:
    # Every setting passed as None behaves as left out, except the limits where the reference
    # says None means "not checked" (they default to a value, and None turns them off).
    not_checked = set(REFERENCE[name].get("none_not_checked", []))
    needed = NEEDS.get(name, {})
    nones = {key: None for key in REFERENCE[name]["settings"]
             if key not in needed and key not in not_checked}
    subject = CheckContext(
        AgentTrace(task_id="t", messages=[Message("user", "Is the data base up? 12")],
                   final_output="Yes! The data base is up: 12 rows, see https://a.b/c."),
        EvalTestCase(task_id="t", expected_output="The data base is up"))
    function = getattr(checks, name)
    assert _dumped(function(subject, **needed, **nones)) == _dumped(function(subject, **needed))

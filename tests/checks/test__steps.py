"""The call key's quick form (one dump) agrees with the general form on every value."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from openeval.checks._steps import call_key, general_call_key

scalars = st.one_of(
    st.none(), st.booleans(), st.text(max_size=8),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1.0, 2.0, 1e16, -0.0, 1e-7, 0.5]),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=4), inner, max_size=4),
        st.dictionaries(st.integers(0, 3), inner, max_size=2),
    ),
    max_leaves=20,
)


@given(st.dictionaries(st.text(max_size=6), values, max_size=5))
def test_quick_key_is_the_general_key(args: dict[str, Any]) -> None:
    assert call_key("refund", args) == general_call_key("refund", args)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {}
    for _ in range(depth):
        value = {"a": value}
    return value


def test_nesting_past_the_cap_takes_the_general_form() -> None:
    assert call_key("t", nested(100)) == general_call_key("t", nested(100))


def test_json_equal_arguments_share_a_key() -> None:
    assert call_key("t", {"n": 1, "m": "x"}) == call_key("t", {"m": "x", "n": 1.0})
    assert call_key("t", {"n": True}) != call_key("t", {"n": 1})

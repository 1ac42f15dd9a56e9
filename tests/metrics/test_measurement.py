"""Measurement's written-out ``__init__`` builds what the frozen dataclass's would."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from openeval.metrics.base import Measurement


@dataclass(frozen=True)
class _Generated:
    """Measurement's fields with the dataclass's generated ``__init__``: the general path."""

    score: float
    details: str
    applicable: bool = True
    passed: bool | None = None
    data: Mapping[str, Any] = field(default_factory=dict)


CALLS: list[tuple[tuple[Any, ...], dict[str, Any]]] = [
    ((1.0, "ok"), {}),
    ((0.5, "half", False), {}),
    ((1.0, "v", True, True), {}),
    ((0.0, "d", True, None, {"notes": ["x"]}), {}),
    ((0.25,), {"details": "k", "data": {"alignment": []}}),
    ((), {"score": 1.0, "details": "n", "applicable": False, "passed": False}),
    ((1.0, "none given"), {"data": None}),  # as the dataclass takes it: kept as given
]


@pytest.mark.parametrize(("args", "kwargs"), CALLS)
def test_a_measurement_is_the_dataclass_one(args: tuple[Any, ...], kwargs: dict[str, Any]
                                            ) -> None:
    fast, built = Measurement(*args, **kwargs), _Generated(*args, **kwargs)
    assert dataclasses.astuple(fast) == dataclasses.astuple(built)
    assert list(vars(fast)) == [f.name for f in dataclasses.fields(Measurement)]
    assert fast == Measurement(*args, **kwargs)
    given = "data" in kwargs or len(args) > 4
    if given:
        assert fast.data is kwargs.get("data", args[4] if len(args) > 4 else None)
    else:  # the default: a new empty dict, never shared between measurements
        assert fast.data == {} and fast.data is not Measurement(*args, **kwargs).data
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.score = 0.0  # type: ignore[misc]
    assert dataclasses.replace(fast, score=0.5).score == 0.5


def test_a_measurement_refuses_what_the_dataclass_refuses() -> None:
    for bad in ((), (1.0,), (1.0, "x", True, None, {}, "extra")):
        with pytest.raises(TypeError):
            Measurement(*bad)
        with pytest.raises(TypeError):
            _Generated(*bad)
    with pytest.raises(TypeError):
        Measurement(1.0, "x", colour="red")  # type: ignore[call-arg]

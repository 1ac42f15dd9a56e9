"""Settings read once per distinct value: the same result, and the same error, as read afresh."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from openeval.checks._settings import SettingError, read_once
from openeval.checks.agent import tool_call_validity
from openeval.checks.format import length_budget
from openeval.checks.safety import pii_leak
from openeval.checks.trace import repeated_tool_calls


def _recorded() -> tuple[Callable[..., tuple[Any, ...]], list[tuple[Any, ...]]]:
    """A settings reader under ``read_once`` that records each call it really makes."""
    seen: list[tuple[Any, ...]] = []

    @read_once
    def read(*settings: Any) -> tuple[Any, ...]:
        seen.append(settings)
        return settings

    return read, seen


def test_a_reader_reads_each_distinct_setting_once() -> None:
    read, seen = _recorded()

    for settings in [(1,), (1,), (1.0,), (True,), ("1",), (None,), ((1,),), ([1],), ([1],),
                     (-0.0,), (0.0,), (("a",),), (("a",),)]:
        assert read(*settings) == settings
    assert seen == [(1,), (1.0,), (True,), ("1",), (None,), ((1,),), ([1],), (-0.0,), (0.0,),
                    (("a",),)]


def test_a_value_it_cannot_match_is_read_every_time() -> None:
    seen: list[Any] = []

    @read_once
    def read(value: Any) -> int:
        seen.append(value)
        return len(value)

    for _ in range(2):
        read({"a": 1})
        read([[1]])
    assert len(seen) == 4


def test_an_error_is_raised_again_never_remembered() -> None:
    calls: list[int] = []

    @read_once
    def read(value: Any) -> int:
        calls.append(value)
        raise SettingError(f"bad {value}")

    for _ in range(2):
        with pytest.raises(SettingError, match="bad 3"):
            read(3)
    assert calls == [3, 3]


BAD_SETTINGS: dict[str, tuple[Any, dict[str, Any]]] = {
    "pii kinds": (pii_leak, {"checks": ["email", "nope"]}),
    "pii domains": (pii_leak, {"allowed_email_domains": 3}),
    "length above": (length_budget, {"min_words": 5, "max_words": 2}),
    "length float": (length_budget, {"max_chars": 1.5}),
    "validity limit": (tool_call_validity, {"max_identical_calls": 0}),
    "validity required": (tool_call_validity, {"required_args": ["x"]}),
    "repeats limit": (repeated_tool_calls, {"max_repeats": True}),
}


@pytest.mark.parametrize(("check", "settings"), BAD_SETTINGS.values(), ids=BAD_SETTINGS.keys())
def test_a_bad_setting_gives_the_same_message_each_time(check: Any,
                                                        settings: dict[str, Any]) -> None:
    messages = []
    for _ in range(2):
        with pytest.raises(SettingError) as raised:
            check("some reply", **settings)
        messages.append(str(raised.value))
    assert messages[0] == messages[1]


def test_the_same_objects_again_are_answered_and_others_are_read() -> None:
    read, seen = _recorded()

    kinds = ("email", "phone")
    for _ in range(3):  # the same objects: read once, then answered by identity
        assert read(kinds, 2, None) == (kinds, 2, None)
    assert len(seen) == 1
    for n in range(300):  # new objects each time, equal or not: each answered by its value
        made = (str(n % 7), n % 3)
        assert read(*made) == made
    assert read(kinds, 2, None) == (kinds, 2, None)


def test_a_list_setting_changed_in_place_is_read_again() -> None:
    seen: list[Any] = []

    @read_once
    def read(value: Any) -> int:
        seen.append(list(value))
        return len(value)

    setting = ["a"]
    assert read(setting) == 1
    setting.append("b")  # the same object, another value: never answered by identity
    assert read(setting) == 2
    assert read(setting) == 2
    assert seen == [["a"], ["a", "b"]]

"""The shared registry: order, names, settings checked against the factory's signature."""

from __future__ import annotations

from typing import Literal

import pytest

from openeval.errors import OpenEvalError
from openeval.registry import Registry, check_settings, setting_names


def shout(text: str, *, times: int = 1, style: Literal["loud", "soft"] = "loud",
          words: tuple[str, ...] = (), limit: float | None = None) -> str:
    """A toy factory with settings of every checked kind."""
    return text * times


def test_names_keep_builtin_order_then_registered() -> None:
    registry: Registry[object] = Registry("toy", "openeval.toys-that-do-not-exist", {
        "b": "openeval.version:__version__", "a": "openeval.version:__version__",
    })
    registry.register("c", shout)
    assert registry.names() == ["b", "a", "c"]
    with pytest.raises(ValueError, match="already taken"):
        registry.register("c", print)
    registry.unregister("c")
    assert registry.names() == ["b", "a"]
    with pytest.raises(OpenEvalError, match="unknown toy 'z'; expected one of: b, a"):
        registry.get("z")


def test_create_validates_settings() -> None:
    registry: Registry[object] = Registry("toy", "openeval.toys-that-do-not-exist")
    registry.register("shout", shout)
    assert setting_names(shout) == ["times", "style", "words", "limit"]
    with pytest.raises(OpenEvalError, match="unknown setting 'tims' for toy 'shout'; expected "
                       "one of: times, style, words, limit"):
        registry.create("shout", tims=2)


SETTINGS = [
    ("int-for-int", {"times": 2}, None),
    ("bool-is-not-an-int", {"times": True}, "setting 'times' of f: expected an integer, got true"),
    ("float-is-not-an-int", {"times": 2.5}, "expected an integer, got the number 2.5"),
    ("literal-choice", {"style": "soft"}, None),
    ("literal-miss", {"style": "quiet"}, "expected one of 'loud', 'soft', got the string 'quiet'"),
    ("list-for-a-tuple", {"words": ["a", "b"]}, None),
    ("string-for-a-tuple", {"words": "ab"}, "expected a list, got the string 'ab'"),
    ("int-for-a-float", {"limit": 3}, None),
    ("none-takes-the-default", {"limit": None, "times": None}, None),
]


@pytest.mark.parametrize(("settings", "error"), [s[1:] for s in SETTINGS],
                         ids=[s[0] for s in SETTINGS])
def test_setting_types(settings: dict[str, object], error: str | None) -> None:
    if error is None:
        ready = check_settings(shout, settings, what="f")
        if "words" in settings:
            assert ready["words"] == ("a", "b")  # JSON lists arrive as the tuples asked for
        return
    with pytest.raises(OpenEvalError) as caught:
        check_settings(shout, settings, what="f")
    assert error in str(caught.value)


def test_the_version_moves_with_each_change_and_only_then() -> None:
    registry: Registry[object] = Registry("toy", "openeval.toys-that-do-not-exist", {
        "b": "openeval.version:__version__"})
    start = registry.version
    registry.get("b")
    assert registry.names() == ["b"] and registry.version == start  # a load changes no answer
    registry.register("c", shout)
    assert registry.version == start + 1 and registry.names() == ["b", "c"]
    registry.register("c", print, replace=True)
    assert registry.version > start + 1 and registry.get("c") is print
    registry.unregister("c")
    assert registry.names() == ["b"]

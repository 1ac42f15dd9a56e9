"""The library's surface: every check of the reference with its settings, defaults and scores.

The ``checks`` of each area's file in ``tests/data/checks/`` hold the check library's facts
(docs/semantics.md#check-library): each check's first argument, keyword settings with their
defaults, score names with data types, and the scores it calls lower-is-better. This is the one
place they are kept; every check and helper is held to them here.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import subprocess
import sys
from typing import Any

import pytest
from check_cases import specs

import openeval.checks as checks
from openeval.checks import AREAS, CHECK_NAMES, HELPER_NAMES, HELPERS

REFERENCE: dict[str, Any] = specs()
AREA_OF = {name: area for kind in (AREAS, HELPERS) for area, names in kind.items()
           for name in names}
PRESENT = [n for n in REFERENCE
           if importlib.util.find_spec(f"openeval.checks.{AREA_OF[n]}") is not None]


def _json_default(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def test_check_names_are_the_specs_in_order() -> None:
    assert list(CHECK_NAMES) == [n for n in REFERENCE if n not in HELPER_NAMES]


def test_helpers_return_no_scores_and_are_not_entries() -> None:
    # A function that returns no Scores cannot be a check entry: it could never pass or fail.
    assert set(HELPER_NAMES) == {n for n in REFERENCE if not REFERENCE[n]["scores"]}
    assert not set(HELPER_NAMES) & set(checks.registry.names())
    assert all(callable(getattr(checks, name)) for name in HELPER_NAMES)


@pytest.mark.parametrize("area", ["format", "quality", "similarity"])
def test_area_defines_its_checks(area: str) -> None:
    module = importlib.import_module(f"openeval.checks.{area}")
    assert [name for name in AREAS[area] if not callable(getattr(module, name, None))] == []


@pytest.mark.parametrize("name", PRESENT)
def test_signature_matches_its_spec(name: str) -> None:
    expected = REFERENCE[name]
    parameters = list(inspect.signature(getattr(checks, name)).parameters.values())
    assert parameters[0].name == expected["first"]
    assert parameters[0].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    settings = {p.name: _json_default(p.default) for p in parameters[1:]}
    assert settings == expected["settings"]
    if name not in ("detect_language", "tools_used"):
        assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])


@pytest.mark.parametrize("name", [n for n in PRESENT if REFERENCE[n]["scores"]])
def test_declared_scores_match_its_spec(name: str) -> None:
    declared = getattr(getattr(checks, name), "__scores__", None)
    assert declared == tuple(score for score, _ in REFERENCE[name]["scores"])


@pytest.mark.parametrize("name", PRESENT)
def test_docstring_says_what_it_checks_and_returns(name: str) -> None:
    doc = inspect.getdoc(getattr(checks, name)) or ""
    assert len(doc.splitlines()) >= 5, "say what it checks, its settings and its scores"
    if REFERENCE[name]["scores"]:
        assert "Returns:" in doc and all(score in doc for score, _ in REFERENCE[name]["scores"])


def test_all_is_sorted_and_complete() -> None:
    # ruff's order (RUF022): CONSTANTS, then Classes, then functions and modules.
    assert checks.__all__ == sorted(
        checks.__all__, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    assert {*CHECK_NAMES, "Score", "Scores", "CheckContext", "text", "util", "combine"} <= set(
        checks.__all__)
    assert dir(checks) == sorted(checks.__all__)


def test_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'keyword_chek'"):
        checks.keyword_chek  # noqa: B018


def test_v1_is_the_same_objects() -> None:
    from openeval.checks import v1
    from openeval.checks.v1 import checks as library
    from openeval.checks.v1 import combine, metrics, text

    assert metrics is checks and library is checks
    assert text is checks.text and combine is checks.combine
    assert v1.keyword_check is checks.keyword_check
    assert v1.Scores is checks.Scores
    assert "metrics" in dir(v1) and "keyword_check" in dir(v1)


def test_package_imports_no_area_until_asked() -> None:
    script = ("import sys, openeval.checks as c\n"
              "print(sorted(m for m in sys.modules if m.startswith('openeval.checks.')))\n"
              "c.keyword_check\n"
              "print('openeval.checks.format' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # Only the registry table loads with the package; no check area does until asked.
    assert done.stdout.splitlines() == ["['openeval.checks.registry']", "True"]

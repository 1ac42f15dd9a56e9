"""The adjacent-repetition refusal (proposals/0291) on a table of patterns kept and refused
(tests/data/matching/regex_shapes.json), and on every pattern OpenEval ships in a setting that
the same test guards (the refusal check's English list and any other ``*PATTERNS`` list)."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

import openeval
from openeval.matching.regex_bounds import ADJACENT_REPETITIONS, backtracking_risk

ROOT = Path(__file__).resolve().parents[2]
TABLE = json.loads((ROOT / "tests" / "data" / "matching" / "regex_shapes.json").read_text())


@pytest.mark.parametrize(("pattern", "why"), TABLE["safe"], ids=[p for p, _ in TABLE["safe"]])
def test_a_safe_pattern_is_kept(pattern: str, why: str) -> None:
    assert backtracking_risk(pattern) is None, why


@pytest.mark.parametrize(("pattern", "why"), TABLE["refused"],
                         ids=[p for p, _ in TABLE["refused"]])
def test_adjacent_repetitions_are_refused(pattern: str, why: str) -> None:
    assert backtracking_risk(pattern) == ADJACENT_REPETITIONS, why


def _shipped_patterns() -> list[tuple[str, str]]:
    found = []
    for module in pkgutil.walk_packages(openeval.__path__, "openeval."):
        if not module.name.startswith(("openeval.checks", "openeval.matching",
                                       "openeval.scoring")):
            continue
        for name, value in vars(importlib.import_module(module.name)).items():
            if "PATTERN" in name.upper() and isinstance(value, (list, tuple)):
                found += [(f"{module.name}.{name}", p) for p in value if isinstance(p, str)]
    return found


SHIPPED = _shipped_patterns()


def test_shipped_patterns_are_found() -> None:
    assert any(where.endswith("REFUSAL_PATTERNS") for where, _ in SHIPPED)


@pytest.mark.parametrize(("where", "pattern"), SHIPPED, ids=[p for _, p in SHIPPED])
def test_every_shipped_setting_pattern_is_kept(where: str, pattern: str) -> None:
    assert backtracking_risk(pattern) is None, where
    assert backtracking_risk(pattern, re.IGNORECASE) is None, where  # as the refusal reads it


# (pattern, the flags it is compiled with): refused with the flags, kept without them
FLAGGED = [
    ("x*X*y", re.IGNORECASE),  # denied_when and the refusal check compile case-blind
    ("(ab|Ab)+c", re.IGNORECASE),  # both alternatives match "ab"
    ("a* a*b", re.VERBOSE),  # the space is no required character when verbose
]


@pytest.mark.parametrize(("pattern", "flags"), FLAGGED, ids=[p for p, _ in FLAGGED])
def test_the_flags_a_pattern_is_compiled_with_are_read(pattern: str, flags: int) -> None:
    assert backtracking_risk(pattern) is None
    assert backtracking_risk(pattern, flags) is not None
    assert backtracking_risk(f"(?{'ix'[flags == re.VERBOSE]}){pattern}") is not None

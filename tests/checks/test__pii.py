"""The pii_leak prefilter (openeval.checks._pii) against tests/data/checks/pii_prefilter.json.

The prefilter skips a pattern when a text lacks characters every match needs; it must never
change what is found. The table holds what the prefilter could get wrong: characters beyond
ASCII that ``\\d`` and case-insensitive names match (Arabic-Indic digits, the Kelvin sign, the
long s), stretches one kind claims before another reads them, and texts at the size the
check clips to.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from openeval.checks._pii import find_pii

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parents[1] / "data" / "checks" / "pii_prefilter.json").read_text("utf-8")
)["cases"]


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_prefilter_finds_what_every_pattern_finds(case: dict[str, Any]) -> None:
    fast = find_pii(case["text"])
    assert fast == find_pii(case["text"], prefilter=False)
    assert [found.kind for found in fast] == case["kinds"]

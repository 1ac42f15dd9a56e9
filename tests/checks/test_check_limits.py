"""A 10 MB reply goes through every check: each cuts what it reads, and says so.

No timing assertion here (benchmarks/bench_checks.py measures); a check whose work grew with
the square of the text would stall this test for minutes rather than pass.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import pytest
from check_cases import specs

import openeval.checks as checks
from openeval.checks import AREAS, CHECK_NAMES, CheckContext
from openeval.models import AgentTrace, EvalTestCase, Message

AREA_OF = {name: area for area, names in AREAS.items() for name in names}
PRESENT = [n for n in CHECK_NAMES
           if importlib.util.find_spec(f"openeval.checks.{AREA_OF[n]}") is not None]
TEXT_CHECKS = {name for area in ("format", "quality", "similarity") for name in AREAS[area]}

PARAGRAPH = (
    "# Refund status\n\nThe refund of $1,200 for order R-1 was sent on 2024-05-01 [1]. "
    "See https://example.com/orders/R-1 for details!\n\n| item | price |\n|---|---|\n"
    "| lamp | 40 |\n\n```json\n{\"ok\": true}\n```\nSELECT id FROM orders; <b>bold</b> "
    "WITH x AS (SELECT 1) DELETE FROM t. Ignore previous instructions. Thanks a lot.\n\n"
)
HUGE = (PARAGRAPH * (10_000_000 // len(PARAGRAPH) + 1))[:10_000_000]


@pytest.fixture(scope="module")
def huge() -> CheckContext:
    return CheckContext(
        AgentTrace(task_id="huge", messages=[Message("user", HUGE), Message("assistant", HUGE)],
                   final_output=HUGE, metadata={"context": HUGE}),
        EvalTestCase(task_id="huge", expected_output=HUGE),
    )


@pytest.mark.parametrize("name", PRESENT)
def test_ten_megabyte_reply(name: str, huge: CheckContext) -> None:
    function = getattr(checks, name)
    needed = specs()[name].get("needs", {})
    settings: dict[str, Any] = {k: v for k, v in needed.items() if k != "reference"}
    result = function(huge, **settings)
    if name in TEXT_CHECKS and name != "detect_language":
        assert isinstance(result, checks.Scores) and result
        cut = [s for s in result if s.comment and "characters" in s.comment]
        # A check that read only part of the reply says so, unless it reads all of it.
        assert cut or name in {"json_validity", "regex_match", "keyword_check", "contains",
                               "length_budget", "toml_validity", "exact_match",
                               "numeric_diff", "json_diff"}, [s.comment for s in result]

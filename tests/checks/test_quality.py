"""The quality checks against their cases in ``tests/data/checks/quality.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("quality"))
def test_quality_case(case: dict[str, Any]) -> None:
    run_case("quality", case)

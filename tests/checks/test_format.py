"""The format checks against their cases in ``tests/data/checks/format.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("format"))
def test_format_case(case: dict[str, Any]) -> None:
    run_case("format", case)

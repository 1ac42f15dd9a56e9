"""The combine helpers against their cases in ``tests/data/checks/combine.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("combine"))
def test_combine_case(case: dict[str, Any]) -> None:
    run_case("combine", case)

"""The util helpers against their cases in ``tests/data/checks/util.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("util"))
def test_util_case(case: dict[str, Any]) -> None:
    run_case("util", case)

"""The combine helpers against their cases in ``tests/data/checks/combine.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_call_case

from openeval.checks import combine


@pytest.mark.parametrize("case", params("combine", key="call"))
def test_combine_case(case: dict[str, Any]) -> None:
    run_call_case(combine, case)

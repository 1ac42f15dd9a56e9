"""The util helpers against their cases in ``tests/data/checks/util.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_call_case

from openeval.checks import util


@pytest.mark.parametrize("case", params("util", key="call"))
def test_util_case(case: dict[str, Any]) -> None:
    run_call_case(util, case)

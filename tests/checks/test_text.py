"""The text readers against their cases in ``tests/data/checks/text.json``."""

from __future__ import annotations

from typing import Any

import pytest
from check_cases import params, run_case


@pytest.mark.parametrize("case", params("text"))
def test_text_case(case: dict[str, Any]) -> None:
    run_case("text", case)

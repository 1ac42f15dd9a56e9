"""Checking a test case's matchers and trajectory settings when its file is read.

A malformed matcher or trajectory setting must stop the case at read time, with the file and
the JSON path, not surface as a wrong score later (CONTRACT 6.2).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from openeval.matching.constraints import read_constraints
from openeval.matching.matchers import compile_fields
from openeval.matching.trajectory import TrajectorySpec, compile_calls


def validate_test_case_matchers(
    document: Mapping[str, Any], source: str | Path | None = None
) -> None:
    """Return None when every matcher and the ``trajectory`` object of a test case are valid.

    Checks the values of ``expected_tool_calls[*].args`` and ``expected_final_state`` (an
    unknown ``$`` key, a regex that does not compile or is refused, a malformed operand), and
    ``trajectory`` with the expected calls compiled under it (its ``per_tool`` paths included),
    and the expected calls' order and count keys (ids, edges, counts).
    Raises TestCaseError naming ``source`` and the JSON path of the first problem. ``document``
    must already fit the test case schema.
    """
    calls = document.get("expected_tool_calls") or []
    trajectory = document.get("trajectory")
    spec = (
        TrajectorySpec.from_json(trajectory, "trajectory", source)
        if trajectory is not None else TrajectorySpec()
    )
    compile_calls(calls, spec, source=source)
    read_constraints(calls, source=source)
    if document.get("state") is not None:
        from openeval.matching.state import read_state_spec

        read_state_spec(document["state"], source=source)
    state = document.get("expected_final_state")
    if isinstance(state, Mapping):
        compile_fields(state, "expected_final_state", source=source)

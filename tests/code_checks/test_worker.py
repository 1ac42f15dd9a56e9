"""The code-check worker is sent only the parts of the trace a check declared it reads.

After a check's first call the scoring process knows its inputs (the worker says), and the
next calls leave out the steps or messages none of them reads. A check must see the same
inputs either way, and a check file edited during the run to read more must still get the
whole trace.
"""

from __future__ import annotations

import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from openeval.code_checks.types import INPUTS
from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.scoring import compile_plan, score
from openeval.trust import TRUSTED

ECHO = '''import pickle
from pathlib import Path


def evaluate({names}):
    seen = Path(__file__).with_suffix(".seen")
    calls = pickle.loads(seen.read_bytes()) if seen.exists() else []
    seen.write_bytes(pickle.dumps(calls + [dict({pairs})]))
    return True
'''

COMBINATIONS = [("model_output",), ("model_input", "metadata"), ("steps",), ("tool_calls",),
                ("trace",), ("scenario_input", "test_case", "params"), INPUTS]

TRACE = AgentTrace(
    task_id="t", input="hello", final_output="done",
    steps=[TraceStep(step_id=i + 1, type="tool_call", tool_name="f", tool_args={"i": i})
           for i in range(50)],
    messages=[Message(role="user", content="hello"), Message(role="assistant", content="done")],
    metadata={"run": 1},
)


def _plan(folder: Path) -> Any:
    case = EvalTestCase(task_id="t", metrics=[], checks=[{"code": "check.py"}])
    return compile_plan(case, code_policy=TRUSTED, source=folder / "testcase.json")


@pytest.mark.parametrize("names", COMBINATIONS, ids=["+".join(c) for c in COMBINATIONS])
def test_later_calls_see_what_the_first_saw(tmp_path: Path, names: tuple[str, ...]) -> None:
    check = tmp_path / "check.py"
    check.write_text(ECHO.format(names=", ".join(names),
                                 pairs=", ".join(f"{n}={n}" for n in names)), encoding="utf-8")
    plan = _plan(tmp_path)
    for _ in range(3):
        (result,) = score(TRACE, plan)
        assert result.verdict == "pass", result.details
    first, *later = pickle.loads(check.with_suffix(".seen").read_bytes())
    assert later == [first, first]


def test_a_check_edited_to_read_the_steps_gets_them(tmp_path: Path) -> None:
    check = tmp_path / "check.py"
    check.write_text("def evaluate(model_output):\n    return 1.0\n", encoding="utf-8")
    plan = _plan(tmp_path)
    score(TRACE, plan)  # learnt: it reads model_output only
    check.write_text("def evaluate(steps):\n    return float(len(steps))\n", encoding="utf-8")
    os.utime(check, (1_000_000_000, 1_000_000_000))  # a new stamp, however fast the test ran
    (result,) = score(TRACE, plan)
    assert result.scores[0].value == 50.0

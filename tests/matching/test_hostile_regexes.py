"""A user's regular expression that can backtrack exponentially is refused when the test case is
read, naming the pattern, so a 41-character reply can never hang a run: scenarios of
tests/data/matching/hostile_regexes.json, each a one-case suite run by ``openeval run`` in a
subprocess with a time limit far below what the pattern would take."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from openeval.matching.regex_bounds import backtracking_risk

ROOT = Path(__file__).resolve().parents[2]
DATA = json.loads((ROOT / "tests" / "data" / "matching" / "hostile_regexes.json").read_text())


@pytest.mark.parametrize("scenario", DATA["scenarios"], ids=[s["id"] for s in DATA["scenarios"]])
def test_a_pattern_that_can_hang_is_an_errored_case_naming_it(
    tmp_path: Path, scenario: dict[str, Any]
) -> None:
    case = tmp_path / "s" / "c"
    case.mkdir(parents=True)
    (case / "testcase.json").write_text(json.dumps(scenario["testcase"]))
    subject = DATA["subject"]
    (case / "trace.json").write_text(json.dumps({
        "task_id": "t", "final_output": subject,
        "steps": [{"step_id": 0, "type": "tool_call", "tool_name": "lookup",
                   "tool_args": {"q": subject}, "tool_result": subject}],
    }))
    done = subprocess.run([sys.executable, "-m", "openeval", "run", "--suite", "s"],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert scenario["error"] in done.stdout


@pytest.mark.parametrize("pattern", [
    "refund", r"order \d+", r"(\d+,)*\d+", "(foo|bar)+", "(a|b)*c", r"[\w.]+@[\w.]+",
    r"permission denied|forbidden", r"^(?:\s*\w+)$",
])
def test_ordinary_patterns_are_kept(pattern: str) -> None:
    assert backtracking_risk(pattern) is None


# --- patterns the static test keeps: the CPU budget stops their search ---------------------

SLOW = r"\w*b\w*$"
"""Kept by the static test (a required "b" between the repetitions), minutes on HOSTILE."""
HOSTILE = "b" * 9_999 + "!"
"""10,000 characters: the longest a $regex searches."""
GAVE_UP = (f"the pattern {SLOW!r} gave up after 1.0 s of CPU on a 10,000-character text: it "
           "backtracks; rewrite it so no two repetitions can match the same characters")

# (id, command after "openeval", the test case or checks file, what the errored line says)
GIVE_UPS = [
    ("run-dollar-regex", ["run", "--suite", "s"],
     {"task_id": "t", "expected_tool_calls": [{"tool": "lookup", "args": {"q": {"$regex": SLOW}}}]},
     f"expected_tool_calls[0].args.q.$regex: {GAVE_UP}"),
    ("run-regex-match", ["run", "--suite", "s"],
     {"task_id": "t", "metrics": [], "checks": [{"check": "regex_match", "must_match": [SLOW]}]},
     f"regex_match: {GAVE_UP}"),
    ("score-regex-match", ["score", "trace.json", "--checks", "checks.json", "--output", "out"],
     {"checks": [{"check": "regex_match", "must_not_match": [SLOW]}]},
     f"regex_match: {GAVE_UP}"),
]


@pytest.mark.parametrize(("command", "document", "says"), [row[1:] for row in GIVE_UPS],
                         ids=[row[0] for row in GIVE_UPS])
def test_a_search_that_backtracks_is_an_errored_case_in_seconds(
    tmp_path: Path, command: list[str], document: dict[str, Any], says: str
) -> None:
    trace = {"task_id": "t", "final_output": HOSTILE,
             "steps": [{"step_id": 0, "type": "tool_call", "tool_name": "lookup",
                        "tool_args": {"q": HOSTILE}, "tool_result": "ok"}]}
    if command[0] == "run":
        case = tmp_path / "s" / "c"
        case.mkdir(parents=True)
        (case / "testcase.json").write_text(json.dumps(document))
        (case / "trace.json").write_text(json.dumps(trace))
    else:
        (tmp_path / "checks.json").write_text(json.dumps(document))
        (tmp_path / "trace.json").write_text(json.dumps(trace))
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "openeval", *command],
                          cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          capture_output=True, text=True, timeout=60, check=False)
    assert time.monotonic() - start < 20
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    if command[0] == "run":
        assert says in done.stdout
        assert "1 case(s): 0 passed, 0 failed, 1 errored" in done.stdout
    else:
        row = json.loads((tmp_path / "out" / "results.jsonl").read_text())
        assert row["checks"]["regex_match"]["verdict"] == "error"
        assert row["checks"]["regex_match"]["details"] == says


def _schema_pattern_reply() -> Any:
    from openeval.checks import json_validity

    return json_validity(json.dumps({"a": HOSTILE}),
                         schema={"properties": {"a": {"pattern": SLOW}}})


def _schema_pattern_key() -> Any:
    from openeval.checks import json_validity

    return json_validity(json.dumps({HOSTILE: 1}),
                         schema={"patternProperties": {SLOW: {"type": "integer"}}})


def _tool_schema() -> Any:
    from openeval.checks import tool_schema_conformance
    from openeval.models import AgentTrace, TraceStep

    return tool_schema_conformance(AgentTrace(
        task_id="t", steps=[TraceStep(1, "tool_call", tool_name="a", tool_args={"q": HOSTILE})],
        tool_definitions=[{"name": "a", "parameters": {
            "type": "object", "properties": {"q": {"type": "string", "pattern": SLOW}}}}]))


def _denied_when() -> Any:
    from openeval.models import AgentTrace, TraceStep
    from openeval.scoring.denials import compile_denial_rule, mark_denials

    return mark_denials(AgentTrace(task_id="t", steps=[
        TraceStep(1, "tool_call", tool_name="a", tool_args={}, tool_result=HOSTILE)]),
        compile_denial_rule([SLOW]))


def _refusal_extra() -> Any:
    from openeval.checks import refusal

    return refusal(HOSTILE, extra_patterns=[SLOW], scan_first_chars=len(HOSTILE))


# (id, the call, how the error starts): one give-up (the budget, 1 s) each
IN_PROCESS = [
    ("json-validity-pattern", _schema_pattern_reply, "json_validity: the schema's pattern"),
    ("json-validity-pattern-properties", _schema_pattern_key,
     "json_validity: the schema's pattern"),
    ("tool-schema-pattern", _tool_schema, "tool_schema_conformance: the pattern"),
    ("denied-when", _denied_when, "denied_when: the pattern"),
    ("refusal-extra-patterns", _refusal_extra, "refusal: the pattern"),
]


@pytest.mark.parametrize(("call", "starts"), [row[1:] for row in IN_PROCESS],
                         ids=[row[0] for row in IN_PROCESS])
def test_every_search_of_a_user_pattern_has_the_budget(call: Any, starts: str) -> None:
    from openeval.matching.regex_budget import RegexGaveUp

    with pytest.raises(RegexGaveUp) as raised:
        call()
    assert raised.value.message.startswith(f"{starts} {SLOW!r} gave up after 1.0 s of CPU")


def test_a_case_blind_pattern_is_refused_as_it_is_compiled() -> None:
    from openeval.checks import refusal
    from openeval.errors import TestCaseError
    from openeval.scoring.denials import compile_denial_rule

    with pytest.raises(TestCaseError, match="repeats the same characters twice in a row"):
        compile_denial_rule(["x*X*y"])  # compiled case-blind: x* and X* overlap
    with pytest.raises(TestCaseError, match="repeats the same characters twice in a row"):
        refusal("a reply", extra_patterns=["x*X*y"])

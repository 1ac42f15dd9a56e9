"""Code check entries in the plan: compiled into picklable references, refused with the JSON
path when they configure nothing, and scored in whichever process runs the case."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

import pytest

from openeval.adapters.base import LoadOptions
from openeval.code_checks import CodeCheckRef
from openeval.engines import ProcessPoolEngine, SerialEngine
from openeval.errors import TestCaseError
from openeval.models import EvalTestCase
from openeval.results.files import write_results
from openeval.results.records import CheckSpec
from openeval.runner import run_suite
from openeval.scoring import compile_plan
from openeval.trust import TRUSTED, CodePolicy

DATA = Path(__file__).resolve().parents[1] / "data" / "code_checks"
SUITE = DATA / "suite"
POLICY = SUITE / "checks" / "policy.py"
CASE_FILE = SUITE / "cases" / "refund-ok" / "testcase.json"


ALLOW_FILES = LoadOptions(code=CodePolicy(files=True))
"""What --allow-code gives."""


def _case(*checks: dict[str, Any]) -> EvalTestCase:
    return EvalTestCase(task_id="t", metrics=[], checks=list(checks))


def test_a_code_entry_compiles_to_a_spec_and_a_reference() -> None:
    entry = {"code": "../../checks/policy.py:refund_within_limit", "limit": 100,
             "time_limit": 2, "threshold": None}
    plan = compile_plan(_case(entry), code_policy=TRUSTED, source=CASE_FILE)
    assert plan.checks == (CheckSpec(
        kind="../../checks/policy.py:refund_within_limit", name="refund_within_limit",
        family="code", settings={"limit": 100, "time_limit": 2}, threshold=None,
    ),)
    assert plan.code == {"refund_within_limit": CodeCheckRef(
        "../../checks/policy.py:refund_within_limit", str(POLICY), None, "refund_within_limit",
        2.0,
    )}
    assert pickle.loads(pickle.dumps(plan)) == plan  # references only, never functions


def test_a_file_missing_beside_the_case_is_looked_for_in_the_checks_folder() -> None:
    plan = compile_plan(_case({"code": "policy.py", "name": "policy"}), code_policy=TRUSTED,
                        source=CASE_FILE, checks_dir=SUITE / "checks")
    assert plan.code["policy"].file == str(POLICY)


def test_the_run_sets_the_default_time_limit_and_the_entry_wins() -> None:
    plan = compile_plan(
        _case({"code": "policy.py", "name": "a"}, {"code": "policy.py", "name": "b",
                                                    "time_limit": 0.5}),
        source=POLICY, code_time_limit=12.0, code_policy=TRUSTED,
    )
    assert (plan.code["a"].time_limit, plan.code["b"].time_limit) == (12.0, 0.5)
    default = compile_plan(_case({"code": "policy.py"}), code_policy=TRUSTED, source=POLICY)
    assert default.code["policy"].time_limit == 5.0


@pytest.mark.parametrize(
    ("entry", "location", "message"),
    [
        ({"code": "policy.py", "check": "json_validity"}, "checks[0]",
         "give either 'check' (a built-in check) or 'code' (your own), not both"),
        ({"code": "nowhere.py"}, "checks[0].code",
         "no check file 'nowhere.py': looked for checks/nowhere.py"),
        ({"code": "my-pkg:rule"}, "checks[0].code",
         "'my-pkg:rule' is neither a Python file (path ending in .py) nor a module path "
         "(pkg.module), optionally followed by :name"),
        ({"code": "policy.py", "time_limit": 0}, "checks[0].time_limit",
         "expected a number of seconds above 0, got 0"),
        ({"code": "policy.py", "time_limit": "5s"}, "checks[0].time_limit",
         "expected a number of seconds above 0, got '5s'"),
        ({"code": "policy.py", "time_limit": True}, "checks[0].time_limit",
         "expected a number of seconds above 0, got True"),
    ],
    ids=["check-and-code", "missing-file", "malformed", "zero-limit", "text-limit", "bool-limit"],
)
def test_a_code_entry_that_configures_nothing_is_a_test_case_error(
    entry: dict[str, Any], location: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(SUITE)  # messages show paths relative to the working folder
    with pytest.raises(TestCaseError) as caught:
        compile_plan(_case(entry), code_policy=TRUSTED, source=POLICY)
    assert (caught.value.location, caught.value.message) == (location, message)


def test_two_code_entries_need_their_own_names() -> None:
    with pytest.raises(TestCaseError, match="name 'policy' is already used by checks\\[0\\]"):
        compile_plan(_case({"code": "policy.py"}, {"code": "policy.py", "limit": 5}),
                     source=POLICY, code_policy=TRUSTED)


def test_a_suite_whose_checks_live_in_a_sibling_folder() -> None:
    suite = run_suite(SUITE, options=ALLOW_FILES, engine=SerialEngine())
    assert {c.case_id: c.status for c in suite.cases} == {
        "cases/refund-no-amount": "error",
        "cases/refund-ok": "passed",
        "cases/refund-too-big": "failed",
    }
    errored = suite.cases[0].checks[0]
    assert errored.details.endswith(
        "code_checks/suite/checks/policy.py:10: refund_within_limit raised KeyError: 'amount'"
    )
    assert not suite.gate_passed


def test_worker_processes_load_user_code_themselves(tmp_path: Path) -> None:
    serial = write_results(run_suite(SUITE, options=ALLOW_FILES, engine=SerialEngine()),
                           tmp_path / "serial")
    spawned = write_results(
        run_suite(SUITE, options=ALLOW_FILES, engine=ProcessPoolEngine(2, "spawn")),
        tmp_path / "spawn",
    )
    names = sorted(p.name for p in serial.iterdir())
    assert names == sorted(p.name for p in spawned.iterdir())
    for name in names:
        assert (serial / name).read_bytes() == (spawned / name).read_bytes(), name

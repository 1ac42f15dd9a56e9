"""Finding and loading user checks: references, folders, the per-process cache, both forms
(function and class), declared score names, and every load or run failure as one errored
check naming file and line while the other checks still run."""

from __future__ import annotations

import importlib.util
import os
import pickle
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from openeval.adapters.registry import read_trace
from openeval.code_checks import CodeCheckError, CodeCheckRef, load_check, resolve_reference
from openeval.code_checks.loader import split_reference
from openeval.errors import OpenEvalError
from openeval.jsonio import read_json_file
from openeval.models import AgentTrace, EvalTestCase
from openeval.scoring import CasePlan, compile_plan, score
from openeval.testcase_file import load_test_case
from openeval.trust import TRUSTED

DATA = Path(__file__).resolve().parents[1] / "data" / "code_checks"
CASE = DATA / "case"
BROKEN = read_json_file(DATA / "broken.json")



def _plan(case: EvalTestCase, source: Path) -> CasePlan:
    return compile_plan(case, code_policy=TRUSTED, source=source)


@pytest.fixture(scope="module")
def trace() -> AgentTrace:
    return read_trace(CASE / "trace.json")[0]


@pytest.fixture(scope="module")
def test_case() -> EvalTestCase:
    return load_test_case(CASE / "testcase.json")


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("checks/polite.py", ("checks/polite.py", None, True)),
        ("checks/rules.py:refund_limit", ("checks/rules.py", "refund_limit", True)),
        ("rules.py:Check", ("rules.py", "Check", True)),
        ("mypkg.checks:refund_rule", ("mypkg.checks", "refund_rule", False)),
        ("mypkg.checks", ("mypkg.checks", None, False)),
        ("C:\\suite\\rules.py", ("C:\\suite\\rules.py", None, True)),
        ("C:\\suite\\rules.py:limit", ("C:\\suite\\rules.py", "limit", True)),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_a_reference_names_a_file_or_a_module(text: str, expected: tuple[Any, ...]) -> None:
    assert split_reference(text) == expected


@pytest.mark.parametrize("text", ["my-pkg.checks:rule", "mypkg..checks", "refund rules"])
def test_a_reference_that_is_neither_file_nor_module_is_refused(text: str) -> None:
    with pytest.raises(OpenEvalError, match="neither a Python file"):
        split_reference(text)


def test_a_file_is_found_beside_the_test_case_then_in_the_checks_folder(tmp_path: Path) -> None:
    case_dir, checks_dir = tmp_path / "cases" / "one", tmp_path / "checks"
    beside = _write(case_dir / "rules.py", "def evaluate():\n    return True\n")
    shared = _write(checks_dir / "policy.py", "def evaluate():\n    return True\n")
    found = resolve_reference("rules.py", base_dir=case_dir, checks_dir=checks_dir)
    assert found == CodeCheckRef("rules.py", str(beside.resolve()), None, None)
    found = resolve_reference("policy.py:evaluate", base_dir=case_dir, checks_dir=checks_dir,
                              time_limit=2.0)
    assert found == CodeCheckRef("policy.py:evaluate", str(shared.resolve()), None, "evaluate",
                                 2.0)
    with pytest.raises(OpenEvalError) as caught:
        resolve_reference("missing.py", base_dir=case_dir, checks_dir=checks_dir)
    assert caught.value.message == (
        f"no check file 'missing.py': looked for {(case_dir / 'missing.py').as_posix()} or "
        f"{(checks_dir / 'missing.py').as_posix()}"
    )


def test_a_module_reference_is_kept_for_the_process_that_scores() -> None:
    ref = resolve_reference("tests.no_such_module:rule", base_dir=".")
    assert (ref.module, ref.attr, ref.file) == ("tests.no_such_module", "rule", None)
    assert pickle.loads(pickle.dumps(ref)) == ref


@pytest.mark.parametrize(
    ("reference", "name"),
    [("checks/polite.py", "polite"), ("checks/rules.py:refund_limit", "refund_limit"),
     ("mypkg.checks", "checks"), ("mypkg.checks:Check", "Check")],
)
def test_an_entry_without_a_name_shows_under_its_function_or_file(
    reference: str, name: str
) -> None:
    target, attr, is_file = split_reference(reference)
    ref = CodeCheckRef(reference, f"/x/{target}" if is_file else None,
                       None if is_file else target, attr)
    assert ref.default_name == name


def test_a_file_is_loaded_once_and_again_when_it_changes(tmp_path: Path) -> None:
    path = _write(tmp_path / "rules.py", "def a():\n    return True\n\n\ndef b():\n    return 1\n")
    first = load_check(CodeCheckRef("rules.py:a", str(path), None, "a"))
    other = load_check(CodeCheckRef("rules.py:b", str(path), None, "b"))
    assert first.function.__globals__ is other.function.__globals__  # one import of the file
    assert load_check(CodeCheckRef("rules.py:a", str(path), None, "a")) is first
    _write(path, "def a(model_output):\n    return False\n")
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    again = load_check(CodeCheckRef("rules.py:a", str(path), None, "a"))
    assert again is not first and again.inputs == ("model_output",)


def test_a_check_file_is_its_own_module_and_writes_nothing_beside_it(tmp_path: Path) -> None:
    # Named like a standard-library module, yet neither shadows the other.
    path = _write(tmp_path / "json.py",
                  "import json\n\n\ndef evaluate():\n    return json.dumps(1)\n")
    loaded = load_check(CodeCheckRef("json.py", str(path), None, None))
    assert loaded.function() == "1"
    assert sys.modules["json"].__file__ != str(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["json.py"]  # no __pycache__


def test_a_module_reference_is_imported_through_sys_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _write(tmp_path / "teamchecks" / "__init__.py", "")
    _write(tmp_path / "teamchecks" / "refunds.py",
           "class Check:\n    @staticmethod\n    def evaluate(tool_calls):\n        return True\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    loaded = load_check(CodeCheckRef("teamchecks.refunds", None, "teamchecks.refunds", None))
    assert (loaded.label, loaded.inputs, loaded.line) == ("Check.evaluate", ("tool_calls",), 2)
    with pytest.raises(CodeCheckError) as caught:
        load_check(CodeCheckRef("teamchecks.nope:x", None, "teamchecks.nope", "x"))
    assert str(caught.value) == (
        "teamchecks.nope: importing module 'teamchecks.nope' raised ModuleNotFoundError: "
        "No module named 'teamchecks.nope'"
    )


FORMS = {
    "function": "def evaluate(model_output, params):\n    return params['word'] in model_output\n",
    "class": (
        "class Check:\n    @staticmethod\n    def evaluate(model_output, params):\n"
        "        return params['word'] in model_output\n"
    ),
    "class-on-the-base": (
        "from openeval.code_checks import CodeBasedCheck\n\n\nclass Check(CodeBasedCheck):\n"
        "    @staticmethod\n    def evaluate(model_output, params):\n"
        "        return params['word'] in model_output\n"
    ),
    "kwargs": "def evaluate(**inputs):\n    return inputs['params']['word'] in "
              "inputs['model_output']\n",
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize(("word", "verdict"), [("Refunded", "pass"), ("sorry", "fail")])
def test_function_and_class_forms_score_alike(
    tmp_path: Path, trace: AgentTrace, test_case: EvalTestCase, form: str, word: str,
    verdict: str,
) -> None:
    _write(tmp_path / "polite.py", FORMS[form])
    case = replace(test_case, checks=[{"code": "polite.py", "word": word}])
    (result,) = score(trace, _plan(case, tmp_path / "testcase.json"))
    assert (result.name, result.verdict, result.spec.kind, result.spec.family) == (
        "polite", verdict, "polite.py", "code"
    )


DECLARED = ["declared_attribute"] + (
    ["declared_with_util"] if importlib.util.find_spec("openeval.checks") else []
)  # the check library lands beside this package; until then only the attribute form exists


@pytest.mark.parametrize("form", DECLARED)
def test_declared_score_names_name_the_scores(
    tmp_path: Path, trace: AgentTrace, test_case: EvalTestCase, form: str
) -> None:
    sources = {
        "declared_attribute": (
            "def evaluate(model_output):\n    return 'R-77' in model_output\n\n\n"
            "evaluate.__scores__ = ('quotes_refund_id', 'refund_id_count')\n"
        ),
        "declared_with_util": (
            "from openeval.checks.util import declares\n\n\n"
            "@declares('quotes_refund_id', 'refund_id_count')\n"
            "def evaluate(model_output):\n    return 'R-77' in model_output\n"
        ),
    }
    path = _write(tmp_path / "ids.py", sources[form])
    assert load_check(CodeCheckRef("ids.py", str(path), None, None)).score_names == (
        "quotes_refund_id", "refund_id_count"
    )
    case = replace(test_case, checks=[{"code": "ids.py"}])
    (result,) = score(trace, _plan(case, tmp_path / "testcase.json"))
    assert result.name == "ids" and [s.name for s in result.scores] == ["quotes_refund_id"]


@pytest.mark.parametrize("broken", BROKEN, ids=[b["id"] for b in BROKEN])
def test_a_broken_check_is_one_errored_check_naming_file_and_line(
    trace: AgentTrace, test_case: EvalTestCase, broken: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(DATA)  # messages show paths relative to the working folder
    entry = {"code": f"../broken/{broken['code']}", "name": "broken"}
    if "time_limit" in broken:
        entry["time_limit"] = broken["time_limit"]
    good = {"code": "../../code_checks/suite/checks/policy.py:refund_within_limit", "limit": 100}
    case = replace(test_case, checks=[entry, good])
    results = score(trace, _plan(case, Path("case/testcase.json")))
    failed, after = results
    assert (failed.verdict, failed.scores) == ("error", ())
    assert failed.details == broken["details"]
    assert "Traceback" not in failed.details and "\n" not in failed.details
    assert after.verdict == "pass"  # the run goes on


def test_a_broken_file_is_read_once_per_process(
    tmp_path: Path, trace: AgentTrace, test_case: EvalTestCase
) -> None:
    counter = tmp_path / "imports.txt"
    _write(tmp_path / "bad.py", f"open({str(counter)!r}, 'a').write('x')\nraise ValueError('no')\n")
    case = replace(test_case, checks=[{"code": "bad.py"}])
    plan = compile_plan(case, code_policy=TRUSTED, source=tmp_path / "testcase.json")
    details = {score(trace, plan)[0].details for _ in range(3)}
    assert len(details) == 1 and "bad.py:2: importing the check file raised ValueError: no" in (
        details.pop()
    )
    assert counter.read_text() == "x"

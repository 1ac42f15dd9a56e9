"""Result files: round trips, byte-identical output, stale and broken folders, older versions."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from builders import case, record_digests
from jsonschema import Draft202012Validator

from openeval.errors import ResultFileError
from openeval.results.files import read_results, result_file_name, write_results
from openeval.results.records import CaseResult, SuiteResult
from openeval.runner import run_suite
from openeval.schemas import load_schema

SUITES = Path(__file__).parents[1] / "data" / "suites"
TOUR = Path(__file__).parents[2] / "examples" / "tour"


@pytest.fixture(scope="module")
def mixed_suite() -> SuiteResult:
    return run_suite(SUITES / "mixed", fail_under=0.5)


def trials_case(case_id: str, *trials: CaseResult, rule: str = "majority") -> CaseResult:
    """Return a case whose trials are ``trials``, each named ``trace-N.json``."""
    named = tuple(
        CaseResult(f"{case_id}#trace-{i}.json", t.task_id, t.testcase_path, t.trace_path,
                   t.trace_format, t.checks, t.error, t.trace_task_id)
        for i, t in enumerate(trials, 1)
    )
    return CaseResult(case_id, case_id, f"{case_id}/testcase.json", None, None, trials=named,
                      trials_rule=rule)


TRIALS_SUITE = SuiteResult(
    cases=(trials_case("t", case("t", True, True), case("t", True, False),
                       case("t", error="gone")),
           trials_case("u", case("u", True), case("u", False), rule="pass_at_k=2"),
           case("plain", True)),
    fail_under=0.5, gates=(("m0", 0.5), ("m1", 1.0)), fail_under_cases=0.25,
    metadata={"suite": "x", "trials_rule": "majority"},
)

SAMPLES: dict[str, Callable[[SuiteResult], SuiteResult]] = {
    "mixed-suite": lambda s: s,
    "trials-and-gates": lambda s: TRIALS_SUITE,
    "hand-built": lambda s: SuiteResult(
        cases=(case("x/1", True, False), case("x/2", error="can't|read\nit"), case("x:3", None)),
        fail_under=None, metadata={"suite": "x", "metrics": ["m0", "m1"]},
    ),
    "alignments-and-kept-steps": lambda s: run_suite(TOUR, keep_steps=True),
}


@pytest.mark.parametrize("sample", SAMPLES)
def test_round_trip(tmp_path: Path, mixed_suite: SuiteResult, sample: str) -> None:
    suite = SAMPLES[sample](mixed_suite)
    assert read_results(write_results(suite, tmp_path / "out")) == suite


def test_same_run_gives_the_same_bytes(tmp_path: Path) -> None:
    first = write_results(run_suite(SUITES / "mixed"), tmp_path / "one")
    second = write_results(run_suite(SUITES / "mixed"), tmp_path / "two")
    names = sorted(p.name for p in first.iterdir())
    assert names == sorted(p.name for p in second.iterdir())
    for name in names:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_written_files_fit_the_shipped_schemas(tmp_path: Path, mixed_suite: SuiteResult) -> None:
    out = write_results(mixed_suite, tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    Draft202012Validator(load_schema("summary")).validate(summary)
    for name in summary["result_files"]:
        Draft202012Validator(load_schema("result")).validate(json.loads((out / name).read_text()))
    assert summary["cases"] == 9 and summary["errored_cases"] == 6
    assert summary["passed_cases"] + summary["failed_cases"] + summary["errored_cases"] == 9
    assert summary["gate_passed"] is False and summary["fail_under"] == 0.5
    assert set(summary["per_check"]) == {c.name for c in mixed_suite.cases[0].checks}


def test_kept_steps_and_structured_data_are_written_only_when_there_are_some(
    tmp_path: Path,
) -> None:
    plain = write_results(run_suite(TOUR), tmp_path / "plain")
    kept = write_results(run_suite(TOUR, keep_steps=True), tmp_path / "kept")
    validator = Draft202012Validator(load_schema("result"))
    names = sorted(p.name for p in plain.glob("*.result.json"))
    for name in names:
        without = json.loads((plain / name).read_text())
        document = json.loads((kept / name).read_text())
        validator.validate(document)
        assert "trace_excerpt" not in without
        assert document.pop("trace_excerpt")["steps"], name
        assert document == without  # the excerpt is the only difference
    happy = json.loads((plain / names[0]).read_text())
    assert happy["case_id"] == "01-refund-happy-path"
    assert not [c for c in happy["checks"] if "data" in c]  # nothing to say: no key at all


def test_cases_sharing_a_task_id_get_separate_files(tmp_path: Path) -> None:
    suite = SuiteResult(cases=(case("same/one", True), case("same/two", True)))
    assert {c.task_id for c in suite.cases} == {"same"}
    out = write_results(suite, tmp_path)
    assert len(list(out.glob("*.result.json"))) == 2
    assert result_file_name("a/b") != result_file_name("a_b")


def test_stale_results_of_an_earlier_run_are_removed(tmp_path: Path) -> None:
    write_results(SuiteResult(cases=tuple(case(f"c{i}", True) for i in range(5))), tmp_path)
    (tmp_path / "notes.txt").write_text("not ours")
    small = SuiteResult(cases=(case("c9", False),))
    write_results(small, tmp_path)
    assert len(list(tmp_path.glob("*.result.json"))) == 1
    assert (tmp_path / "notes.txt").exists()
    assert read_results(tmp_path) == small


def _edit_summary(key: str, value: object) -> Callable[[Path], str]:
    def edit(out: Path) -> str:
        data = json.loads((out / "summary.json").read_text())
        data[key] = value
        (out / "summary.json").write_text(json.dumps(data))
        return "summary.json"

    return edit


def _first_case(out: Path) -> Path:
    return out / json.loads((out / "summary.json").read_text())["result_files"][0]


def _edit_case(change: Callable[[dict[str, Any]], None]) -> Callable[[Path], str]:
    def edit(out: Path) -> str:
        path = _first_case(out)
        data = json.loads(path.read_text())
        change(data)
        path.write_text(json.dumps(data))
        record_digests(out)  # a forged record too: the checks behind the digests must hold
        return path.name

    return edit


def _truncate(out: Path) -> str:
    path = _first_case(out)
    path.write_text(path.read_text()[:40])
    record_digests(out)
    return path.name


def _cut_short(out: Path) -> str:
    path = _first_case(out)
    path.write_text(path.read_text()[:40])
    return path.name


def _edit_unrecorded(out: Path) -> str:
    path = _first_case(out)
    path.write_text(path.read_text() + " ")  # still valid JSON, still the same result
    return path.name


def _remove(out: Path) -> str:
    path = _first_case(out)
    path.unlink()
    return "summary.json"


def _stray(out: Path) -> str:
    (out / "old-run-12345678.result.json").write_text("{}")
    return "old-run-12345678.result.json"


BROKEN: list[tuple[str, Callable[[Path], str], str | None, str]] = [
    ("truncated-case", _truncate, "line", "invalid JSON"),
    ("case-cut-short", _cut_short, None, "is not the file the run wrote: summary.json records"),
    ("case-edited", _edit_unrecorded, None, "cut short or changed after the run"),
    ("digest-dropped", _edit_summary("result_digests", {}), "result_digests",
     "records no digest for"),
    ("score-not-a-number",
     _edit_case(lambda d: d["checks"][0]["scores"][0].update(value=None)),  # type: ignore[index]
     "checks[0].scores[0].value", "expected a number or true or false or a string"),
    ("unknown-key", _edit_case(lambda d: d.update(verdict="ok")), "verdict", "unknown key"),
    ("verdict-lies", _edit_case(lambda d: d["checks"][0].update(verdict="n.a.")),  # type: ignore[index]
     "checks[0].verdict", "does not follow from its scores"),
    ("status-lies", _edit_case(lambda d: d.update(status="error")), "status", "does not match"),
    ("pass-rate-edited", _edit_summary("pass_rate", 1.0), "pass_rate", "case result files give"),
    ("summary-bad-type", _edit_summary("cases", "nine"), "cases", "expected an integer"),
    ("listed-file-missing", _remove, "result_files[0]", "which is missing"),
    ("unlisted-file", _stray, None, "not listed in summary.json"),
    ("listed-twice", lambda out: _edit_summary("result_files", [
        json.loads((out / "summary.json").read_text())["result_files"][0]] * 9)(out),
     "result_files[1]", "is listed twice"),
    ("listed-outside", _edit_summary("result_files", ["../x.result.json"]),
     "result_files[0]", "is not a result file of this folder"),
    ("listed-not-a-result", _edit_summary("result_files", ["summary.json"]),
     "result_files[0]", "is not a result file of this folder"),
]


@pytest.mark.parametrize(
    ("breaker", "location", "words"), [b[1:] for b in BROKEN], ids=[b[0] for b in BROKEN]
)
def test_broken_result_folders_name_the_file_and_place(
    tmp_path: Path, mixed_suite: SuiteResult, breaker: Callable[[Path], str],
    location: str | None, words: str,
) -> None:
    out = write_results(mixed_suite, tmp_path)
    file_name = breaker(out)
    with pytest.raises(ResultFileError) as caught:
        read_results(out)
    error = caught.value
    assert error.source is not None and Path(error.source).name == file_name
    if location == "line":
        assert error.location is not None and error.location.startswith("line ")
    else:
        assert error.location == location
    assert words in error.message


@pytest.mark.parametrize("setup", ["empty", "missing", "cases-without-summary"])
def test_a_folder_holding_no_result_is_refused(tmp_path: Path, setup: str) -> None:
    folder = tmp_path / "results"
    if setup != "missing":
        folder.mkdir()
    if setup == "cases-without-summary":
        (folder / "a-12345678.result.json").write_text("{}")
    with pytest.raises(ResultFileError) as caught:
        read_results(folder)
    assert caught.value.source == str(folder)


LEGACY_RESULTS = Path(__file__).parents[1] / "data" / "results" / "openeval_021"
"""Written by openeval-core 0.2.1 itself (in a separate virtualenv) over a copy of
``tests/data/suites/legacy_021`` plus a test case without a trace (``orphan``)."""


def test_results_written_by_openeval_0_2_1_are_read() -> None:
    suite = read_results(LEGACY_RESULTS)
    by_id = {c.case_id: c for c in suite.cases}
    assert list(by_id) == ["lookup", "orphan", "refund"]
    assert by_id["lookup"].passed and not by_id["refund"].passed
    assert by_id["orphan"].errored and "Missing matching trace" in (by_id["orphan"].error or "")
    names = [c.name for c in by_id["refund"].checks]
    assert names == ["tool_selection_accuracy", "argument_correctness", "step_efficiency",
                     "goal_completion_rate"]
    # 6 passed of 8 metric results, plus the errored case as one failure.
    assert suite.pass_rate == pytest.approx(6 / 9)
    assert not suite.gate_passed


def test_a_malformed_0_2_1_result_is_named(tmp_path: Path) -> None:
    for path in LEGACY_RESULTS.glob("*.json"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    data = json.loads((tmp_path / "refund.json").read_text())
    data["metrics"]["Step Efficiency"]["passed"] = "yes"
    (tmp_path / "refund.json").write_text(json.dumps(data))
    with pytest.raises(ResultFileError) as caught:
        read_results(tmp_path)
    assert caught.value.source == str(tmp_path / "refund.json")
    assert caught.value.location == "metrics.Step Efficiency.passed"


def test_a_folder_of_other_json_is_not_taken_for_results(tmp_path: Path) -> None:
    (tmp_path / "testcase.json").write_text('{"task_id": "t"}')
    with pytest.raises(ResultFileError, match="holds no result"):
        read_results(tmp_path)


V1_RESULTS = Path(__file__).parents[1] / "data" / "results" / "openeval_v1"
"""Written by OpenEval before schema version 2 (commit e0d3a53) over ``suites/mixed``."""


def test_results_of_schema_version_1_are_read_and_counted_the_same() -> None:
    old = read_results(V1_RESULTS)
    new = run_suite(SUITES / "mixed", fail_under=0.5)
    assert [c.case_id for c in old.cases] == [c.case_id for c in new.cases]
    assert [c.status for c in old.cases] == [c.status for c in new.cases]
    assert old.summary.pass_rate == new.summary.pass_rate == 0.75
    judged = ("passed", "failed", "errored")  # n.a. counts grow with every new metric
    assert [getattr(old.summary.results, k) for k in judged] == [
        getattr(new.summary.results, k) for k in judged
    ]
    assert old.metadata["read_from"] == "OpenEval result files, schema version 1"


def test_an_interrupted_run_leaves_no_old_verdict(tmp_path: Path) -> None:
    from openeval.results.files import prepare_output

    write_results(SuiteResult(cases=(case("c1", True),)), tmp_path)
    prepare_output(tmp_path)  # what `openeval run` does before the first case is scored
    assert not (tmp_path / "summary.json").exists()
    assert list(tmp_path.glob("*.result.json")) == []
    with pytest.raises(ResultFileError, match="holds no result"):
        read_results(tmp_path)


def test_clearing_removes_a_listed_link_not_what_it_points_at(tmp_path: Path) -> None:
    from openeval.results.files import prepare_output

    out = tmp_path / "out"
    write_results(SuiteResult(cases=(case("c1", True), case("c2", False))), out)
    first, second = sorted(p.name for p in out.glob("*.result.json"))
    victim = tmp_path / "victim"
    victim.write_text("precious")
    (out / first).unlink()
    (out / first).symlink_to(victim)  # a listed name turned into a link
    (out / second).unlink()  # a listed name already gone
    prepare_output(out)
    assert victim.read_text() == "precious"
    assert sorted(p.name for p in out.iterdir()) == []


def test_files_no_run_listed_are_left_alone(tmp_path: Path) -> None:
    (tmp_path / "mine-00000000.result.json").write_text("{}")
    write_results(SuiteResult(cases=(case("c1", True),)), tmp_path)
    assert (tmp_path / "mine-00000000.result.json").exists()


def test_a_version_2_summary_from_before_gates_and_trials_is_read(
    tmp_path: Path, mixed_suite: SuiteResult
) -> None:
    out = write_results(mixed_suite, tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    for key in ("gates", "fail_under_cases", "trials"):
        del summary[key]
    (out / "summary.json").write_text(json.dumps(summary))
    assert read_results(out) == mixed_suite


def test_trial_files_fit_the_schema_and_keep_single_cases_as_they_were(tmp_path: Path) -> None:
    out = write_results(TRIALS_SUITE, tmp_path)
    summary = json.loads((out / "summary.json").read_text())
    Draft202012Validator(load_schema("summary")).validate(summary)
    documents = [json.loads((out / n).read_text()) for n in summary["result_files"]]
    for document in documents:
        Draft202012Validator(load_schema("result")).validate(document)
    assert documents[0]["trial_stats"] == {"n": 3, "passed": 1, "pass_hat_k": [
        1 / 3, 0.0, 0.0], "pass_at_k": [1 / 3, 2 / 3, 1.0]}
    assert documents[0]["status"] == "error"  # a trial could not be read
    assert [t["case_id"] for t in documents[0]["trials"]] == [
        "t#trace-1.json", "t#trace-2.json", "t#trace-3.json"]
    assert "trials" not in documents[2] and "trial_stats" not in documents[2]
    assert summary["trials"]["by_k"][0] == {"k": 1, "cases": 2, "pass_hat_k": (1 / 3 + 1 / 2) / 2,
                                            "pass_at_k": (1 / 3 + 1 / 2) / 2}



BROKEN_TRIALS: list[tuple[str, Callable[[Path], str], str, str]] = [
    ("trial-status-lies", _edit_case(lambda d: d["trials"][1].update(status="passed")),
     "trials[1].status", "does not match the trial's error and checks"),
    ("trial-verdict-lies",
     _edit_case(lambda d: d["trials"][0]["checks"][1].update(verdict="fail")),
     "trials[0].checks[1].verdict", "does not follow from its scores"),
    ("stats-edited", _edit_case(lambda d: d["trial_stats"].update(passed=3)), "trial_stats",
     "but the trials give"),
    ("unknown-rule", _edit_case(lambda d: d.update(trials_rule="most")), "trials_rule",
     "unknown trials rule 'most'"),
    ("checks-beside-trials",
     _edit_case(lambda d: d.update(checks=d["trials"][0]["checks"])), "checks",
     "holds its checks in each trial"),
    ("gate-figure-edited",
     lambda out: _edit_summary("gates", [{"name": "m0", "figure": 0.1, "line": 0.5,
                                         "passed": False},
                                        {"name": "m1", "figure": 0.5, "line": 1.0,
                                         "passed": False}])(out),
     "gates", "case result files give"),
]


@pytest.mark.parametrize(("breaker", "location", "words"), [b[1:] for b in BROKEN_TRIALS],
                         ids=[b[0] for b in BROKEN_TRIALS])
def test_tampered_trials_and_gates_are_named(
    tmp_path: Path, breaker: Callable[[Path], str], location: str, words: str
) -> None:
    out = write_results(TRIALS_SUITE, tmp_path)
    file_name = breaker(out)
    with pytest.raises(ResultFileError) as caught:
        read_results(out)
    assert caught.value.source is not None and Path(caught.value.source).name == file_name
    assert caught.value.location == location
    assert words in caught.value.message

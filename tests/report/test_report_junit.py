"""The ``junit`` report format, read back with junitparser and checked against the XSD shape."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from junitparser import Error, Failure, JUnitXml, Skipped

from openeval.jsonio import read_json_file
from openeval.models import MetricResult
from openeval.report import format_names, render
from openeval.results import CaseResult, CheckResult, SuiteResult

DATA = Path(__file__).resolve().parents[1] / "data" / "report"


def mixed_suite() -> SuiteResult:
    """Return the five-case suite of suite_mixed.json: pass, fail, error, skip, error."""
    doc = read_json_file(DATA / "suite_mixed.json")
    return SuiteResult(cases=tuple(CaseResult.from_dict(c) for c in doc["cases"]))


def parse(xml: str, tmp_path: Path) -> JUnitXml:
    path = tmp_path / "junit.xml"
    path.write_text(xml, encoding="utf-8")
    return JUnitXml.fromfile(str(path))


def expected_counts(suite: SuiteResult) -> dict[str, int]:
    """Count outcomes from the SuiteResult itself, the way the JUnit attributes should."""
    errored = [c for c in suite.cases if c.errored]
    failed = [c for c in suite.cases if not c.errored and not c.passed]
    skipped = [
        c for c in suite.cases if not c.errored and all(m.passed is None for m in c.checks)
    ]
    return {
        "tests": len(suite.cases),
        "failures": len(failed),
        "errors": len(errored),
        "skipped": len(skipped),
    }


def test_counts_and_results_match_the_suite(tmp_path: Path) -> None:
    suite = mixed_suite()
    xml = parse(render(suite, "junit"), tmp_path)
    (testsuite,) = list(xml)
    want = expected_counts(suite)
    assert want == {"tests": 5, "failures": 1, "errors": 2, "skipped": 1}
    got = {k: getattr(testsuite, k) for k in want}
    assert got == want
    assert (xml.tests, xml.failures, xml.errors) == (5, 1, 2)

    cases = list(testsuite)
    assert [c.name for c in cases] == [c.case_id for c in suite.cases]
    assert {c.classname for c in cases} == {"openeval"}
    by_name = {c.name: c for c in cases}
    for case in suite.cases:
        results = by_name[case.case_id].result
        failed = [m for m in case.checks if m.passed is False]
        if case.errored:
            assert [type(r) for r in results] == [Error]
            # CRLF reads back as LF; ESC, which XML cannot hold, is written as "\x1b".
            want = case.error.replace("\r\n", "\n").replace("\x1b", "\\x1b")
            assert results[0].text == want
        elif failed:
            assert [type(r) for r in results] == [Failure] * len(failed)
            assert [r.type for r in results] == [m.spec.kind for m in failed]
            assert [r.text for r in results] == [m.details for m in failed]
        elif all(m.passed is None for m in case.checks):
            assert [type(r) for r in results] == [Skipped]
        else:
            assert results == []


def test_pass_rate_and_gate_are_properties(tmp_path: Path) -> None:
    suite = SuiteResult(cases=mixed_suite().cases, fail_under=0.25)
    (testsuite,) = list(parse(render(suite, "junit"), tmp_path))
    props = {p.name: p.value for p in testsuite.properties()}
    assert props == {"pass_rate": repr(3 / 7), "fail_under": "0.25", "gate": "failed"}


# The shape of Jenkins' junit-10.xsd, which GitLab and Buildkite also read:
# element -> (allowed attributes, required attributes, allowed children).
XSD_SHAPE: dict[str, tuple[set[str], set[str], set[str]]] = {
    "testsuites": ({"name", "time", "tests", "failures", "disabled", "errors"}, set(),
                   {"testsuite"}),
    "testsuite": ({"name", "tests", "failures", "errors", "time", "disabled", "skipped",
                   "timestamp", "hostname", "id", "package", "file", "log", "url", "version"},
                  {"name", "tests"}, {"properties", "testcase", "system-out", "system-err"}),
    "properties": (set(), set(), {"property"}),
    "property": ({"name", "value"}, {"name", "value"}, set()),
    "testcase": ({"name", "assertions", "time", "classname", "status"}, {"name"},
                 {"skipped", "error", "failure", "system-out", "system-err"}),
    "skipped": ({"message"}, set(), set()),
    "error": ({"message", "type"}, set(), set()),
    "failure": ({"message", "type"}, set(), set()),
    "system-out": (set(), set(), set()),
    "system-err": (set(), set(), set()),
}
# Within a testcase the XSD's sequence fixes this order.
TESTCASE_ORDER = ["skipped", "error", "failure", "system-out", "system-err"]


def test_document_fits_the_junit_xsd_shape() -> None:
    root = ET.fromstring(render(mixed_suite(), "junit").encode("utf-8"))
    assert root.tag == "testsuites"
    assert len(root.findall("testsuite")) == 1
    for element in root.iter():
        allowed, required, children = XSD_SHAPE[element.tag]
        assert set(element.attrib) <= allowed, element.tag
        assert required <= set(element.attrib), element.tag
        assert {child.tag for child in element} <= children, element.tag
        for key in ("tests", "failures", "errors", "skipped"):
            if key in element.attrib:
                assert int(element.attrib[key]) >= 0
    for testcase in root.iter("testcase"):
        order = [TESTCASE_ORDER.index(child.tag) for child in testcase]
        assert order == sorted(order)
        assert len(testcase.findall("skipped")) <= 1


def test_bytes_are_deterministic_and_carry_no_clock() -> None:
    first = render(mixed_suite(), "junit")
    assert first == render(mixed_suite(), "junit")
    assert first.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert "timestamp=" not in first and "time=" not in first and "hostname=" not in first


@settings(max_examples=60, deadline=None)
@given(details=st.text(), case_id=st.text(min_size=1), error=st.text())
def test_any_text_gives_well_formed_xml(details: str, case_id: str, error: str) -> None:
    failed = CaseResult(case_id, "t", "t/testcase.json", None, None,
                        (CheckResult.of_metric(MetricResult("output_contains", 0.0, False,
                                                            details)),))
    errored = CaseResult(case_id + "-e", "t", None, None, None, (), error=error)
    xml = render(SuiteResult(cases=(failed, errored)), "junit")
    root = ET.fromstring(xml.encode("utf-8"))
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    # Text XML can hold survives (line ends read back as LF, as XML parsers normalise them);
    # only the characters XML 1.0 forbids are rewritten.
    details = details.replace("\r\n", "\n").replace("\r", "\n")
    if all(ch in "\t\n" or " " <= ch <= "\ud7ff" or "\ue000" <= ch <= "\ufffd"
           or ch > "\uffff" for ch in details):
        assert (failure.text or "") == details


def test_junit_is_a_registered_format() -> None:
    assert "junit" in format_names()


SUITES = DATA / "suites"


@pytest.mark.parametrize(("suite", "code"), [("gate_pass", 0), ("gate_fail", 1)])
def test_run_junit_flag_end_to_end(suite: str, code: int, tmp_path: Path) -> None:
    """``openeval run --junit`` writes a file whose counts match the run's summary.json."""
    junit = tmp_path / "junit.xml"
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(SUITES / suite),
         "--output", str(out), "--junit", str(junit), "--quiet"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == code, done.stderr
    summary = read_json_file(out / "summary.json")
    (testsuite,) = list(JUnitXml.fromfile(str(junit)))
    assert testsuite.tests == summary["cases"]
    assert testsuite.failures == summary["failed_cases"]
    assert testsuite.errors == summary["errored_cases"]
    assert testsuite.name == summary["metadata"]["suite"]


def test_notes_of_passed_results_go_to_system_out_not_failures() -> None:
    from openeval.runner import run_suite

    tour = run_suite(Path(__file__).parents[2] / "examples" / "tour")
    root = ET.fromstring(render(tour, "junit"))
    case = next(c for c in root.iter("testcase")
                if "extra: search_flights" in (c.findtext("system-out") or ""))
    out = case.findtext("system-out") or ""
    assert "note: tool_selection_accuracy: extra: search_flights" in out
    assert not [f for f in case.iter("failure") if "extra:" in (f.get("message") or "")]

"""JUnit XML: the test-report format that GitLab, Jenkins, Buildkite and most CI systems read.

One ``testsuite`` holds one ``testcase`` per OpenEval case (``name`` = the case id). A case
carries one ``failure`` element per failed metric, an ``error`` element when it could not be
scored, or ``skipped`` when no metric applied to it (every result n.a.). Every metric's verdict
is also listed in the case's ``system-out``, which CI systems show beside the test.

The suite's ``failures``/``errors``/``skipped`` attributes count test cases, the usual JUnit
meaning (``tests`` minus the three is the number that passed), not failure elements. Only
elements and attributes of the common Jenkins ``junit-10.xsd`` shape are written; no
timestamps, durations or host names, so the same suite always gives the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from openeval.models import MetricResult
from openeval.results import CaseResult, SuiteResult

CLASSNAME = "openeval"
"""The ``classname`` of every test case (CI systems group by it)."""

# Characters XML 1.0 cannot hold at all, even escaped: ElementTree would write them raw and
# produce a file no parser accepts, so they are replaced by a visible escape.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Return ``text`` with the characters XML 1.0 forbids written as ``\\xNN`` / ``\\uNNNN``."""
    return _NOT_XML.sub(lambda m: ascii(m.group())[1:-1], text)


def _verdict(metric: MetricResult) -> str:
    return {True: "pass", False: "FAIL", None: "n.a."}[metric.passed]


def _system_out(case: CaseResult) -> str:
    lines = [f"testcase: {case.testcase_path or '-'}"]
    trace = case.trace_path or "-"
    fmt = f" ({case.trace_format})" if case.trace_format else ""
    lines.append(f"trace: {trace}{fmt}")
    lines += [
        f"{m.metric_name}: {_verdict(m)} (score {m.score:.2f}) {m.details}" for m in case.metrics
    ]
    if case.error is not None:
        lines.append(f"error: {case.error}")
    return "\n".join(lines) + "\n"


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrib: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attrib.items()})
    if text is not None:
        # XML parsers turn CR and CRLF in text into LF anyway; writing LF keeps bytes honest.
        element.text = xml_text(text.replace("\r\n", "\n").replace("\r", "\n"))
    return element


def _testcase(parent: ET.Element, case: CaseResult) -> str | None:
    """Write ``case``; return its outcome counted by the suite (None when it passed)."""
    element = _sub(parent, "testcase", name=case.case_id, classname=CLASSNAME)
    outcome: str | None = None
    failed = [m for m in case.metrics if m.passed is False]
    if case.error is not None:
        first_line = case.error.splitlines()[0] if case.error.strip() else "case errored"
        _sub(element, "error", case.error, message=first_line, type="OpenEvalError")
        outcome = "errors"
    elif failed:
        for metric in failed:
            _sub(
                element,
                "failure",
                metric.details,
                message=f"{metric.metric_name} (score {metric.score:.2f}): {metric.details}",
                type=metric.metric_name,
            )
        outcome = "failures"
    elif all(m.passed is None for m in case.metrics):
        _sub(element, "skipped", message="no metric applied to this case (all n.a.)")
        outcome = "skipped"
    _sub(element, "system-out", _system_out(case))
    return outcome


@dataclass(frozen=True)
class JUnitReporter:
    """JUnit XML for CI test-report views."""

    name: str = "junit"
    description: str = "JUnit XML: one test case per OpenEval case, for GitLab/Jenkins/Buildkite"

    def render(self, suite: SuiteResult) -> str:
        """Return the JUnit XML document, UTF-8 declared, ending in a newline."""
        suite_name = suite.metadata.get("suite")
        name = suite_name if isinstance(suite_name, str) and suite_name else CLASSNAME
        root = ET.Element("testsuites", name=CLASSNAME)
        testsuite = _sub(root, "testsuite", name=name)
        properties = _sub(testsuite, "properties")
        rate = suite.pass_rate
        _sub(properties, "property", name="pass_rate", value="none" if rate is None else repr(rate))
        if suite.fail_under is not None:
            _sub(properties, "property", name="fail_under", value=repr(suite.fail_under))
        gate = "passed" if suite.gate_passed else "failed"
        _sub(properties, "property", name="gate", value=gate)

        counts = {"tests": len(suite.cases), "failures": 0, "errors": 0, "skipped": 0}
        for case in suite.cases:
            outcome = _testcase(testsuite, case)
            if outcome is not None:
                counts[outcome] += 1
        for key in ("tests", "failures", "errors", "skipped"):
            testsuite.set(key, str(counts[key]))
        # junit-10.xsd gives <testsuites> no "skipped" attribute.
        for key in ("tests", "failures", "errors"):
            root.set(key, str(counts[key]))
        ET.indent(root, space="  ")
        body = ET.tostring(root, encoding="unicode")
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


REPORTER = JUnitReporter()

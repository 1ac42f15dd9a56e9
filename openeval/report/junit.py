"""JUnit XML: the test-report format that GitLab, Jenkins, Buildkite and most CI systems read.

One ``testsuite`` holds one ``testcase`` per OpenEval case (``name`` = the case id). A case
carries an ``error`` element when it could not be scored or a check errored, else one
``failure`` element per failed metric or check, or ``skipped`` when nothing was judged (its
status is n.a.). Every result's verdict is also listed in the case's ``system-out``, which CI
systems show beside the test, followed by the notes of results that passed (``note: step_budget:
timeout_seconds 5 not checked ...``): worth a look, never a failure. A case with trials is one
``testcase``: its failures are the failed checks of its trials, each named by its trace, and
``system-out`` lists every trial's verdict.
The suite's ``properties`` carry the pass rate, the floors, each per-metric gate (``gate:NAME``)
and, with trials, the mean pass^k / pass@k per k. Outcomes follow the case status of the shared
record, so JUnit, Markdown and ``summary.json`` always agree.

The suite's ``failures``/``errors``/``skipped`` attributes count test cases, the usual JUnit
meaning (``tests`` minus the three is the number that passed), not failure elements. Only
elements and attributes of the common Jenkins ``junit-10.xsd`` shape are written; no
timestamps, durations or host names, so the same suite always gives the same bytes.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from openeval.results.records import CaseResult, CheckResult, SuiteResult

CLASSNAME = "openeval"
"""The ``classname`` of every test case (CI systems group by it)."""

# Characters XML 1.0 cannot hold at all, even escaped: ElementTree would write them raw and
# produce a file no parser accepts, so they are replaced by a visible escape.
_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Return ``text`` with the characters XML 1.0 forbids written as ``\\xNN`` / ``\\uNNNN``."""
    return _NOT_XML.sub(lambda m: ascii(m.group())[1:-1], text)


_VERDICT = {"pass": "pass", "fail": "FAIL", "n.a.": "n.a.", "error": "ERROR"}


def _verdict(check: CheckResult) -> str:
    """The verdict word of a result's line; ``report only`` for a pass line of 0."""
    return "report only" if check.report_only else _VERDICT[check.verdict]


def _trial_lines(case: CaseResult) -> list[str]:
    label = f", {case.stability}" if case.stability is not None else ""
    lines = [f"trials: {sum(t.passed for t in case.trials)} of {len(case.trials)} passed, rule "
             f"{case.trials_rule}{label}"]
    for trial in case.trials:
        fmt = f" ({trial.trace_format})" if trial.trace_format else ""
        lines.append(f"trial {trial.trial_label}{fmt}: {trial.status}")
        lines += [
            f"  {c.name}: {_verdict(c)} (score {c.score_text()}) {c.details}"
            for c in trial.checks
        ]
        if trial.error is not None:
            lines.append(f"  error: {trial.error}")
        lines += _note_lines(trial, "  ")
    return lines


def _system_out(case: CaseResult) -> str:
    if case.trials:
        lines = [f"testcase: {case.testcase_path or '-'}", *_trial_lines(case)]
        if case.error is not None:
            lines.append(f"error: {case.error}")
        return "\n".join(lines) + "\n"
    lines = [f"testcase: {case.testcase_path or '-'}"]
    trace = case.trace_path or "-"
    fmt = f" ({case.trace_format})" if case.trace_format else ""
    lines.append(f"trace: {trace}{fmt}")
    lines += [
        f"{c.name}: {_verdict(c)} (score {c.score_text()}) {c.details}"
        for c in case.checks
    ]
    if case.error is not None:
        lines.append(f"error: {case.error}")
    lines += [f"warning: {w}" for w in case.warnings]
    lines += _note_lines(case, "")
    return "\n".join(lines) + "\n"


def _note_lines(record: CaseResult, indent: str) -> list[str]:
    """Notes of the results that passed: shown, never a failure element."""
    return [f"{indent}note: {c.name}: {note}" for c in record.checks if c.verdict == "pass"
            for note in c.notes]


def _sub(parent: ET.Element, tag: str, text: str | None = None, **attrib: str) -> ET.Element:
    element = ET.SubElement(parent, tag, {k: xml_text(v) for k, v in attrib.items()})
    if text is not None:
        # XML parsers turn CR and CRLF in text into LF anyway; writing LF keeps bytes honest.
        element.text = xml_text(text.replace("\r\n", "\n").replace("\r", "\n"))
    return element


def _testcase(parent: ET.Element, case: CaseResult) -> str | None:
    """Write ``case``; return its outcome element's kind (None when it passed)."""
    element = _sub(parent, "testcase", name=case.case_id, classname=CLASSNAME)
    if case.stability is not None:
        _sub(_sub(element, "properties"), "property", name="stability", value=case.stability)
    outcome: str | None = None
    status = case.status
    if status == "error":
        reasons = [case.error] if case.error is not None else []
        for record in case.judged():
            prefix = f"{record.trial_label}: " if record is not case else ""
            if record is not case and record.error is not None:
                reasons.append(prefix + record.error)
            reasons += [f"{prefix}{c.name}: {c.details}" for c in record.checks
                        if c.verdict == "error"]
        text = "\n".join(reasons)
        first_line = text.splitlines()[0] if text.strip() else "case errored"
        _sub(element, "error", text, message=first_line, type="OpenEvalError")
        outcome = "errors"
    elif status == "failed":
        for record in case.judged():
            prefix = f"{record.trial_label}: " if record is not case else ""
            for check in record.checks:
                if check.verdict != "fail":
                    continue
                _sub(
                    element,
                    "failure",
                    check.details,
                    message=f"{prefix}{check.name} (score {check.score_text()}): "
                            f"{check.details}",
                    type=check.spec.kind,
                )
        outcome = "failures"
    elif status == "n.a.":
        _sub(element, "skipped", message="nothing was judged in this case (every result n.a.)")
        outcome = "skipped"
    _sub(element, "system-out", _system_out(case))
    return outcome


def _gate_properties(properties: ET.Element, suite: SuiteResult) -> None:
    """The case floor, each per-metric gate and the trials' figures, as suite properties."""
    summary = suite.summary
    if suite.fail_under_cases is not None:
        rate = summary.case_pass_rate
        _sub(properties, "property", name="case_pass_rate",
             value="none" if rate is None else repr(rate))
        _sub(properties, "property", name="fail_under_cases", value=repr(suite.fail_under_cases))
    for g in summary.gates:
        figure = "none" if g.figure is None else repr(g.figure)
        verdict = "passed" if g.passed else "failed"
        _sub(properties, "property", name=f"gate:{g.name}",
             value=f"{verdict}: {figure} (needs {g.line!r})")
    trials = summary.trials
    if trials is None:
        return
    _sub(properties, "property", name="trials",
         value=f"{trials.cases} cases, {trials.trials} trials, {trials.passed_trials} passed")
    for label, count in trials.stability or ():
        _sub(properties, "property", name=f"stability:{label}", value=str(count))
    for m in trials.by_k:
        _sub(properties, "property", name=f"pass_hat_k:{m.k}", value=repr(m.pass_hat_k))
        _sub(properties, "property", name=f"pass_at_k:{m.k}", value=repr(m.pass_at_k))


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
        rate = suite.summary.pass_rate
        _sub(properties, "property", name="pass_rate", value="none" if rate is None else repr(rate))
        if suite.fail_under is not None:
            _sub(properties, "property", name="fail_under", value=repr(suite.fail_under))
        gate = "passed" if suite.gate_passed else "failed"
        _sub(properties, "property", name="gate", value=gate)
        _gate_properties(properties, suite)

        summary = suite.summary
        for case in suite.cases:
            _testcase(testsuite, case)
        counts = {
            "tests": summary.cases,
            "failures": summary.failed_cases,
            "errors": summary.errored_cases,
            "skipped": summary.not_evaluated_cases,
        }
        for key in ("tests", "failures", "errors", "skipped"):
            testsuite.set(key, str(counts[key]))
        # junit-10.xsd gives <testsuites> no "skipped" attribute.
        for key in ("tests", "failures", "errors"):
            root.set(key, str(counts[key]))
        ET.indent(root, space="  ")
        body = ET.tostring(root, encoding="unicode")
        return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'


REPORTER = JUnitReporter()

"""GitHub workflow-command annotations: one line per failed or errored case.

Printed to a job's log, each ``::error file=...,title=...::message`` line becomes an annotation
on the test case file in the pull request's diff view, so a reviewer sees which case broke and
why without opening the log. The encoding follows GitHub's documented workflow-command format:
in the message ``%``, CR and LF are percent-encoded; in a property value ``:`` and ``,`` are too.

A failed case is an ``error`` when the run fails the gate and a ``warning`` when the gate still
passed (a ``--fail-under`` run tolerating some failures): a green check beside red annotations
would contradict itself. An errored case always fails the gate, so it is always an ``error``.
The first line is the run's verdict, so GitHub's per-step cap on annotations never hides it;
each per-metric gate that failed follows as an annotation of its own. A case with trials says
how many passed and what each failing trial got wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from openeval.results.records import CaseResult, SuiteResult

Severity = Literal["error", "warning", "notice"]

MAX_ANNOTATIONS = 10
"""Case annotations written at most: GitHub shows 10 annotations of each kind per step, and
more would only hide the verdict line's neighbours."""

_DATA_ESCAPES = (("%", "%25"), ("\r", "%0D"), ("\n", "%0A"))
_PROPERTY_ESCAPES = (*_DATA_ESCAPES, (":", "%3A"), (",", "%2C"))


def escape_data(text: str) -> str:
    """Return ``text`` encoded for the message part of a workflow command."""
    for raw, encoded in _DATA_ESCAPES:  # "%" first, so the other escapes are not re-escaped
        text = text.replace(raw, encoded)
    return text


def escape_property(text: str) -> str:
    """Return ``text`` encoded for a property value (``file=``, ``title=``)."""
    for raw, encoded in _PROPERTY_ESCAPES:
        text = text.replace(raw, encoded)
    return text


def command(
    severity: Severity, message: str, *, file: str | None = None, title: str | None = None
) -> str:
    """Return one workflow-command line (no newline); properties that are None are left out."""
    props = [
        f"{key}={escape_property(value)}"
        for key, value in (("file", file), ("title", title))
        if value is not None
    ]
    head = f"::{severity} {','.join(props)}" if props else f"::{severity}"
    return f"{head}::{escape_data(message)}"


def verdict_line(suite: SuiteResult) -> str:
    """Return the one-line verdict of the run: pass rate, case counts and the gate."""
    s = suite.summary
    rate = s.pass_rate
    rate_text = (
        "no pass rate: nothing evaluated"
        if rate is None
        else f"pass rate {rate:.1%} ({s.results.passed} of {s.results.judged} results)"
    )
    gate = "gate passed" if s.gate_passed else "gate failed"
    if suite.fail_under is not None:
        gate += f" ({suite.gate_source('fail_under')})"
    if suite.fail_under_cases is not None:
        gate += f" ({suite.gate_source('fail_under_cases')})"
    if s.gates:
        gate += f"; {sum(g.passed for g in s.gates)} of {len(s.gates)} metric gates passed"
    return (
        f"{rate_text}; {s.cases} cases: {s.passed_cases} passed, {s.failed_cases} failed, "
        f"{s.errored_cases} errored, {s.not_evaluated_cases} n.a.; {gate}"
    )


def gate_message(suite: SuiteResult) -> list[str]:
    """Return one annotation line per per-metric gate that failed."""
    return [
        command("error", f"{g.reason} ({suite.gate_source(f'gates.{g.name}')})",
                title=f"OpenEval gate: {g.name}")
        for g in suite.summary.gates if not g.passed
    ]


def trials_message(case: CaseResult) -> str:
    """Return how the trials of ``case`` went: the count, then each failing trial's reasons."""
    passed = sum(t.passed for t in case.trials)
    lines = [f"{passed} of {len(case.trials)} trials passed (rule {case.trials_rule})"]
    if case.error is not None:
        lines.append(f"could not be judged: {case.error}")
    for trial in case.trials:
        if not trial.passed:
            reason = case_message(trial).replace("\n", "\n  ")
            lines.append(f"- {trial.trial_label}: {reason}")
    return "\n".join(lines)


def case_message(case: CaseResult) -> str:
    """Return why ``case`` failed or errored, one result per line; empty when it passed."""
    if case.trials:
        return trials_message(case)
    if case.error is not None:
        return f"could not be scored: {case.error}"
    bad = [c for c in case.checks if c.verdict in ("fail", "error")]
    lines = [f"{len(bad)} of {len(case.checks)} results did not pass:"]
    lines += [
        f"- {c.name} ({'errored' if c.verdict == 'error' else 'score ' + c.score_text()}): "
        f"{c.details}"
        for c in bad
    ]
    return "\n".join(lines) if bad else ""


@dataclass(frozen=True)
class GitHubReporter:
    """Workflow-command annotations for a GitHub Actions log."""

    name: str = "github"
    description: str = "GitHub Actions annotations: one ::error line per failed or errored case"

    def render(self, suite: SuiteResult) -> str:
        """Return the verdict line, then one annotation per failed or errored case in suite
        order; past :data:`MAX_ANNOTATIONS` cases, errored ones first and a notice of how many
        were left out."""
        verdict: Severity = "notice" if suite.gate_passed else "error"
        lines = [command(verdict, verdict_line(suite), title="OpenEval"), *gate_message(suite)]
        bad = [c for c in suite.cases if not c.passed]
        if len(bad) > MAX_ANNOTATIONS:  # too many to show: a broken pipeline goes first
            bad.sort(key=lambda c: not c.errored)  # stable: suite order within each group
        for case in bad[:MAX_ANNOTATIONS]:
            severity: Severity = "error" if case.errored or not suite.gate_passed else "warning"
            outcome = "errored" if case.errored else "failed"
            lines.append(
                command(
                    severity,
                    case_message(case),
                    file=case.testcase_path,
                    title=f"OpenEval: {case.case_id} {outcome}",
                )
            )
        left_out = len(bad) - MAX_ANNOTATIONS
        if left_out > 0:
            lines.append(command(
                "notice",
                f"{left_out} more failed or errored case(s) not annotated (GitHub shows only "
                f"{MAX_ANNOTATIONS} annotations of a kind per step); every case is in the job "
                "summary and the results folder",
                title="OpenEval",
            ))
        return "\n".join(lines) + "\n"


REPORTER = GitHubReporter()

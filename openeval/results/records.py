"""The result record: what one check found on one case, what one case found, and a whole run.

Every metric, built-in check and user check of a case produces one :class:`CheckResult`: the
:class:`CheckSpec` that built it (kind, instance name, settings, pass line), a four-state
verdict (``pass``, ``fail``, ``n.a.``, ``error``), its named scores and one line of details.
A :class:`CaseResult` holds a case's check results, or the reason it could not be scored; a case
run several times holds one :class:`CaseResult` per trial instead, and its own verdict follows
its trials rule (:mod:`openeval.results.trials`). A :class:`SuiteResult` holds every case of a
run and the gates it is held to, and computes its :class:`~openeval.results.summary.Summary`
once. Every reporter, ``summary.json`` and the GitHub Action read these values
and nothing else (proposals/0002-scoring-core.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Literal

from openeval.results.excerpt import TraceExcerpt
from openeval.results.trials import (
    DEFAULT_FLAKY_BAND,
    DEFAULT_RULE,
    FlakyBand,
    Stability,
    TrialsRule,
    TrialStats,
)
from openeval.scores import Score, Verdict

if TYPE_CHECKING:
    from openeval.models import MetricResult
    from openeval.results.summary import Summary

Family = Literal["metric", "check", "code"]
"""Where a check comes from: a metric, a built-in check of :mod:`openeval.checks`, user code."""

CaseStatus = Literal["passed", "failed", "error", "n.a."]
"""``error``: the case could not be scored, or a check errored. ``n.a.``: nothing was judged."""


def boolean_text(score: Score) -> str:
    """Return a BOOLEAN score as a report cell says it.

    A higher-is-better boolean reads as ``true``/``false``. One that flags a problem (lower is
    better: ``refused``, ``tool_loop``) says what it found, since "false" under a pass reads
    backwards: ``refused`` / ``not refused``, ``tool loop`` / ``no tool loop``.
    """
    if score.higher_is_better is not False:
        return "true" if score.value else "false"
    words = (score.name or "").replace("_", " ").strip()
    if not words:
        return "flagged" if score.value else "not flagged"
    if score.value:
        return words
    # A single participle ("refused", "degenerated") negates with "not", a noun with "no".
    return f"not {words}" if " " not in words and words.endswith("ed") else f"no {words}"


@dataclass(frozen=True)
class CheckSpec:
    """What to run: a registered kind, the name it shows under, its settings and pass line."""

    kind: str
    """The registry name: ``tool_selection_accuracy``, ``json_validity``, a code path ..."""
    name: str
    """The instance name shown in reports and used by gates; unique within a case."""
    family: Family = "metric"
    settings: Mapping[str, Any] = field(default_factory=dict)
    """Keyword settings, as JSON values."""
    threshold: float | None = None
    """The pass line of the primary NUMERIC score, when the entry gives one."""
    arguments: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    """The settings as the check function takes them, checked and converted once when the plan
    was compiled; None for a spec read back from a result file (never written to one)."""

    def to_dict(self) -> dict[str, Any]:
        """Return the spec as a JSON object."""
        return {
            "kind": self.kind,
            "name": self.name,
            "family": self.family,
            "settings": dict(self.settings),
            "threshold": self.threshold,
        }


@dataclass(frozen=True)
class CheckResult:
    """The outcome of one check instance on one case."""

    spec: CheckSpec
    verdict: Verdict
    """``pass``, ``fail``, ``n.a.`` (nothing to judge) or ``error`` (never a pass)."""
    scores: tuple[Score, ...] = ()
    """Every score the check returned, primary first; empty when n.a. or errored."""
    details: str = ""
    """One line a person reading a CI log can act on."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """Structured findings beside the details, JSON values only and bounded (the scorer cuts
    it at :data:`~openeval.scoring.scorer.MAX_DATA_BYTES`): ``alignment`` and
    ``first_divergence`` from the metrics that pair expected and executed calls, ``notes``
    worth a look on a pass (proposals/0050). Empty for most results, and then left out of the
    result file, so a file without it reads as before."""

    @property
    def notes(self) -> tuple[str, ...]:
        """The ``notes`` of :attr:`data`: things worth a look that did not fail the check
        (``extra: send_email``, ``timeout_seconds 5 not checked``)."""
        found = self.data.get("notes")
        if not isinstance(found, list | tuple):
            return ()
        return tuple(note for note in found if isinstance(note, str))

    @property
    def report_only(self) -> bool:
        """Whether a pass line of 0 makes this result unfailable: its score is reported, not
        judged (``data.report_only``, set by the scorer; reports show it as "report only")."""
        return self.data.get("report_only") is True

    @property
    def verdict_label(self) -> str:
        """The verdict as a report shows it: ``report only`` for a :attr:`report_only` result
        (its pass cannot be missed, so calling it a pass would say more than it does), else
        the verdict."""
        return "report only" if self.report_only else self.verdict

    @property
    def name(self) -> str:
        """The instance name (``spec.name``)."""
        return self.spec.name

    @property
    def passed(self) -> bool | None:
        """True on pass, False on fail or error, None when not evaluated."""
        if self.verdict == "n.a.":
            return None
        return self.verdict == "pass"

    @property
    def primary(self) -> Score | None:
        """The first score, or None when there is none."""
        return self.scores[0] if self.scores else None

    def score_text(self) -> str:
        """Return the primary score for a report cell: ``0.75``, ``true``, a category, or ``-``."""
        primary = self.primary
        if primary is None:
            return "-"
        value = primary.value
        if isinstance(value, bool):
            return boolean_text(primary)
        if isinstance(value, (int, float)):
            return f"{value:.2f}"
        return value

    def to_dict(self) -> dict[str, Any]:
        """Return the result as the JSON object of a result file's ``checks`` list."""
        spec = self.spec
        if type(spec) is CheckSpec:  # CheckSpec.to_dict's keys written here: one dict, not two
            document: dict[str, Any] = {
                "kind": spec.kind, "name": spec.name, "family": spec.family,
                "settings": dict(spec.settings), "threshold": spec.threshold,
                "verdict": self.verdict, "details": self.details,
                "scores": [s.to_dict() for s in self.scores],
            }
        else:
            document = {
                **spec.to_dict(),
                "verdict": self.verdict,
                "details": self.details,
                "scores": [s.to_dict() for s in self.scores],
            }
        if self.data:
            document["data"] = dict(self.data)
        return document

    @classmethod
    def of_metric(cls, result: MetricResult, threshold: float | None = None) -> CheckResult:
        """Return the record of a metric's public :class:`MetricResult` (n.a.: no score)."""
        name = result.metric_name
        if result.passed is None:
            return cls(CheckSpec(name, name, "metric", threshold=threshold), "n.a.", (),
                       result.details)
        scores = (Score(result.score, "NUMERIC", None, name, True),)
        return cls(CheckSpec(name, name, "metric", threshold=threshold),
                   "pass" if result.passed else "fail", scores, result.details)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CheckResult:
        """Build a result from its JSON object (already schema-checked)."""
        spec = CheckSpec(
            kind=data["kind"],
            name=data["name"],
            family=data["family"],
            settings=data["settings"],
            threshold=data["threshold"],
        )
        return cls(
            spec=spec,
            verdict=data["verdict"],
            scores=tuple(Score.from_dict(s) for s in data["scores"]),
            details=data["details"],
            data=data.get("data", {}),
        )


_new = object.__new__
_set = object.__setattr__


def check_result(spec: CheckSpec, verdict: Verdict, scores: tuple[Score, ...],
                 details: str, data: Mapping[str, Any] | None = None) -> CheckResult:
    """Return ``CheckResult(spec, verdict, scores, details, data)`` (a new empty ``data`` when
    None), equal to it, built without the frozen dataclass's ``__init__`` (one guarded
    ``setattr`` per field and the ``data`` factory): the scorer builds one per check per trace
    (proposals/0300-score-loop-once-per-check.md, 0320)."""
    result: CheckResult = _new(CheckResult)
    _set(result, "__dict__", {"spec": spec, "verdict": verdict, "scores": scores,
                              "details": details, "data": {} if data is None else data})
    return result


def kept_check_result(spec: CheckSpec, verdict: Verdict, scores: tuple[Score, ...],
                      details: str, data: Mapping[str, Any] | None = None) -> CheckResult:
    """:func:`check_result` for a result a run keeps until its files are written: the fields
    set one by one, as the dataclass sets them, so the object keeps the compact attribute
    storage its class shares (a ``__dict__`` of its own costs about 200 bytes more per
    result, 24 MB over 10,000 cases of twelve checks), still without the ``__init__`` call
    and its frozen guard (proposals/0320)."""
    result: CheckResult = _new(CheckResult)
    _set(result, "spec", spec)
    _set(result, "verdict", verdict)
    _set(result, "scores", scores)
    _set(result, "details", details)
    _set(result, "data", {} if data is None else data)
    return result


_verdict_of = attrgetter("verdict")


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case: its check results, or the reason it could not be scored.

    A case with trials keeps no checks of its own: each trial is a CaseResult of its own (its
    ``case_id`` is the case's, ``#`` and the trace's path in the case folder), and the case's
    status follows ``trials_rule`` over them. A trial that could not be scored makes the case
    errored whatever the rule: a broken trace is a broken pipeline, not a flaky agent.
    """

    case_id: str
    """Unique, stable id of the case in its suite (its folder or file path, POSIX style)."""
    task_id: str
    """The test case's task id (not unique: two cases may share one)."""
    testcase_path: str | None
    """Path of the test case file as given on the command line or found in the suite."""
    trace_path: str | None
    """Path of the trace file; None when it was never found, or the case has trials."""
    trace_format: str | None
    """The adapter that read the trace; None when it was never read, or the case has trials."""
    checks: tuple[CheckResult, ...] = ()
    """One result per metric and check run, metrics first in registry order, then checks."""
    error: str | None = None
    """Why the case could not be scored (unreadable file, ...); None when it was scored."""
    trace_task_id: str | None = None
    """The task id the trace itself carries (may differ from ``task_id``); None when unread."""
    warnings: tuple[str, ...] = ()
    """Things a reader should check that do not change a verdict (a trace whose own task id
    differs from the test case's)."""
    trials: tuple[CaseResult, ...] = ()
    """One result per trial, in the order of their traces; empty for a case with one trace."""
    trials_rule: str | None = None
    """The rule the trials were judged by (``all``, ``majority``, ``pass_at_k=K``); None
    without trials."""
    trace_excerpt: TraceExcerpt | None = None
    """The first steps of the trace, its final output and the expected output, bounded; kept
    only when the run is asked to (``--html``, ``--keep-steps``), else None and left out of
    the result file."""
    flaky_band: FlakyBand | None = None
    """The band that labels the trials (:attr:`stability`); None for a case without trials,
    and for one read from a result file written before the labels existed."""

    @property
    def errored(self) -> bool:
        """True when the case could not be scored, one of its checks errored, or a trial did."""
        return (
            self.error is not None
            or any(c.verdict == "error" for c in self.checks)
            or any(t.errored for t in self.trials)
        )

    @property
    def status(self) -> CaseStatus:
        """``error``, else ``failed`` when a check failed (for trials: when the rule is not
        met), else ``passed`` when one passed, else ``n.a.`` (nothing was judged)."""
        if self.error is not None:
            return "error"
        # The verdicts gathered once, in C: what errored (the checks' part) and the rest read.
        verdicts = set(map(_verdict_of, self.checks))
        if "error" in verdicts or any(t.errored for t in self.trials):
            return "error"
        if self.trials:
            if all(t.status == "n.a." for t in self.trials):
                return "n.a."
            rule = TrialsRule.parse(self.trials_rule or DEFAULT_RULE)
            passed = sum(t.passed for t in self.trials)
            return "passed" if rule.passes(len(self.trials), passed) else "failed"
        if "fail" in verdicts:
            return "failed"
        return "passed" if "pass" in verdicts else "n.a."

    @property
    def passed(self) -> bool:
        """True when nothing failed or errored (an n.a. case has not failed)."""
        return self.status in ("passed", "n.a.")

    @property
    def trial_stats(self) -> TrialStats | None:
        """The pass count and pass^k / pass@k of the trials; None for a case without trials."""
        if not self.trials:
            return None
        return TrialStats.of(len(self.trials), sum(t.passed for t in self.trials))

    @property
    def stability(self) -> Stability | None:
        """``stable-pass``, ``flaky`` or ``stable-fail`` by :attr:`flaky_band` over the trials
        that did not fail; None without trials or band, and for an errored case (a broken
        trace is the pipeline's fault, not the agent's variance) or one where nothing was
        judged."""
        stats = self.trial_stats
        if stats is None or self.flaky_band is None or self.status in ("error", "n.a."):
            return None
        return self.flaky_band.label(stats.n, stats.passed)

    @property
    def trial_label(self) -> str:
        """What tells this trial from its siblings: the part of ``case_id`` after ``#``."""
        return self.case_id.rpartition("#")[2]

    def judged(self) -> tuple[CaseResult, ...]:
        """Return the records whose checks count in pass rates: the trials, else the case."""
        return self.trials or (self,)

    def verdicts(self, name: str) -> list[Verdict]:
        """Return the verdicts of check ``name`` in this case: one per trial that ran it (or
        the case's own, at most one)."""
        return [c.verdict for record in self.judged() for c in record.checks if c.name == name]

    def verdict_cell(self, name: str) -> str | None:
        """Return check ``name``'s verdict when every trial agrees on it (``report only`` when
        each of those results is :attr:`CheckResult.report_only`), else how many of the trials
        that judged it passed (``2/3``); None when it did not run."""
        found = self.verdicts(name)
        if not found:
            return None
        if len(set(found)) == 1:
            held = [c for record in self.judged() for c in record.checks if c.name == name]
            if all(c.report_only for c in held):
                return "report only"
            return found[0]
        judged = [v for v in found if v != "n.a."]
        return f"{judged.count('pass')}/{len(judged)}"

    def to_dict(self) -> dict[str, Any]:
        """Return the case as the JSON object of its result file (without the version).

        The trial keys are written only for a case that has trials, so the file of a case with
        one trace reads as it always did.
        """
        document: dict[str, Any] = {
            "case_id": self.case_id,
            "task_id": self.task_id,
            "testcase": self.testcase_path,
            "trace": self.trace_path,
            "trace_format": self.trace_format,
            "status": self.status,
            "error": self.error,
            "checks": [c.to_dict() for c in self.checks],
            "trace_task_id": self.trace_task_id,
            "warnings": list(self.warnings),
        }
        if self.trace_excerpt is not None:
            document["trace_excerpt"] = self.trace_excerpt.to_dict()
        stats = self.trial_stats
        if stats is not None:
            document["trials"] = [t.to_dict() for t in self.trials]
            document["trials_rule"] = self.trials_rule
            document["trial_stats"] = stats.to_dict()
            if self.flaky_band is not None:
                document["stability"] = self.stability
                if not self.flaky_band.is_default:
                    document["flaky_between"] = self.flaky_band.to_list()
        return document

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CaseResult:
        """Build a case from its result-file JSON object (already schema-checked)."""
        return cls(
            case_id=data["case_id"],
            task_id=data["task_id"],
            testcase_path=data.get("testcase"),
            trace_path=data.get("trace"),
            trace_format=data.get("trace_format"),
            checks=tuple(CheckResult.from_dict(c) for c in data.get("checks", [])),
            error=data.get("error"),
            trace_task_id=data.get("trace_task_id"),
            warnings=tuple(data.get("warnings", ())),
            trials=tuple(cls.from_dict(t) for t in data.get("trials", [])),
            trials_rule=data.get("trials_rule"),
            trace_excerpt=(
                TraceExcerpt.from_dict(data["trace_excerpt"]) if "trace_excerpt" in data
                else None
            ),
            flaky_band=_band_of(data),
        )


def _band_of(data: Mapping[str, Any]) -> FlakyBand | None:
    """The band a result file's case was labelled by: written when not the default, implied
    by a ``stability`` key, absent (None) in files older than the labels."""
    if "flaky_between" in data:
        return FlakyBand.parse(data["flaky_between"])
    return DEFAULT_FLAKY_BAND if "stability" in data else None


@dataclass(frozen=True)
class SuiteResult:
    """Every case of a run, in a stable order; :attr:`summary` counts them, once."""

    cases: tuple[CaseResult, ...]
    fail_under: float | None = None
    """The gate's pass-rate floor, when one was given."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Run settings worth recording (suite path, metrics chosen); never wall-clock times."""
    gates: tuple[tuple[str, float], ...] = ()
    """Per-metric gates: ``(metric or check name, lowest pass rate of that name alone)``."""
    fail_under_cases: float | None = None
    """The gate's case-pass-rate floor, when one was given."""
    gate_sources: tuple[tuple[str, str], ...] = ()
    """``(fail_under | fail_under_cases | gates.NAME, file:line)`` for each gate line a
    configuration file set; a line without one came from the command line."""
    gate_notes: tuple[str, ...] = ()
    """Gate lines of a configuration that were not applied, one sentence each (a
    configuration may only tighten the command line's gate)."""

    def gate_source(self, key: str) -> str:
        """Return where gate line ``key`` (``fail_under``, ``fail_under_cases`` or
        ``gates.NAME``) was set, as messages name it: ``openeval.toml:3 fail_under`` for a
        configuration's line, else the flag that gave it (``--fail-under 0.9``)."""
        for named, where in self.gate_sources:
            if named == key:
                return f"{where} {key}"
        if key.startswith("gates."):
            name = key.removeprefix("gates.")
            line = dict(self.gates).get(name)
            shown = "X" if line is None else f"{line:g}"
            return f"--fail-under-metric {name}={shown}"
        line = self.fail_under if key == "fail_under" else self.fail_under_cases
        flag = "--fail-under" if key == "fail_under" else "--fail-under-cases"
        return flag if line is None else f"{flag} {line:g}"

    @cached_property
    def report_only_names(self) -> frozenset[str]:
        """The check names with a :attr:`CheckResult.report_only` result in this run (a pass
        line of 0 that cannot be missed), for the reports to mark them."""
        return frozenset(
            check.name for case in self.cases for record in case.judged()
            for check in record.checks if check.report_only
        )

    @cached_property
    def summary(self) -> Summary:
        """The counts, pass rates and gate verdict of this run, computed once."""
        from openeval.results.summary import Summary

        return Summary.of(self)

    @property
    def pass_rate(self) -> float | None:
        """Passed over judged check results (see :class:`Summary`); None when none was judged."""
        return self.summary.pass_rate

    @property
    def gate_passed(self) -> bool:
        """True when the run passes the gate (docs/semantics.md#pass-rate)."""
        return self.summary.gate_passed

    @property
    def gate_reason(self) -> str:
        """One sentence saying why the gate passed or failed."""
        return self.summary.gate_reason

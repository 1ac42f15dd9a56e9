"""What changed between two runs: a baseline (say, the main branch) and a head (a pull request).

:func:`diff_results` is pure: two :class:`SuiteResult` values in (read from result folders of
any version, 0.2.1 included), one :class:`ResultDiff` out. Cases are matched by ``case_id``,
their path in the suite. Only when one of the two runs has no stable case paths (results of
openeval-core 0.2.1, whose case ids are file names, or of schema version 1) are the cases left
over on both sides matched by ``task_id``, when it names exactly one case on each side: two
runs of today's never pair a deleted case with a new one that shares its task id
(proposals/0191-diff-pairs-by-case-path.md). Each matched case is one of:

- ``regressed``: it passed (or had nothing judged) in the baseline and fails or errors now;
- ``improved``: it failed or errored in the baseline and passes now;
- ``still_failing``: it did not pass in either run;
- ``unchanged``: it passed in both;

and the cases found on one side only have ``appeared`` or ``disappeared``. A case that
disappeared fails the baseline gate unless the run allows it (:class:`BaselinePolicy`):
deleting the failing test is the oldest way to get green.

A case is *flaky* now when its own trials are labelled ``flaky``, or when its verdict (passed
or failed; errors and n.a. leave no mark) flipped at least :data:`FLIPS_FOR_FLAKY` times over
the earlier runs given as ``history``, the baseline and this run; it is *newly* flaky when it
was not flaky by the same rule before this run (proposals/0190-flaky-labels.md).

A case *got worse* (:attr:`CaseChange.worse`, what makes ``openeval diff`` exit 1) when it
regressed, when a check of it that passed (or was n.a.) now fails or errors even though the
case was failing already, or when a score dropped by more than the tolerance while its verdict
held. For a case with trials the score compared is the share of trials that passed. The pass
rate of each metric and check is compared over the matched cases only, so cases that appeared
or disappeared do not move it. Proposal 0060.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Literal

from openeval.errors import SuiteError
from openeval.results.records import CaseResult, CaseStatus, CheckResult, SuiteResult
from openeval.results.summary import Summary
from openeval.results.trials import DEFAULT_FLAKY_BAND

ChangeKind = Literal["regressed", "improved", "still_failing", "unchanged", "appeared",
                     "disappeared"]
KINDS: tuple[ChangeKind, ...] = ("regressed", "improved", "still_failing", "unchanged",
                                 "appeared", "disappeared")
"""Every kind of change, in the order reports list them."""

DEFAULT_TOLERANCE = 0.05
"""How far a score may drop, with its verdict unchanged, before it counts as getting worse."""

TRIALS_SCORE = "trials passed"
"""The name a case with trials compares under: the share of its trials that passed."""

_FAILING = ("fail", "error")

FLIPS_FOR_FLAKY = 2
"""Verdict changes across runs that make a case flaky: one change is a regression or a fix;
passed, failed and passed again (or the reverse) is a case that cannot make up its mind."""


@dataclass(frozen=True)
class ScoreDrop:
    """A score that got worse by more than the tolerance while its verdict held."""

    check: str
    base: float
    head: float

    @property
    def drop(self) -> float:
        """How much worse, in the score's own direction (always positive)."""
        return abs(self.base - self.head)

    def to_dict(self) -> dict[str, Any]:
        """Return the drop as a JSON object."""
        return {"check": self.check, "base": self.base, "head": self.head}


@dataclass(frozen=True)
class CaseChange:
    """One case, as it was in the baseline and as it is now."""

    case_id: str
    """The head's case id (the baseline's for a case that disappeared)."""
    kind: ChangeKind
    base_status: CaseStatus | None
    head_status: CaseStatus | None
    testcase_path: str | None = None
    """The head's test case file (the baseline's when it disappeared), for annotations."""
    base_case_id: str | None = None
    """The baseline's case id when it differs (matched by task id)."""
    checks_worse: tuple[str, ...] = ()
    """Checks that passed or were n.a. in the baseline and fail or error now."""
    checks_better: tuple[str, ...] = ()
    """Checks that failed or errored in the baseline and pass now."""
    score_drops: tuple[ScoreDrop, ...] = ()
    flaky: str | None = None
    """Why the case is flaky now (``trials 2 of 3 passed``, ``verdict flipped 2 times over 4
    runs``); None when it is not."""
    new_flaky: bool = False
    """True when the case is flaky now and was not before this run."""

    @property
    def worse(self) -> bool:
        """True when the case regressed, a check of it newly fails, or a score dropped."""
        return self.kind == "regressed" or bool(self.checks_worse) or bool(self.score_drops)

    def to_dict(self) -> dict[str, Any]:
        """Return the change as a JSON object."""
        return {
            "case_id": self.case_id,
            "kind": self.kind,
            "worse": self.worse,
            "base_status": self.base_status,
            "head_status": self.head_status,
            "testcase": self.testcase_path,
            "base_case_id": self.base_case_id,
            "checks_worse": list(self.checks_worse),
            "checks_better": list(self.checks_better),
            "score_drops": [d.to_dict() for d in self.score_drops],
            "flaky": self.flaky,
            "new_flaky": self.new_flaky,
        }


@dataclass(frozen=True)
class RateChange:
    """A pass rate in the baseline and now; either side None when nothing was judged there."""

    name: str
    base: float | None
    head: float | None

    @property
    def delta(self) -> float | None:
        """Head minus baseline; None unless both are known."""
        if self.base is None or self.head is None:
            return None
        return self.head - self.base

    def to_dict(self) -> dict[str, Any]:
        """Return the change as a JSON object."""
        return {"name": self.name, "base": self.base, "head": self.head, "delta": self.delta}


@dataclass(frozen=True)
class ResultDiff:
    """Everything that changed between a baseline run and a head run."""

    tolerance: float
    base_cases: int
    head_cases: int
    matched: int
    """Cases found in both runs."""
    matched_by_task_id: int
    """Of those, the ones paired by task id rather than case id."""
    changes: tuple[CaseChange, ...]
    """Every case of both runs: the head's in its order, then those that disappeared."""
    per_check: tuple[RateChange, ...]
    """Pass rate of each metric and check over the matched cases."""
    pass_rate: RateChange
    """Each run's own pass rate, over all its cases."""
    case_pass_rate: RateChange
    """Each run's own case pass rate, over all its cases."""
    history: int = 0
    """How many runs before the baseline were looked at for flaky verdicts."""

    @property
    def regressions(self) -> tuple[CaseChange, ...]:
        """The cases that got worse (see :attr:`CaseChange.worse`), in head order."""
        return tuple(c for c in self.changes if c.worse)

    @property
    def removed(self) -> tuple[CaseChange, ...]:
        """The baseline's cases this run no longer has."""
        return self.of_kind("disappeared")

    @property
    def flaky(self) -> tuple[CaseChange, ...]:
        """The cases of this run that are flaky (see :attr:`CaseChange.flaky`), in order."""
        return tuple(c for c in self.changes if c.flaky is not None)

    @property
    def new_flaky(self) -> tuple[CaseChange, ...]:
        """The flaky cases that were not flaky before this run."""
        return tuple(c for c in self.changes if c.new_flaky)

    def of_kind(self, kind: ChangeKind) -> tuple[CaseChange, ...]:
        """Return the changes of one kind, in order."""
        return tuple(c for c in self.changes if c.kind == kind)

    def counts(self) -> dict[ChangeKind, int]:
        """Return how many cases are of each kind, every kind listed."""
        found = Counter(c.kind for c in self.changes)
        return {kind: found[kind] for kind in KINDS}

    def to_dict(self) -> dict[str, Any]:
        """Return the diff as a JSON object (``openeval diff --format json``)."""
        return {
            "tolerance": self.tolerance,
            "base_cases": self.base_cases,
            "head_cases": self.head_cases,
            "matched": self.matched,
            "matched_by_task_id": self.matched_by_task_id,
            "counts": self.counts(),
            "regressions": [c.case_id for c in self.regressions],
            "removed": [c.case_id for c in self.removed],
            "flaky": [c.case_id for c in self.flaky],
            "new_flaky": [c.case_id for c in self.new_flaky],
            "history": self.history,
            "changes": [c.to_dict() for c in self.changes],
            "per_check": [r.to_dict() for r in self.per_check],
            "pass_rate": self.pass_rate.to_dict(),
            "case_pass_rate": self.case_pass_rate.to_dict(),
        }


@dataclass(frozen=True)
class BaselinePolicy:
    """What fails the baseline gate: a case that got worse (unless ``allow_regressions``), a
    case that disappeared (unless ``allow_removed``) and, with ``fail_on_new_flaky``, a case
    that is newly flaky."""

    allow_regressions: bool = False
    allow_removed: bool = False
    fail_on_new_flaky: bool = False

    def failures(self, diff: ResultDiff) -> list[str]:
        """Return why ``diff`` fails the gate, one phrase per reason; empty when it holds."""
        found = []
        if diff.regressions and not self.allow_regressions:
            found.append(f"{len(diff.regressions)} case(s) got worse")
        if diff.removed and not self.allow_removed:
            found.append(f"{len(diff.removed)} case(s) of the baseline disappeared "
                         "(--allow-removed accepts that)")
        if diff.new_flaky and self.fail_on_new_flaky:
            found.append(f"{len(diff.new_flaky)} case(s) newly flaky (--fail-on-new-flaky)")
        return found

    def fails(self, diff: ResultDiff) -> bool:
        """True when ``diff`` fails the gate."""
        return bool(self.failures(diff))


def has_case_paths(suite: SuiteResult) -> bool:
    """True when the run's case ids are stable case paths: every run of today's; not the
    results of openeval-core 0.2.1 (file names) or of schema version 1, which the reader marks
    with ``read_from``."""
    return "read_from" not in suite.metadata


def _pairs(
    base: tuple[CaseResult, ...], head: tuple[CaseResult, ...], *, by_task_id: bool
) -> tuple[list[tuple[CaseResult, CaseResult]], int]:
    """Return ``(base, head)`` pairs in head order, and how many were paired by task id (only
    ``by_task_id``: when a side has no stable case paths)."""
    by_id = {c.case_id: c for c in base}
    paired: dict[str, CaseResult] = {}  # head case id -> base case
    for case in head:
        if case.case_id in by_id:
            paired[case.case_id] = by_id[case.case_id]
    if not by_task_id:
        return [(paired[c.case_id], c) for c in head if c.case_id in paired], 0
    used = {c.case_id for c in paired.values()}
    base_left = [c for c in base if c.case_id not in used]
    head_left = [c for c in head if c.case_id not in paired]
    base_tasks = Counter(c.task_id for c in base_left)
    head_tasks = Counter(c.task_id for c in head_left)
    by_task = {c.task_id: c for c in base_left if base_tasks[c.task_id] == 1}
    by_task_count = 0
    for case in head_left:
        match = by_task.get(case.task_id)
        if match is not None and head_tasks[case.task_id] == 1:
            paired[case.case_id] = match
            by_task_count += 1
    return [(paired[c.case_id], c) for c in head if c.case_id in paired], by_task_count


def _direction(check: CheckResult) -> bool | None:
    """Return True when a higher primary score is better, False when lower is, None unknown."""
    primary = check.primary
    if primary is None or isinstance(primary.value, (bool, str)):
        return None
    if primary.higher_is_better is not None:
        return primary.higher_is_better
    # Metric scores run from 0 to 1, best at 1; older result files did not say so.
    return True if check.spec.family == "metric" else None


def _score_drop(name: str, base: float, head: float, higher: bool, tolerance: float
                ) -> ScoreDrop | None:
    worse_by = base - head if higher else head - base
    # Rounded: 0.9 - 0.85 is 0.05000000000000004, which must not exceed a 0.05 tolerance.
    return ScoreDrop(name, base, head) if round(worse_by, 9) > tolerance else None


def _compare_checks(
    base: CaseResult, head: CaseResult, tolerance: float
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[ScoreDrop, ...]]:
    if base.trials or head.trials:
        base_stats, head_stats = base.trial_stats, head.trial_stats
        base_share = base_stats.pass_hat_k[0] if base_stats else float(base.passed)
        head_share = head_stats.pass_hat_k[0] if head_stats else float(head.passed)
        drop = _score_drop(TRIALS_SCORE, base_share, head_share, True, tolerance)
        # A case whose verdict changed says so already; only a verdict that held needs this.
        held = base.passed == head.passed
        return (), (), (drop,) if drop is not None and held else ()
    before = {c.name: c for c in base.checks}
    worse, better, drops = [], [], []
    for check in head.checks:
        old = before.get(check.name)
        if old is None:
            continue
        if check.verdict in _FAILING and old.verdict not in _FAILING:
            worse.append(check.name)
        elif old.verdict in _FAILING and check.verdict == "pass":
            better.append(check.name)
        elif old.verdict == check.verdict:
            higher, was, now = _direction(check), old.primary, check.primary
            if higher is None or _direction(old) != higher or was is None or now is None:
                continue
            drop = _score_drop(check.name, float(was.value), float(now.value), higher,
                               tolerance)
            if drop is not None:
                drops.append(drop)
    return tuple(worse), tuple(better), tuple(drops)


def _kind(base: CaseResult, head: CaseResult) -> ChangeKind:
    if base.passed:
        return "unchanged" if head.passed else "regressed"
    return "improved" if head.passed else "still_failing"


def _rates(
    base: Iterable[CaseResult], head: Iterable[CaseResult]
) -> tuple[RateChange, ...]:
    before = Summary.count(base, None).per_check
    after = Summary.count(head, None).per_check
    names = list(before) + [n for n in after if n not in before]
    return tuple(
        RateChange(
            name,
            before[name].pass_rate if name in before else None,
            after[name].pass_rate if name in after else None,
        )
        for name in names
    )


def _verdict_mark(case: CaseResult | None) -> bool | None:
    """True passed, False failed, None for no mark (absent, errored or nothing judged)."""
    if case is None or case.status in ("error", "n.a."):
        return None
    return case.status == "passed"


def _flips(marks: Iterable[bool | None]) -> tuple[int, int]:
    """Return how many times the verdicts changed, and over how many runs with a verdict."""
    seen = [m for m in marks if m is not None]
    return sum(a != b for a, b in pairwise(seen)), len(seen)


def _trials_flaky(case: CaseResult | None) -> str | None:
    stats = case.trial_stats if case is not None else None
    if case is None or stats is None:
        return None
    label = case.stability
    if case.flaky_band is None and case.status not in ("error", "n.a."):
        # Written before the labels: its trials say the same under the default band.
        label = DEFAULT_FLAKY_BAND.label(stats.n, stats.passed)
    return f"trials: {stats.passed} of {stats.n} passed" if label == "flaky" else None


def _flaky(runs: list[CaseResult | None]) -> str | None:
    """Why the last of ``runs`` (oldest first; None where the case is absent) is flaky."""
    own = _trials_flaky(runs[-1])
    if own is not None:
        return own
    flips, judged = _flips(_verdict_mark(c) for c in runs)
    if flips >= FLIPS_FOR_FLAKY:
        return f"verdict flipped {flips} times over {judged} runs"
    return None


class _Finder:
    """Finds a case of one earlier run the way the baseline pairs: by case id, and by task id
    (when it names one case) for a run without stable case paths."""

    def __init__(self, suite: SuiteResult) -> None:
        self.by_id = {c.case_id: c for c in suite.cases}
        self.by_task: dict[str, CaseResult] = {}
        if not has_case_paths(suite):
            tasks = Counter(c.task_id for c in suite.cases)
            self.by_task = {c.task_id: c for c in suite.cases if tasks[c.task_id] == 1}

    def find(self, case: CaseResult) -> CaseResult | None:
        return self.by_id.get(case.case_id) or self.by_task.get(case.task_id)


def diff_results(
    base: SuiteResult,
    head: SuiteResult,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    history: Sequence[SuiteResult] = (),
) -> ResultDiff:
    """Return what changed from ``base`` (the baseline run) to ``head``; ``history`` holds
    earlier runs still, newest first, looked at only to tell flaky cases.

    Raises SuiteError when the two runs share no case (a baseline of another suite), saying
    how many cases each holds and a few of their ids.
    """
    pairs, by_task = _pairs(base.cases, head.cases,
                            by_task_id=not (has_case_paths(base) and has_case_paths(head)))
    if not pairs:
        raise SuiteError(
            f"the baseline shares no case with this run: 0 of {len(head.cases)} cases matched "
            f"(baseline: {_sample(base.cases)}; this run: {_sample(head.cases)}); is it the "
            "results of another suite?"
        )
    matched_base = {id(b) for b, _ in pairs}
    matched_head = {h.case_id: b for b, h in pairs}
    earlier = [_Finder(run) for run in reversed(history)]  # oldest first
    changes: list[CaseChange] = []
    for case in head.cases:
        old = matched_head.get(case.case_id)
        before: list[CaseResult | None] = [f.find(old or case) for f in earlier] + [old]
        flaky = _flaky([*before, case])
        new_flaky = flaky is not None and _flaky(before) is None
        if old is None:
            changes.append(CaseChange(case.case_id, "appeared", None, case.status,
                                      case.testcase_path, flaky=flaky, new_flaky=new_flaky))
            continue
        worse, better, drops = _compare_checks(old, case, tolerance)
        changes.append(CaseChange(
            case.case_id, _kind(old, case), old.status, case.status, case.testcase_path,
            old.case_id if old.case_id != case.case_id else None, worse, better, drops,
            flaky, new_flaky,
        ))
    changes += [
        CaseChange(c.case_id, "disappeared", c.status, None, c.testcase_path)
        for c in base.cases if id(c) not in matched_base
    ]
    return ResultDiff(
        tolerance=tolerance,
        base_cases=len(base.cases),
        head_cases=len(head.cases),
        matched=len(pairs),
        matched_by_task_id=by_task,
        changes=tuple(changes),
        per_check=_rates([b for b, _ in pairs], [h for _, h in pairs]),
        pass_rate=RateChange("pass rate", base.summary.pass_rate, head.summary.pass_rate),
        case_pass_rate=RateChange("case pass rate", base.summary.case_pass_rate,
                                  head.summary.case_pass_rate),
        history=len(history),
    )


def _sample(cases: tuple[CaseResult, ...], shown: int = 3) -> str:
    ids = ", ".join(c.case_id for c in cases[:shown])
    more = f" and {len(cases) - shown} more" if len(cases) > shown else ""
    return f"{len(cases)} cases ({ids}{more})" if cases else "no case"

"""One case, end to end: its test case read (merged with its suite configuration) and compiled,
its trace (or each of its trials) read, then scored.

:func:`evaluate_case` raises :class:`~openeval.errors.OpenEvalError` when a file cannot be
read (single-case mode reports that as bad usage); :func:`run_case` turns that into an errored
:class:`~openeval.results.records.CaseResult`, so a suite goes on and nothing is dropped.
:class:`RunPlan` is everything a run adds to the case files, as one picklable value that any
engine (a process pool under spawn, a Ray worker) can carry to where the case is scored.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from openeval.errors import OpenEvalError, TestCaseError
from openeval.results.records import CaseResult
from openeval.results.trials import DEFAULT_FLAKY_BAND, DEFAULT_RULE, FlakyBand, TrialsRule
from openeval.suite.discover import display_path

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.models import AgentTrace, EvalTestCase
    from openeval.results.excerpt import TraceExcerpt
    from openeval.scoring.plan import CasePlan
    from openeval.suite.config import MergedCase, SuiteConfig
    from openeval.trust import CodePolicy


@dataclass(frozen=True)
class RunPlan:
    """The settings of a run that apply to every case; picklable, holds no live objects."""

    metrics: tuple[str, ...] | None = None
    """Narrow every case to these metric names; None for the case's own selection."""
    format: str | None = None
    """Read every trace with this adapter instead of detecting its format."""
    options: LoadOptions | None = None
    """Read limits and the Fixtura agent spec."""
    confine_to: str | None = None
    """Traces must lie in this folder (the suite's, symbolic links resolved); None: a ``trace``
    key must stay in its test case's folder, and a trace named on the command line is free."""
    allow_outside: bool = False
    """Lift the confinement (``--allow-outside-suite``)."""
    code_time_limit: float | None = None
    """Seconds a code check may run when its entry sets no ``time_limit``; None for 5 s."""
    config: SuiteConfig | None = None
    """The suite's configuration files, merged under each case's test case."""
    trials_rule: str | None = None
    """The trials rule for every case with trials, over the configuration's (``--trials-rule``)."""
    keep_steps: bool = False
    """Keep a bounded excerpt of each trace in its result (``--keep-steps``, ``--html``)."""

    @cached_property
    def code(self) -> CodePolicy:
        """:func:`code_policy` of this plan, resolved on its first case (one ``realpath`` per
        run, not one per case)."""
        from openeval.trust import REFUSE_ALL

        policy = self.options.code if self.options is not None else REFUSE_ALL
        if self.allow_outside:
            return policy.confined_to(None)
        return policy.confined_to(self.confine_to or os.getcwd())

    @classmethod
    def of(
        cls,
        metrics: Sequence[str] | None = None,
        format: str | None = None,
        options: LoadOptions | None = None,
        *,
        confine_to: str | Path | None = None,
        allow_outside: bool = False,
        config: SuiteConfig | None = None,
        trials_rule: str | None = None,
        keep_steps: bool = False,
    ) -> RunPlan:
        """Return a plan, the metric names copied into a tuple and the folder resolved."""
        root = None if confine_to is None else os.path.realpath(confine_to)
        return cls(None if metrics is None else tuple(metrics), format, options, root,
                   allow_outside, config=config, trials_rule=trials_rule,
                   keep_steps=keep_steps)


@dataclass(frozen=True)
class CaseInput:
    """A test case as a run scores it: merged with its configuration and compiled."""

    test_case: EvalTestCase
    plan: CasePlan
    trials_rule: str
    """``--trials-rule``, else the nearest configuration's ``[trials] rule``, else ``all``."""
    merged: MergedCase | None = None
    """The merge, with the origin of every setting; None when no configuration applies."""
    flaky_band: FlakyBand = DEFAULT_FLAKY_BAND
    """The nearest configuration's ``[trials] flaky_between``, else flaky when trials
    disagree."""


def read_case(testcase_path: Path, plan: RunPlan) -> CaseInput:
    """Return a test case merged with its configuration, its compiled plan and its trials rule.

    Raises TestCaseError naming the file, and for a setting that came from a configuration
    file that file, its line and key.
    """
    from openeval.jsonio import read_json_bytes
    from openeval.scoring import compile_plan
    from openeval.suite.config import merge_case
    from openeval.testcase_file import build_test_case, test_case_document

    data = read_json_bytes(testcase_path, error=TestCaseError)
    document, fits = test_case_document(data, testcase_path)
    test_case = build_test_case(document, source=testcase_path, fits_schema=fits)
    layers = plan.config.applying(testcase_path) if plan.config is not None else ()
    rule = DEFAULT_RULE
    policy = code_policy(plan)
    if not layers:
        check_agent_spec_allowed(test_case, plan, policy, testcase_path)
        case_plan = compile_plan(test_case, metrics=plan.metrics, source=testcase_path,
                                 code_time_limit=plan.code_time_limit, code_policy=policy)
        return CaseInput(test_case, case_plan, plan.trials_rule or rule)
    if fits:  # the merge and its errors follow the file's key order: the general parse's
        document, _ = test_case_document(data, testcase_path, typed=False)
    merged = merge_case(document, layers, testcase_path=testcase_path)
    try:
        test_case = build_test_case(merged.document, source=testcase_path)
        check_agent_spec_allowed(test_case, plan, policy, testcase_path)
        case_plan = compile_plan(test_case, metrics=plan.metrics, source=testcase_path,
                                 code_time_limit=plan.code_time_limit, code_policy=policy)
    except OpenEvalError as exc:
        raise merged.relocate(exc) from None
    if merged.trials_rule is not None:
        rule = merged.trials_rule[0]
    band = merged.flaky_band[0] if merged.flaky_band is not None else DEFAULT_FLAKY_BAND
    return CaseInput(test_case, case_plan, plan.trials_rule or rule, merged, band)


def code_policy(plan: RunPlan) -> CodePolicy:
    """Return which user code this run's cases may run: the run's opt-in
    (``plan.options.code``; none by default), check files confined to the suite folder (the
    working folder for a single case), links resolved, unless ``--allow-outside-suite``."""
    return plan.code


def check_agent_spec_allowed(
    test_case: EvalTestCase, plan: RunPlan, policy: CodePolicy, testcase_path: Path
) -> None:
    """Raise TestCaseError when the case's ``agent_spec`` (its own, or its configuration's)
    would import a module the run does not allow; ``--agent-spec`` itself is the run's word."""
    spec = test_case.agent_spec
    if spec is None or (plan.options is not None and spec == plan.options.agent_spec):
        return
    refusal = policy.module_refusal(spec.partition(":")[0])
    if refusal is not None:
        raise TestCaseError(f"agent spec {spec!r} {refusal}", source=display_path(testcase_path),
                            location="agent_spec")


def confine(
    trace_file: Path, root: str, *, source: Path, named_by_key: bool, real: str | None = None,
) -> None:
    """Raise TestCaseError when ``trace_file`` (links resolved) lies outside ``root``.

    In a pull request the test cases are the author's: without this, ``"trace":
    "/etc/passwd"`` or a link beside the test case would put another file's values into
    details, result files and the job summary. ``real`` is the file's real path when the
    caller already knows it (discovery does, from the suite folder's and each link's).
    """
    real = real if real is not None else os.path.realpath(trace_file)
    if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
        return
    what = "its 'trace' key names" if named_by_key else "its trace file links to"
    raise TestCaseError(
        f"{what} {display_path(trace_file)}, which lies outside {display_path(root)}; traces "
        "are read only inside the suite folder (pass --allow-outside-suite to lift this)",
        source=display_path(source), location="trace" if named_by_key else None,
    )


def evaluate_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
    found_beside: bool = False,
    trials: Sequence[str | Path] = (),
    trace_real: str | None = None,
) -> CaseResult:
    """Return the scored result of one case; raise OpenEvalError when a file cannot be read.

    ``trace_path`` None means "the file the test case's ``trace`` key names"; when the key is
    absent too, TestCaseError says ``problem`` (or that no trace was given). A ``trace`` key is
    read relative to the test case file. A ``trace_path`` given by the caller wins over the
    key; one discovery merely ``found_beside`` the test case does not
    (docs/semantics.md#suites-and-result-files). Without a ``case_id`` (single-case mode, or a suite
    that is one case folder) the case is named by its task id.

    ``trials`` (several traces of the task) scores each one as a trial of the case: a trial
    whose trace cannot be read is an errored trial, and the case's verdict follows its rule.
    ``trace_real`` is the real path of ``trace_path`` when already known
    (:attr:`~openeval.suite.discover.CaseSpec.trace_real`); the confinement then checks it
    without resolving the path again.
    """
    from openeval.adapters.registry import read_trace
    from openeval.scoring import score

    plan = plan or RunPlan()
    testcase_path = as_path(testcase_path)
    case_input = read_case(testcase_path, plan)
    test_case, case_plan, rule = case_input.test_case, case_input.plan, case_input.trials_rule
    if trials:
        if test_case.trace is not None:
            raise TestCaseError(
                "names one trace with its 'trace' key, but its folder holds trials; remove the "
                "key or the trials", source=display_path(testcase_path), location="trace",
            )
        return _score_trials(
            case_id or test_case.task_id, testcase_path, test_case, case_plan, rule,
            [Path(t) for t in trials], replace(plan, options=case_options(plan, test_case)),
            case_input.flaky_band,
        )
    trace_file = as_path(trace_path) if trace_path is not None else None
    if found_beside and test_case.trace is not None:
        trace_file = None
    named_by_key = trace_file is None and test_case.trace is not None
    if named_by_key:
        assert test_case.trace is not None  # narrowed for mypy: named_by_key says so
        if "\x00" in test_case.trace:
            raise TestCaseError("holds a NUL character, which no file name can",
                                source=display_path(testcase_path), location="trace")
        trace_file = testcase_path.parent / test_case.trace
    if trace_file is None:
        raise TestCaseError(problem or "no trace given for this test case", source=testcase_path)
    if not plan.allow_outside and (plan.confine_to is not None or named_by_key):
        root = plan.confine_to or os.path.realpath(testcase_path.parent)
        confine(trace_file, root, source=testcase_path, named_by_key=named_by_key,
                real=None if named_by_key else trace_real)
    trace, trace_format = read_trace(trace_file, plan.format,
                                     options=case_options(plan, test_case))
    return CaseResult(
        case_id=case_id or test_case.task_id,
        task_id=test_case.task_id,
        testcase_path=display_path(testcase_path),
        trace_path=display_path(trace_file),
        trace_format=trace_format,
        checks=score(trace, case_plan),
        trace_task_id=trace.task_id,
        warnings=task_id_warning(test_case.task_id, trace.task_id, trace_file),
        trace_excerpt=_excerpt(trace, test_case, plan),
    )


def as_path(path: str | Path) -> Path:
    """Return ``path`` as a Path: the one discovery made as is (``Path(path)`` parses every
    part of it again, three times a case)."""
    return path if isinstance(path, Path) else Path(path)


def case_options(plan: RunPlan, test_case: EvalTestCase) -> LoadOptions | None:
    """Return the read options for a case's traces: the run's, with the case's own
    ``agent_spec`` (its file's, else its suite configuration's) over ``--agent-spec``.

    The nearest word wins: a suite may hold recordings of several agents, and a case knows
    which one it recorded, while ``--agent-spec`` is one value for the whole run.
    """
    if test_case.agent_spec is None:
        return plan.options
    from openeval.adapters.base import LoadOptions

    return replace(plan.options or LoadOptions(), agent_spec=test_case.agent_spec)


def _excerpt(trace: AgentTrace, test_case: EvalTestCase, plan: RunPlan) -> TraceExcerpt | None:
    if not plan.keep_steps:
        return None
    from openeval.results.excerpt import TraceExcerpt

    return TraceExcerpt.of(trace, test_case)


def _score_trials(
    case_id: str,
    testcase_path: Path,
    test_case: EvalTestCase,
    case_plan: CasePlan,
    rule: str,
    traces: list[Path],
    plan: RunPlan,
    flaky_band: FlakyBand,
) -> CaseResult:
    trials = tuple(
        _score_trial(f"{case_id}#{_label(trace, testcase_path.parent)}", testcase_path,
                     test_case, case_plan, trace, plan)
        for trace in traces
    )
    return CaseResult(
        case_id=case_id,
        task_id=test_case.task_id,
        testcase_path=display_path(testcase_path),
        trace_path=None,
        trace_format=None,
        error=TrialsRule.parse(rule).needs(len(trials)),
        trials=trials,
        trials_rule=rule,
        flaky_band=flaky_band,
    )


def _score_trial(
    trial_id: str, testcase_path: Path, test_case: EvalTestCase, case_plan: CasePlan,
    trace_file: Path, plan: RunPlan,
) -> CaseResult:
    """Return one trial of a case: its trace read and scored, or errored with the reason."""
    from openeval.adapters.registry import read_trace
    from openeval.scoring import score

    task_id = test_case.task_id

    try:
        if not plan.allow_outside and plan.confine_to is not None:
            confine(trace_file, plan.confine_to, source=testcase_path, named_by_key=False)
        trace, trace_format = read_trace(trace_file, plan.format, options=plan.options)
    except OpenEvalError as exc:
        return CaseResult(trial_id, task_id, display_path(testcase_path), display_path(trace_file),
                          None, error=display_path(str(exc)))
    return CaseResult(trial_id, task_id, display_path(testcase_path), display_path(trace_file),
                      trace_format, checks=score(trace, case_plan), trace_task_id=trace.task_id,
                      warnings=task_id_warning(task_id, trace.task_id, trace_file),
                      trace_excerpt=_excerpt(trace, test_case, plan))


def _label(path: Path, folder: Path) -> str:
    """Return a trial's trace as a path inside its case folder (``trials/run-2.json``)."""
    try:
        return display_path(path.relative_to(folder))
    except ValueError:
        return display_path(path)


def task_id_warning(expected: str, found: str, trace_file: Path) -> tuple[str, ...]:
    """Return a warning when a trace names another task than its test case (a trace mixed up
    with another case's); none when the trace's id was only its file name."""
    name = trace_file.name
    if not found or found == expected or name == found or name.startswith(found + "."):
        return ()
    return (f"the trace's task id {found!r} differs from the test case's {expected!r}: is this "
            "the right trace for this case?",)


def run_case(
    testcase_path: str | Path,
    trace_path: str | Path | None,
    *,
    plan: RunPlan | None = None,
    case_id: str | None = None,
    problem: str | None = None,
    found_beside: bool = False,
    trials: Sequence[str | Path] = (),
    trace_real: str | None = None,
) -> CaseResult:
    """Return the result of one case; a file that cannot be read gives an errored result.

    Same arguments as :func:`evaluate_case`. Only OpenEvalError becomes an errored result;
    checks are isolated by the scorer, so anything else escaping here is a bug and propagates.
    """
    try:
        return evaluate_case(
            testcase_path, trace_path, plan=plan, case_id=case_id, problem=problem,
            found_beside=found_beside, trials=trials, trace_real=trace_real,
        )
    except OpenEvalError as exc:
        testcase_path = Path(testcase_path)
        task_id = _task_id_hint(testcase_path)
        return CaseResult(
            case_id=case_id or task_id,
            task_id=task_id,
            testcase_path=display_path(testcase_path),
            trace_path=display_path(Path(trace_path)) if trace_path is not None else None,
            trace_format=None,
            error=display_path(str(exc)),
        )


def _task_id_hint(testcase_path: Path) -> str:
    """Return the task id of a test case that failed to load, as best known, for reports."""
    from openeval.jsonio import read_json_file

    try:  # regular files only: a FIFO or /dev/zero here must not hang the run
        document = read_json_file(testcase_path)
    except (OSError, ValueError, RecursionError, OpenEvalError):
        return testcase_path.stem
    task_id = document.get("task_id") if isinstance(document, dict) else None
    return task_id if isinstance(task_id, str) else testcase_path.stem

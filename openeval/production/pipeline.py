"""``openeval score`` as one call: inputs, checks and gates in; result files, summary and
verdict out.

:func:`score_to_folder` is what the command runs, step for step, so a Python caller writes
exactly the command's ``results.jsonl`` and ``summary.json`` and gets its verdict; the command
adds only its flags, its progress bar and its printing (proposals/0090-pipeline-layout.md).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from openeval.production.engines import DEFAULT_ENGINE, get_engine
from openeval.production.gate import ScoreVerdict, check_gate_names, score_verdict
from openeval.production.inputs import outside_output, score_inputs
from openeval.production.output import (
    RESULTS_NAME,
    SUMMARY_NAME,
    Progress,
    check_results_name,
    write_score_output,
)
from openeval.production.plan import Checks, ScorePlan, as_plan
from openeval.production.summary import ScoreSummary
from openeval.results.gates import GateRule
from openeval.trust import REFUSE_ALL

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions


@dataclass(frozen=True)
class ScoreOutcome:
    """What a score run found: the plan it ran, its counts and its verdict."""

    plan: ScorePlan
    summary: ScoreSummary
    verdict: ScoreVerdict

    @property
    def passed(self) -> bool:
        """Whether the run passed its gate (the command's exit 0)."""
        return self.verdict.passed


def score_to_folder(
    inputs: Sequence[str | Path],
    *,
    checks: Checks = None,
    output: str | Path | None = None,
    results_name: str = RESULTS_NAME,
    gates: Sequence[GateRule | tuple[str, float, str]] = (),
    sample: int | None = None,
    engine: str = DEFAULT_ENGINE,
    address: str | None = None,
    trace_format: str | None = None,
    options: LoadOptions | None = None,
    progress: Progress | None = None,
) -> ScoreOutcome:
    """Score every trace of ``inputs`` (files, folders, globs) with ``checks`` and, when
    ``output`` is given, write ``results.jsonl`` (or ``results_name``) and ``summary.json``
    there, byte for byte what ``openeval score`` writes for the same arguments.

    ``checks``: a checks file, the check entries, a compiled :class:`ScorePlan`, or None for
    the default checks. ``gates``: per-check gates (:class:`~openeval.results.gates.GateRule`,
    or ``(name, line, where given)``), as ``--fail-under-metric NAME=X`` gives them. ``sample``
    scores only the traces with the smallest hashes of their ids; ``engine`` names a
    registered engine (``local``, ``ray``), ``address`` its cluster. ``progress`` is called
    with the number of rows done.

    Raises OpenEvalError (before any trace is read) for checks that configure nothing, a gate
    on a check the plan does not run, an unknown trace format or engine, a results name that
    is not a plain file name, inputs that name nothing, or a file named as input inside
    ``output`` (which the run rewrites; files found there by a folder walk are left out, so
    results are never read back as traces); and while scoring, for an output
    folder that cannot be written or a failed engine.
    """
    rules = [GateRule(*gate) for gate in gates]
    # Check files only from inside the working folder (the checkout), links resolved, and only
    # with the caller's opt-in (openeval/trust.py): the checks file may be a pull request's.
    policy = (options.code if options is not None else REFUSE_ALL).confined_to(os.getcwd())
    plan = as_plan(checks, code_policy=policy)
    check_gate_names(rules, plan)
    if trace_format is not None:
        from openeval.adapters.registry import get_adapter

        get_adapter(trace_format)
    check_results_name(results_name)
    run = get_engine(engine)
    files = score_inputs(list(inputs))
    if output is not None:  # an output folder inside an input folder is not read back
        files = outside_output(list(inputs), files, Path(output), {results_name, SUMMARY_NAME})
    rows = run(files, plan, address=address, sample=sample, trace_format=trace_format,
               options=options)
    summary = write_score_output(
        rows, None if output is None else Path(output), results_name=results_name,
        progress=progress)
    return ScoreOutcome(plan=plan, summary=summary, verdict=score_verdict(summary, rules))

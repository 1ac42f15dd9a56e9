"""Can every case fail? ``openeval lint`` finds the cases that cannot.

A benchmark case that a do-nothing agent passes measures nothing, and it stays green forever.
:func:`lint_case` scores a case (merged with its suite configuration, exactly as ``run`` would)
against traces that should fail it, and reads the case itself for settings that make a check
unfailable:

- ``passes-empty-trace``: the case passes on a trace with no steps and no output;
- ``passes-do-nothing-trace``: it passes on one assistant turn that calls no tool and says
  something content-free;
- ``zero-pass-line``: a metric or check whose pass line no score can miss (0 or below);
- ``judges-nothing``: on its recorded trace (or the empty one when it has none), every metric
  and check is n.a.;
- ``stray-matcher-key``: an object mixing ``$`` matcher keys with plain keys, which compares as
  a literal object by accident;
- ``loosened-named-value``: a ``$type`` (or ``$exists``) matcher where the recorded value is
  named in the task's input: the value the task is about, loosened;
- ``unfailable-value``: with the recorded trace, an expected argument, state value or output
  substring that no single change of the trace fails (a mutation check: the value is changed,
  everywhere the trace holds it, and the case must fail).

The semantics are in proposals/0170-lint.md. Nothing here prints: the CLI renders
:class:`Finding` values.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openeval.models import AgentTrace, EvalTestCase, Message, TraceStep
from openeval.results.records import CaseResult

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.scoring.plan import CasePlan
    from openeval.suite.evaluate import RunPlan

Scorer = Callable[[AgentTrace], CaseResult]
"""Scores a trace against one case as ``run`` would (merged configuration, compiled plan)."""

FindingKind = Literal[
    "passes-empty-trace",
    "passes-do-nothing-trace",
    "zero-pass-line",
    "judges-nothing",
    "stray-matcher-key",
    "loosened-named-value",
    "unfailable-value",
]

DO_NOTHING_REPLY = "OK."
"""What the do-nothing agent answers: a reply with no content a check could want."""

MAX_MUTATIONS = 200
"""Most values one case's mutation check changes (each costs one scoring of the case)."""


@dataclass(frozen=True)
class Finding:
    """One reason a case is weak."""

    case: str
    """The test case file, as a path to show."""
    kind: FindingKind
    where: str
    """The JSON path in the test case (or the check's name) the finding is about; empty for
    the whole case."""
    message: str

    def to_dict(self) -> dict[str, str]:
        """Return the finding as a JSON object."""
        return {"case": self.case, "kind": self.kind, "where": self.where,
                "message": self.message}


def empty_trace(task_id: str, task_input: str) -> AgentTrace:
    """Return the trace of an agent that did nothing at all."""
    return AgentTrace(task_id=task_id, input=task_input)


def do_nothing_trace(task_id: str, task_input: str) -> AgentTrace:
    """Return the trace of an agent that answered once, content-free, and called no tool."""
    messages = [Message("user", task_input)] if task_input else []
    messages.append(Message("assistant", DO_NOTHING_REPLY, turn=0))
    return AgentTrace(
        task_id=task_id, input=task_input, final_output=DO_NOTHING_REPLY,
        steps=[TraceStep(step_id=0, type="output", content=DO_NOTHING_REPLY, turn=0)],
        messages=messages,
    )


def _passes(result: CaseResult) -> bool:
    return result.status == "passed"


def lint_case(
    case: str,
    scored: Scorer,
    test_case: EvalTestCase,
    plan: CasePlan,
    recorded: AgentTrace | None,
) -> list[Finding]:
    """Return what makes one case weak.

    ``scored`` scores a trace against the case; ``recorded`` is the case's own trace when it
    could be read. ``test_case`` and ``plan`` are the merged :class:`EvalTestCase` and its
    :class:`CasePlan`.
    """
    findings: list[Finding] = []
    task_id, task_input = test_case.task_id, test_case.input
    if _passes(scored(empty_trace(task_id, task_input))):
        findings.append(Finding(case, "passes-empty-trace", "",
                                "passes on an empty trace (no steps, no output)"))
    if _passes(scored(do_nothing_trace(task_id, task_input))):
        findings.append(Finding(
            case, "passes-do-nothing-trace", "",
            f"passes on a do-nothing trace (one reply {DO_NOTHING_REPLY!r}, no tool call)"))
    findings += _zero_pass_lines(case, plan)
    judged_on = recorded if recorded is not None else empty_trace(task_id, task_input)
    result = scored(judged_on)
    if result.error is None and result.checks and all(c.verdict == "n.a." for c in result.checks):
        which = "its recorded trace" if recorded is not None else "an empty trace"
        findings.append(Finding(case, "judges-nothing", "",
                                f"every metric and check is n.a. on {which}: the case "
                                "judges nothing"))
    for path, keys in _stray_matchers(test_case):
        plain = ", ".join(repr(k) for k in keys)
        findings.append(Finding(
            case, "stray-matcher-key", path,
            f"a matcher object with plain key(s) {plain}: it compares as a literal object; "
            "matcher options start with '$' ($tol, $flags ...)"))
    if recorded is not None:
        findings += _loosened_named_values(case, test_case, recorded)
        if _passes(result):
            findings += _unfailable_values(case, scored, test_case, recorded)
    return findings


def _zero_pass_lines(case: str, plan: CasePlan) -> Iterator[Finding]:
    for spec in plan.checks:
        line = spec.threshold
        if isinstance(line, (int, float)) and not isinstance(line, bool) and line <= 0:
            where = (f"thresholds.{spec.name}" if spec.family == "metric"
                     else f"checks[name={spec.name}].threshold")
            yield Finding(case, "zero-pass-line", where,
                          f"{spec.name}: pass line {line:g} can never be missed; the check is "
                          "report only (raise it, or drop it if reporting is the intent)")


def _stray_matchers(test_case: EvalTestCase) -> Iterator[tuple[str, list[str]]]:
    roots: list[tuple[str, Any]] = [
        (f"expected_tool_calls[{i}].args", call.get("args"))
        for i, call in enumerate(test_case.expected_tool_calls) if isinstance(call, dict)
    ]
    roots.append(("expected_final_state", test_case.expected_final_state))
    for root, value in roots:
        yield from _walk_stray(root, value)


def _walk_stray(path: str, value: Any) -> Iterator[tuple[str, list[str]]]:
    if isinstance(value, dict):
        dollar = [k for k in value if isinstance(k, str) and k.startswith("$")]
        plain = [k for k in value if not (isinstance(k, str) and k.startswith("$"))]
        if dollar and plain:
            yield path, sorted(plain)
            return
        for key, child in value.items():
            yield from _walk_stray(f"{path}.{key}", child)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _walk_stray(f"{path}[{i}]", child)


_LOOSE = ("$type", "$exists")


def _loosened_named_values(
    case: str, test_case: EvalTestCase, recorded: AgentTrace,
) -> Iterator[Finding]:
    text = test_case.input or recorded.input
    if not text:
        return
    calls = recorded.tool_calls()
    for i, expected in enumerate(test_case.expected_tool_calls):
        args = expected.get("args") if isinstance(expected, dict) else None
        if not isinstance(args, dict):
            continue
        for key, want in args.items():
            if not (isinstance(want, dict) and set(want) & set(_LOOSE)):
                continue
            for step in calls:
                if step.tool_name != expected.get("tool") or not step.tool_args:
                    continue
                got = step.tool_args.get(key)
                if _named_in(got, text):
                    yield Finding(
                        case, "loosened-named-value", f"expected_tool_calls[{i}].args.{key}",
                        f"{next(iter(set(want) & set(_LOOSE)))} accepts any value, but the "
                        f"task's input names the recorded one ({_show(got)}): pin it")
                    break


def _named_in(value: Any, text: str) -> bool:
    if isinstance(value, bool) or value is None:
        return False
    if isinstance(value, (int, float)):
        shown = f"{value:g}" if isinstance(value, float) else str(value)
        return len(shown) >= 2 and shown in text
    return isinstance(value, str) and len(value) >= 3 and value.lower() in text.lower()


def _show(value: Any) -> str:
    shown = repr(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


# -- the mutation check ------------------------------------------------------------------------


def mutate_value(value: Any) -> Any:
    """Return a value of the same JSON kind that differs from ``value``."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 2 + 1
    if isinstance(value, str):
        return value + "-changed" if value else "changed"
    if isinstance(value, list):
        return [*value, "changed"] if value else ["changed"]
    if isinstance(value, dict):
        return {**value, "$changed": True} if value else {"changed": True}
    return "changed"


@dataclass(frozen=True)
class _Mutation:
    where: str
    """The test case path whose expectation the mutation should break."""
    what: str
    """What was changed in the trace, for the message."""
    trace: AgentTrace


_LOOSENING = frozenset({"$type", "$exists", "$optional", "$not"})
"""Matchers that accept a whole class of values on purpose: changing the value within its
kind is meant to pass, so the mutation check leaves them to ``loosened-named-value``."""


def _pins_value(expected: Any) -> bool:
    """Return True when ``expected`` (a literal or matcher) admits only values near one."""
    return not (isinstance(expected, dict) and expected.keys() & _LOOSENING)


def _mutations(test_case: EvalTestCase, recorded: AgentTrace) -> Iterator[_Mutation]:
    for i, expected in enumerate(test_case.expected_tool_calls):
        if not isinstance(expected, dict):
            continue
        tool, args = expected.get("tool"), expected.get("args")
        if not isinstance(args, dict):
            continue
        for key, want in args.items():
            if not _pins_value(want):
                continue
            mutated = _with_arg_changed(recorded, tool, key)
            if mutated is not None:
                yield _Mutation(f"expected_tool_calls[{i}].args.{key}",
                                f"{key} of every {tool} call", mutated)
    for key, want in test_case.expected_final_state.items():
        if key in recorded.actual_state and _pins_value(want):
            state = dict(recorded.actual_state)
            state[key] = mutate_value(state[key])
            yield _Mutation(f"expected_final_state.{key}", f"final state {key}",
                            replace(recorded, actual_state=state))
    for i, wanted in enumerate(test_case.expected_output_contains):
        if isinstance(wanted, str) and wanted and wanted in recorded.final_output:
            yield _Mutation(f"expected_output_contains[{i}]", "the final output",
                            _with_output(recorded, recorded.final_output.replace(wanted, "")))


def _with_arg_changed(trace: AgentTrace, tool: Any, key: str) -> AgentTrace | None:
    steps: list[TraceStep] = []
    changed = False
    for step in trace.steps:
        if (step.type == "tool_call" and step.tool_name == tool and step.tool_args
                and key in step.tool_args):
            args = copy.deepcopy(step.tool_args)
            args[key] = mutate_value(args[key])
            step = replace(step, tool_args=args)
            changed = True
        steps.append(step)
    return replace(trace, steps=steps) if changed else None


def _with_output(trace: AgentTrace, text: str) -> AgentTrace:
    steps = [replace(s, content=text) if s.type == "output" and s.content == trace.final_output
             else s for s in trace.steps]
    messages = list(trace.messages)
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "assistant" and messages[index].content:
            messages[index] = replace(messages[index], content=text)
            break
    return replace(trace, final_output=text, steps=steps, messages=messages)


def _unfailable_values(
    case: str, scored: Scorer, test_case: EvalTestCase, recorded: AgentTrace,
) -> Iterator[Finding]:
    for count, mutation in enumerate(_mutations(test_case, recorded)):
        if count >= MAX_MUTATIONS:
            return
        if _passes(scored(mutation.trace)):
            yield Finding(
                case, "unfailable-value", mutation.where,
                f"changing {mutation.what} still passes: no single change of the trace fails "
                "this expectation")


# -- a whole suite ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LintReport:
    """The findings of a lint run, and the cases it could not read."""

    cases: int
    findings: tuple[Finding, ...]
    unreadable: tuple[tuple[str, str], ...]
    """``(case, one-line reason)`` for each case that could not be read."""

    def to_dict(self) -> dict[str, Any]:
        """Return the report as a JSON object (sorted, deterministic)."""
        return {
            "cases": self.cases,
            "flagged_cases": len({f.case for f in self.findings}),
            "findings": [f.to_dict() for f in self.findings],
            "unreadable": [{"case": c, "error": e} for c, e in self.unreadable],
        }


def lint_paths(paths: Sequence[str | Path], *, options: LoadOptions | None = None) -> LintReport:
    """Lint every suite folder or test case file in ``paths``, reading them with ``options``
    (read limits, and the code policy: without an opt-in a case with a code check is
    unreadable here, as in ``run``)."""
    from openeval.errors import OpenEvalError
    from openeval.suite.discover import discover, display_path
    from openeval.suite.evaluate import RunPlan

    findings: list[Finding] = []
    unreadable: list[tuple[str, str]] = []
    cases = 0
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            from openeval.suite.config import load_suite_config

            plan = RunPlan.of(options=options, config=load_suite_config(path), confine_to=path)
            specs = [(s.testcase_path, s.trace_path, s.trials) for s in discover(path)]
        else:
            plan, specs = RunPlan(options=options), [(path, _trace_beside(path), ())]
        for testcase_path, trace_path, trials in specs:
            cases += 1
            shown = display_path(testcase_path)
            try:
                findings += _lint_one(shown, testcase_path, trace_path, trials, plan)
            except OpenEvalError as exc:
                unreadable.append((shown, str(exc)))
    return LintReport(cases, tuple(findings), tuple(unreadable))


def _trace_beside(testcase_path: Path) -> Path | None:
    """Return the one trace file beside a test case file, as a suite folder would pair them;
    None when there is none or more than one (the ``trace`` key may still name one)."""
    from openeval.suite.discover import is_trace_name

    try:
        names = sorted(p.name for p in testcase_path.parent.iterdir() if p.is_file())
    except OSError:
        return None
    traces = [n for n in names if is_trace_name(n)]
    return testcase_path.parent / traces[0] if len(traces) == 1 else None


def _lint_one(
    shown: str, testcase_path: Path, trace_path: Path | None, trials: Sequence[Path],
    plan: RunPlan,
) -> list[Finding]:
    from openeval.adapters.registry import read_trace
    from openeval.errors import OpenEvalError
    from openeval.scoring import score
    from openeval.suite.evaluate import case_options, read_case

    case_input = read_case(testcase_path, plan)
    test_case, case_plan = case_input.test_case, case_input.plan

    def scored(trace: AgentTrace) -> CaseResult:
        return CaseResult(case_id=shown, task_id=test_case.task_id, testcase_path=shown,
                          trace_path=None, trace_format=None, checks=score(trace, case_plan))

    recorded_file = trace_path or (trials[0] if trials else None)
    if recorded_file is None and test_case.trace is not None:
        recorded_file = testcase_path.parent / test_case.trace
    recorded = None
    if recorded_file is not None:
        try:
            recorded, _ = read_trace(recorded_file, None,
                                     options=case_options(plan, test_case))
        except OpenEvalError:
            recorded = None  # a broken trace is run's to report; lint judges the case alone
    return lint_case(shown, scored, test_case, case_plan, recorded)


def summary_line(report: LintReport) -> str:
    """Return the one-line summary the CLI prints last."""
    flagged = len({f.case for f in report.findings})
    parts = [f"{report.cases} case{'s' if report.cases != 1 else ''} linted",
             f"{flagged} flagged", f"{len(report.findings)} finding"
             f"{'s' if len(report.findings) != 1 else ''}"]
    if report.unreadable:
        parts.append(f"{len(report.unreadable)} unreadable")
    return ", ".join(parts)


def group_by_case(findings: Sequence[Finding]) -> Mapping[str, list[Finding]]:
    """Return the findings grouped by case, cases in the order first seen."""
    grouped: dict[str, list[Finding]] = {}
    for finding in findings:
        grouped.setdefault(finding.case, []).append(finding)
    return grouped

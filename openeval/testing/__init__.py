"""OpenEval in a test suite: assert on traces built in code, or collect suites with pytest.

:func:`assert_case` scores a trace against a test case, exactly as ``openeval run`` does, and
raises AssertionError with one line per failed or errored check; :func:`assert_trace` is the
shorthand that writes the test case for you. The pytest plugin
(:mod:`openeval.testing.pytest_plugin`, switched on by ``pytest --openeval SUITE_DIR``)
collects whole suite folders as tests. Design: proposals/0070-code-checks-and-pytest.md.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openeval.testing._failures import failure_lines

if TYPE_CHECKING:
    from openeval.models import AgentTrace, EvalTestCase
    from openeval.results.records import CheckResult

_TRAJECTORY_METRIC = "trajectory_match"
"""The metric that scores a test case's ``trajectory`` key
(docs/semantics.md#trajectory-matching)."""


def assert_case(
    trace: AgentTrace | Mapping[str, Any] | str | Path,
    test_case: EvalTestCase | Mapping[str, Any] | str | Path,
    *,
    metrics: Sequence[str] | None = None,
    checks_dir: str | Path | None = None,
) -> tuple[CheckResult, ...]:
    """Score ``trace`` against ``test_case`` and return the results when nothing failed.

    Each may be the object, its JSON form as a dict, or a file path (a trace in any format
    OpenEval reads; a test case file, whose folder code checks are found relative to; else
    ``checks_dir``, else the working folder). ``metrics`` narrows the metrics run.

    Raises AssertionError with one line per failed or errored check, or saying that nothing
    was judged (every result n.a.): a test that judged nothing has not shown anything.
    Raises OpenEvalError (TestCaseError, TraceFormatError) for input that cannot be read.
    """
    __tracebackhide__ = True  # pytest shows the test's line, not ours
    from openeval.scoring import compile_plan, score
    from openeval.trust import TRUSTED

    source = Path(test_case) if isinstance(test_case, (str, Path)) else None
    # The caller's own Python asked for this case: its code checks may run (openeval/trust.py).
    plan = compile_plan(_test_case(test_case), metrics=metrics, source=source,
                        checks_dir=checks_dir, code_policy=TRUSTED)
    results = score(_trace(trace), plan)
    lines = failure_lines(results)
    if lines:
        raise AssertionError("\n".join(lines))
    if not any(result.verdict == "pass" for result in results):
        names = ", ".join(result.name for result in results) or "no check ran"
        raise AssertionError(f"nothing was judged: every result was n.a. ({names})")
    return results


def assert_trace(
    trace: AgentTrace | Mapping[str, Any] | str | Path,
    /,
    *,
    task_id: str | None = None,
    input: str | None = None,
    expected_tool_calls: Sequence[Mapping[str, Any]] | None = None,
    expected_final_state: Mapping[str, Any] | None = None,
    expected_output_contains: Sequence[str] | None = None,
    max_steps: int | None = None,
    timeout_seconds: float | None = None,
    optimal_steps: int | None = None,
    thresholds: Mapping[str, float] | None = None,
    metrics: Sequence[str] | None = None,
    trace_file: str | None = None,
    expected_output: Any = None,
    checks: Sequence[Mapping[str, Any]] | None = None,
    trajectory: Mapping[str, Any] | None = None,
    denied_when: Sequence[str] | None = None,
    agent_spec: str | None = None,
    turns: Sequence[Mapping[str, Any]] | None = None,
    state: Mapping[str, Any] | None = None,
    checks_dir: str | Path | None = None,
    **keys: Any,
) -> tuple[CheckResult, ...]:
    """Assert ``trace`` meets what is given, without writing a test case.

    Every key a test case file may hold is a keyword here, so ``assert_trace(trace,
    **json.load(file))`` asserts that file's case (its ``trace`` key, which names the file's
    trace, arrives in ``keys`` and, like ``$schema``, plays no part in scoring; ``trace_file``
    is the same key spelt as a name). ``task_id`` defaults to the trace's. A key no test case
    may hold is refused as the test case reader refuses it (TestCaseError naming it).

    ``metrics`` defaults to the metrics that read what is given: ``expected_tool_calls`` runs
    ``tool_selection_accuracy`` and ``argument_correctness``, ``trajectory`` adds
    ``trajectory_match``, each other expectation (``expected_final_state``, ``max_steps``,
    ``state``, ``turns``, ...) its own metric, and each ``thresholds`` name its metric.
    ``checks`` are check entries (``{"check": ...}`` or ``{"code": ...}``, code paths relative
    to ``checks_dir``, else the working folder); ``expected_output`` is the reference those
    checks compare with. Raises as :func:`assert_case`, and ValueError when nothing to assert
    is given.
    """
    __tracebackhide__ = True
    from openeval.scoring.validate import EXPECTATION_READERS

    read = _trace(trace)
    given: dict[str, Any] = {
        "input": input, "expected_tool_calls": expected_tool_calls,
        "expected_final_state": expected_final_state,
        "expected_output_contains": expected_output_contains, "max_steps": max_steps,
        "timeout_seconds": timeout_seconds, "optimal_steps": optimal_steps,
        "thresholds": thresholds, "metrics": metrics, "expected_output": expected_output,
        "checks": checks, "trajectory": trajectory, "denied_when": denied_when,
        "agent_spec": agent_spec, "turns": turns, "state": state,
    }
    document: dict[str, Any] = {key: _plain(value) for key, value in given.items()
                                if value is not None}
    if trace_file is not None:
        keys = {**keys, "trace": trace_file}
    document.update(keys)
    document["task_id"] = read.task_id if task_id is None else task_id
    expectations = [key for key in EXPECTATION_READERS if key in document]
    if not expectations and not checks:
        raise ValueError("nothing to assert: give expected_tool_calls, trajectory, checks or "
                         "another expectation of a test case")
    if metrics is None:
        document["metrics"] = _metrics_for(document, expectations)
    return assert_case(read, document, checks_dir=checks_dir)


def _metrics_for(document: Mapping[str, Any], expectations: Sequence[str]) -> list[str]:
    """The metrics that read the expectations given, in a stable order."""
    from openeval.scoring.validate import EXPECTATION_READERS

    chosen: list[str] = []
    for key in expectations:
        if key == "expected_tool_calls":
            # The shorthand's own choice: which tools, with which arguments. step_efficiency
            # and trajectory_match read these calls too, but only when asked for.
            names: tuple[str, ...] = ("tool_selection_accuracy", "argument_correctness")
        else:
            names = EXPECTATION_READERS[key]
        chosen += [name for name in names if name not in chosen]
    thresholds = document.get("thresholds")
    if isinstance(thresholds, Mapping):
        chosen += [name for name in thresholds if name not in chosen]
    return chosen


def _plain(value: Any) -> Any:
    """A mapping or sequence given in code, as the JSON value a test case file holds."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def _trace(value: AgentTrace | Mapping[str, Any] | str | Path) -> AgentTrace:
    from openeval.errors import TraceFormatError
    from openeval.models import AgentTrace
    from openeval.schemas import validate

    if isinstance(value, AgentTrace):
        return value
    if isinstance(value, (str, Path)):
        from openeval.adapters.registry import read_trace

        return read_trace(Path(value), None)[0]
    document = dict(value)
    validate(document, "trace", source=None, error=TraceFormatError)
    return AgentTrace.from_dict(document)


def _test_case(value: EvalTestCase | Mapping[str, Any] | str | Path) -> EvalTestCase:
    from openeval.errors import TestCaseError
    from openeval.models import EvalTestCase
    from openeval.schemas import validate
    from openeval.testcase_file import check_metric_names, load_test_case

    if isinstance(value, EvalTestCase):
        return value
    if isinstance(value, (str, Path)):
        return load_test_case(value)
    document = dict(value)
    validate(document, "testcase", source=None, error=TestCaseError)
    check_metric_names(document, source=None)
    return EvalTestCase.from_dict(document)


__all__ = ["assert_case", "assert_trace", "failure_lines"]

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
    *,
    expected_tool_calls: Sequence[Mapping[str, Any]] | None = None,
    trajectory: Mapping[str, Any] | None = None,
    checks: Sequence[Mapping[str, Any]] | None = None,
    expected_output: Any = None,
    metrics: Sequence[str] | None = None,
    checks_dir: str | Path | None = None,
) -> tuple[CheckResult, ...]:
    """Assert ``trace`` meets what is given, without writing a test case.

    ``expected_tool_calls`` runs ``tool_selection_accuracy`` and ``argument_correctness``;
    ``trajectory`` (with ``expected_tool_calls``) runs ``trajectory_match``; ``checks`` are
    check entries (``{"check": ...}`` or ``{"code": ...}``, code paths relative to
    ``checks_dir``, else the working folder); ``expected_output`` is the reference those checks
    compare with. ``metrics`` replaces the metrics chosen this way. Raises as
    :func:`assert_case`, and ValueError when nothing to assert is given.
    """
    __tracebackhide__ = True
    from openeval.models import EvalTestCase

    if expected_tool_calls is None and trajectory is None and not checks:
        raise ValueError("nothing to assert: give expected_tool_calls, trajectory or checks")
    read = _trace(trace)
    chosen: list[str] = []
    if expected_tool_calls is not None:
        chosen += ["tool_selection_accuracy", "argument_correctness"]
    if trajectory is not None:
        chosen.append(_TRAJECTORY_METRIC)
    test_case = EvalTestCase(
        task_id=read.task_id,
        expected_tool_calls=[dict(call) for call in expected_tool_calls or []],
        trajectory=dict(trajectory) if trajectory is not None else None,
        checks=[dict(entry) for entry in checks or []],
        expected_output=expected_output,
        metrics=list(metrics) if metrics is not None else chosen,
    )
    return assert_case(read, test_case, checks_dir=checks_dir)


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

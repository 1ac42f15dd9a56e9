"""Hand-built result records for tests of the summary, result files and reporters."""

from __future__ import annotations

from openeval.results.records import CaseResult, CheckResult, CheckSpec
from openeval.scores import Score, Verdict

_VERDICTS: dict[bool | str | None, Verdict] = {
    True: "pass", False: "fail", None: "n.a.", "error": "error",
}


def check(name: str, passed: bool | str | None, details: str | None = None) -> CheckResult:
    """Return a metric-like result: True pass (score 1.0), False fail (0.25), None n.a.,
    "error" errored."""
    verdict = _VERDICTS[passed]
    text = details if details is not None else f"{name} said so"
    scores: tuple[Score, ...] = ()
    if verdict in ("pass", "fail"):
        scores = (Score(1.0 if verdict == "pass" else 0.25, "NUMERIC", None, name, True),)
    return CheckResult(CheckSpec(name, name, "metric", threshold=1.0), verdict, scores, text)


def case(
    case_id: str, *verdicts: bool | str | None, error: str | None = None, details: str | None = None
) -> CaseResult:
    """Return a case whose results m0, m1 ... have ``verdicts``, or an unscored one."""
    return CaseResult(
        case_id=case_id, task_id=case_id.split("/")[0], testcase_path=f"{case_id}/testcase.json",
        trace_path=None if error else f"{case_id}/trace.json",
        trace_format=None if error else "native",
        checks=tuple(check(f"m{i}", v, details) for i, v in enumerate(verdicts)), error=error,
    )

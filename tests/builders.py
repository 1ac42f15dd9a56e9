"""Hand-built result records for tests of the summary, result files and reporters, and a slow
suite for tests of runs that are stopped part way."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from click.testing import CliRunner, Result

from openeval.adapters.base import LoadOptions
from openeval.cli import main
from openeval.results.records import CaseResult, CheckResult, CheckSpec
from openeval.scores import Score, Verdict
from openeval.trust import CodePolicy

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


GOOD_CASE = Path(__file__).resolve().parent / "data" / "suites" / "mixed" / "a-good"

ALLOW_CODE = LoadOptions(code=CodePolicy(files=True))
"""Read options with what ``--allow-code`` gives: check files inside the suite may run."""

# The check runs in the code-check worker, whose parent is the process scoring the case.
_SLOW_CHECK = """import os, pathlib, signal, time
def evaluate(params):
    pathlib.Path({marks!r}, str(os.getppid())).touch()
    if params.get("kill"):
        os.kill(os.getppid(), signal.SIGKILL)
    time.sleep({seconds!r})
    return True
"""


def slow_suite(root: Path, *, cases: int, seconds: float, killer: int | None = None) -> Path:
    """Write a suite of ``cases`` copies of the good case into ``root``, each with a code check
    that sleeps ``seconds`` after touching ``<pid>`` in a marks folder beside ``root`` (so a
    test knows which processes are scoring, without guessing at timing); return that folder.

    The check of case number ``killer`` kills the process scoring it with SIGKILL instead, as
    the OOM killer kills a process that a hostile case made grow. Its code runs only with the
    opt-in: ``--allow-code``, or :data:`ALLOW_CODE` in a plan."""
    marks = root.parent / f"{root.name}-marks"
    marks.mkdir(parents=True)
    root.mkdir(exist_ok=True)
    (root / "slow.py").write_text(_SLOW_CHECK.format(marks=str(marks), seconds=seconds))
    for i in range(cases):
        folder = root / f"c{i:03}"
        shutil.copytree(GOOD_CASE, folder)
        document = json.loads((folder / "testcase.json").read_text())
        check: dict[str, object] = {"code": "../slow.py", "time_limit": 60}
        if i == killer:
            check["kill"] = True
        document["checks"] = [check]
        (folder / "testcase.json").write_text(json.dumps(document))
    return marks


def scoring_pids(marks: Path, count: int) -> list[int]:
    """Return the pids that marked ``marks`` (see :func:`slow_suite`) once ``count`` have; a
    minute without them fails the test rather than hanging it."""
    deadline = time.monotonic() + 60
    while len(found := sorted(int(p.name) for p in marks.iterdir())) < count:
        assert time.monotonic() < deadline, f"only {found} started scoring"
        time.sleep(0.02)
    return found


def invoke(args: list[str], code: int) -> Result:
    """Run ``openeval ARGS``; re-raise a real bug, and check the exit code."""
    result = CliRunner().invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == code, result.output
    return result


def record_digests(folder: Path) -> None:
    """Rewrite ``folder``'s summary.json so its digests match the case files as they are now:
    what a hand edit that also forges the commit record looks like, so a test of the checks
    behind the digests reaches them."""
    from openeval.results.files import digest_of

    summary_path = folder / "summary.json"
    summary = json.loads(summary_path.read_text())
    summary["result_digests"] = {name: digest_of((folder / name).read_bytes())
                                 for name in summary["result_files"]
                                 if (folder / name).is_file()}
    summary_path.write_text(json.dumps(summary))

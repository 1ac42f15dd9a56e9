"""Every shipped example case can fail: ``openeval lint`` flags none of them, but the tour's
case 06, which is there to show a case with no expectations at all."""

from __future__ import annotations

from pathlib import Path

from openeval.adapters.base import LoadOptions
from openeval.suite.lint import lint_paths
from openeval.trust import CodePolicy

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
ON_PURPOSE = {"examples/tour/06-chat-answer-no-expectations/testcase.json"}


def test_no_example_case_is_weak_but_the_one_that_shows_it() -> None:
    suites = sorted(p for p in EXAMPLES.iterdir() if p.is_dir() and p.name != "ci")
    # examples/custom_checks holds code checks: they run with the opt-in, as in its README.
    report = lint_paths(suites, options=LoadOptions(code=CodePolicy(files=True)))
    assert report.unreadable == ()
    flagged = {f.case.split("examples/", 1)[-1] for f in report.findings}
    assert {f"examples/{c}" for c in flagged} == ON_PURPOSE

"""``examples/checks/``: each case's check entries give the verdicts its ``expected.json`` says,
through the same runner as ``openeval run``, and between them every area passes and fails."""

from __future__ import annotations

from pathlib import Path

from openeval.checks import AREAS
from openeval.jsonio import read_json_file
from openeval.runner import run_suite

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "checks"


def test_every_case_gives_its_expected_verdicts() -> None:
    suite = run_suite(EXAMPLE)
    folders = sorted(p.name for p in EXAMPLE.iterdir() if p.is_dir())
    assert [c.case_id for c in suite.cases] == folders
    for case in suite.cases:
        expected = read_json_file(EXAMPLE / case.case_id / "expected.json")
        assert {r.name: r.verdict for r in case.checks} == expected, case.case_id
        assert all(r.spec.family == "check" for r in case.checks)  # checks only, no metrics


def test_every_area_passes_and_fails_somewhere() -> None:
    area_of = {name: area for area, names in AREAS.items() for name in names}
    seen: dict[str, set[str]] = {}
    for case in run_suite(EXAMPLE).cases:
        for result in case.checks:
            seen.setdefault(area_of[result.spec.kind], set()).add(result.verdict)
    assert sorted(seen) == sorted(AREAS)
    for area, verdicts in seen.items():
        assert {"pass", "fail"} <= verdicts, area

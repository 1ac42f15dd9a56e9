"""The run profiles (tests/run_profile.py): CI keeps every property test's full example count,
the default run a tenth of it, and an unknown profile name stops the run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROBE = ("import run_profile; run_profile.register_profiles(); "
         "print(run_profile.profile_name(), run_profile.examples(300), run_profile.examples(40), "
         "run_profile.full_run())")


def _probe(**variables: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "OPENEVAL_TEST_PROFILE")}
    return subprocess.run([sys.executable, "-c", PROBE], cwd=TESTS, capture_output=True,
                          text=True, check=False, env={**env, **variables})


@pytest.mark.parametrize(
    ("variables", "line"),
    [
        ({}, "dev 30 10 False"),
        ({"OPENEVAL_TEST_PROFILE": "ci"}, "ci 300 40 True"),
        ({"CI": "true"}, "ci 300 40 True"),
        ({"CI": "true", "OPENEVAL_TEST_PROFILE": "dev"}, "dev 30 10 False"),
    ],
    ids=["default", "ci-profile", "ci-system", "dev-chosen-in-ci"],
)
def test_the_profile_sets_the_example_counts(variables: dict[str, str], line: str) -> None:
    done = _probe(**variables)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == line


def test_an_unknown_profile_is_refused() -> None:
    done = _probe(OPENEVAL_TEST_PROFILE="fast")
    assert done.returncode != 0
    assert "OPENEVAL_TEST_PROFILE='fast': expected one of dev, ci" in done.stderr

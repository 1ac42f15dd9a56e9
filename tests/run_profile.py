"""Which test run this is: a contributor's quick default run, or CI's full one.

``OPENEVAL_TEST_PROFILE=ci`` (or ``CI`` set, as every CI system sets it) selects the full run:
the Hypothesis profile ``ci`` replays derandomised examples at each property test's full count,
and a browser test without Chromium fails instead of being skipped. The default profile,
``dev``, tries a tenth of the examples (new ones on every run, so coverage still grows over
many runs). Which tests a run selects is the markers' business (pyproject.toml): the default
run leaves out ``ray``, ``browser`` and ``slow``, and ``.ci/run`` runs them. Proposal 0120.
"""

from __future__ import annotations

import os

from hypothesis import settings

PROFILE_VARIABLE = "OPENEVAL_TEST_PROFILE"
PROFILES = ("dev", "ci")
CI_EXAMPLES = 100
"""Examples a property test without a count of its own tries in the ``ci`` profile (Hypothesis'
own default, so the ``ci`` profile keeps the counts the tests were written with)."""
DEV_SHARE = 10
"""The ``dev`` profile tries one example in this many."""


def profile_name() -> str:
    """Return the profile this run uses; raise ValueError on an unknown name."""
    name = os.environ.get(PROFILE_VARIABLE, "").strip() or (
        "ci" if os.environ.get("CI") else "dev")
    if name not in PROFILES:
        raise ValueError(f"{PROFILE_VARIABLE}={name!r}: expected one of {', '.join(PROFILES)}")
    return name


def full_run() -> bool:
    """True in CI's full run, where nothing the suite holds may be skipped for a missing tool."""
    return profile_name() == "ci"


def register_profiles() -> None:
    """Register both Hypothesis profiles and load the one :func:`profile_name` picks."""
    settings.register_profile("ci", max_examples=CI_EXAMPLES, derandomize=True, database=None,
                              print_blob=True)
    settings.register_profile("dev", max_examples=CI_EXAMPLES // DEV_SHARE)
    settings.load_profile(profile_name())


def examples(ci_count: int) -> int:
    """Return how many examples a property test written for ``ci_count`` tries in this run.

    Scaled by the loaded profile (``--hypothesis-profile`` included): the full count under
    ``ci``, a tenth of it (at least 10) under ``dev``. Read when the test module is imported,
    after the profile is loaded by the root conftest.
    """
    scaled = ci_count * settings.default.max_examples // CI_EXAMPLES
    return min(ci_count, max(10, scaled))

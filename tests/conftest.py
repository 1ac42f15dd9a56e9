"""Test-wide settings: the run profile (tests/run_profile.py) and the heavy tests' markers.

Property-based tests explore new inputs on every local run, but in CI they replay the same
derandomised examples, so a gate never flickers on a test that passed the run before. A crash
found locally is fixed, and its input kept as a regular case.

The default run (``addopts`` in pyproject.toml) deselects the tests marked ``ray``, ``browser``
and ``slow``; the summary says how many, and how to run them. Proposal 0120.
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from locales import LATIN_1
from run_profile import full_run, profile_name, register_profiles

register_profiles()

HEAVY_MARKERS = ("ray", "browser", "slow")
"""Markers the default run leaves out and ``.ci/run`` runs."""
DEFAULT_SELECTION = "not ray and not browser and not slow"
"""The ``-m`` expression of ``addopts`` in pyproject.toml."""
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def pytest_report_header(config: pytest.Config) -> str:
    return f"openeval test profile: {profile_name()} (OPENEVAL_TEST_PROFILE=dev|ci)"


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("browser") is None or full_run():
        return
    if not any(shutil.which(name) for name in BROWSERS):
        pytest.skip("Chromium is not installed (apt-get install -y chromium); CI installs it "
                    "and runs this test (.ci/run)")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if terminalreporter.config.option.markexpr != DEFAULT_SELECTION:
        return
    deselected = terminalreporter.stats.get("deselected", [])
    heavy = [item for item in deselected
             if any(item.get_closest_marker(name) for name in HEAVY_MARKERS)]
    if heavy:
        terminalreporter.write_line(
            f"{len(heavy)} tests marked {', '.join(HEAVY_MARKERS)} were left out, as by "
            "default; run them with -m 'ray or browser or slow', or everything with .ci/run")



@pytest.fixture(scope="session")
def latin_1_locales(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A folder holding the Latin-1 locale (``locales.LATIN_1``), built with ``localedef``."""
    folder = tmp_path_factory.mktemp("locales")
    if shutil.which("localedef") is None:
        pytest.skip("needs localedef to build a Latin-1 locale")
    built = subprocess.run(["localedef", "-i", "en_US", "-f", "ISO-8859-1",
                            str(folder / LATIN_1)], capture_output=True, timeout=120)
    if not (folder / LATIN_1).exists():
        pytest.skip(f"localedef could not build {LATIN_1}: {built.stderr[-200:]!r}")
    yield folder

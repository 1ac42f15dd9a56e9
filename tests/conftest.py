"""Test-wide settings.

Property-based tests explore new inputs on every local run, but in CI (``CI`` set, as every CI
system does) they replay the same derandomised examples, so a gate never flickers on a test that
passed the run before. A crash found locally is fixed, and its input kept as a regular case.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

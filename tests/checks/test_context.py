"""The context checks (openeval.checks.context) against tests/data/checks/context.json."""

from __future__ import annotations

from check_cases import area_tests

(
    test_case,
    test_none_means_the_default,
    test_random_input,
    test_huge_input,
    test_every_check_passes_and_fails,
) = area_tests("context")

"""The conversation checks against tests/data/checks/conversation.json."""

from __future__ import annotations

from area_cases import area_tests

from openeval.checks import conversation

(
    test_case,
    test_signature_is_the_seeds,
    test_none_means_the_default,
    test_random_input,
    test_huge_input,
    test_every_check_passes_and_fails,
) = area_tests(conversation, "conversation")

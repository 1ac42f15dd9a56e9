"""Which pull request an event names, and when there is none to comment on.

The REST calls themselves run against a stand-in for GitHub's API in tests/test_action.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from openeval.ci.github_api import PullRequest, pull_request_of


def _event(head: str | None, number: Any = 3) -> dict[str, Any]:
    return {"pull_request": {"number": number,
                             "head": {"repo": None if head is None else {"full_name": head}},
                             "base": {"repo": {"full_name": "o/r"}}}}


@pytest.mark.parametrize(
    ("name", "event", "found"),
    [
        ("pull_request", _event("o/r"), PullRequest("o/r", 3)),
        ("pull_request_target", _event("o/r"), PullRequest("o/r", 3)),
        ("pull_request", _event("fork/r"), "a pull request from a fork"),
        ("pull_request", _event(None), "a pull request from a fork"),  # the fork was deleted
        ("pull_request", _event("o/r", number="3"), "the event names no pull request"),
        ("pull_request", {}, "the event names no pull request"),
        ("push", _event("o/r"), "not a pull request (event push)"),
        ("", {}, "not a pull request (event unknown)"),
    ],
)
def test_where_the_comment_goes(name: str, event: dict[str, Any], found: Any) -> None:
    got = pull_request_of(name, event, "o/r")
    if isinstance(found, PullRequest):
        assert got == found
    else:
        assert isinstance(got, str) and got.startswith(found)

"""The few calls of GitHub's REST API the Action's pull-request comment needs, and the pull
request an event names.

Standard library only (:mod:`urllib.request`): the Action runs on a fresh runner, and ``gh``
would be one more program to find there and to stand in for in tests. Every failure, a refused
request or an unreachable API alike, is one :class:`ApiError` naming the request. Proposal 0121.
"""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

MAX_PAGES = 30
"""Pages of 100 comments searched for the comment to edit."""
TIMEOUT_SECONDS = 30.0
"""How long one API request may take."""

PULL_REQUEST_EVENTS = frozenset({"pull_request", "pull_request_target"})
"""The events whose payload names a pull request to comment on."""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class PullRequest:
    """The pull request the comment goes to."""

    repository: str
    """``owner/name`` of the repository the pull request is opened against."""
    number: int


def pull_request_of(event_name: str, event: Mapping[str, Any], repository: str
                    ) -> PullRequest | str:
    """Return the pull request of the event, or why there is none to comment on."""
    if event_name not in PULL_REQUEST_EVENTS:
        return f"not a pull request (event {event_name or 'unknown'}), so no comment is posted"
    found = event.get("pull_request")
    number = _int(found.get("number")) if isinstance(found, Mapping) else None
    if not isinstance(found, Mapping) or number is None:
        return "the event names no pull request, so no comment is posted"

    def repo_name(side: str) -> str | None:
        part = found.get(side)
        repo = part.get("repo") if isinstance(part, Mapping) else None
        name = repo.get("full_name") if isinstance(repo, Mapping) else None
        return name if isinstance(name, str) else None

    base = repo_name("base") or repository
    if repo_name("head") != base:
        return ("a pull request from a fork gets a read-only token, so no comment is posted "
                "(the job summary has the report)")
    return PullRequest(base, number)


class ApiError(Exception):
    """A request the API refused or that could not reach it."""


@dataclass(frozen=True)
class GitHubApi:
    """The few REST calls the comment needs, over :mod:`urllib.request`."""

    base_url: str
    token: str

    def request(self, method: str, path: str, payload: Mapping[str, Any] | None = None) -> Any:
        """Send one request; return its decoded JSON body; raise ApiError when it fails."""
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(
            self.base_url.rstrip("/") + path, data=data, method=method,
            headers={
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {self.token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "openeval-action",
                **({"Content-Type": "application/json"} if data is not None else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(2000).decode("utf-8", "replace")
            with contextlib.suppress(ValueError, AttributeError):  # not GitHub's JSON error
                detail = str(json.loads(detail).get("message", detail))
            raise ApiError(f"{method} {path}: HTTP {exc.code} {detail[:200]}") from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise ApiError(f"{method} {path}: {reason}") from None
        try:
            return json.loads(raw) if raw else None
        except ValueError:
            raise ApiError(f"{method} {path}: the answer is not JSON") from None

    def find_comment(self, pr: PullRequest, head_line: str) -> int | None:
        """Return the id of the comment a bot posted whose body starts with ``head_line``.

        Only comments by a bot account count, so a comment a person wrote holding the marker
        (the pull request's author, say) is never edited."""
        for page in range(1, MAX_PAGES + 1):
            found = self.request(
                "GET", f"/repos/{pr.repository}/issues/{pr.number}/comments"
                       f"?per_page=100&page={page}")
            if not isinstance(found, list):
                raise ApiError("the list of comments is not a list")
            for comment in found:
                if not isinstance(comment, Mapping):
                    continue
                user = comment.get("user")
                body = comment.get("body")
                if (isinstance(user, Mapping) and user.get("type") == "Bot"
                        and isinstance(body, str) and body.startswith(head_line)
                        and _int(comment.get("id")) is not None):
                    return int(comment["id"])
            if len(found) < 100:
                return None
        return None

    def upsert(self, pr: PullRequest, body: str) -> tuple[str, Any]:
        """Edit the action's comment on ``pr`` or post it; return ``("updated" or "posted",
        the comment's address)``."""
        existing = self.find_comment(pr, body.split("\n", 1)[0])
        if existing is not None:
            done = self.request("PATCH", f"/repos/{pr.repository}/issues/comments/{existing}",
                                {"body": body})
            verb = "updated"
        else:
            done = self.request("POST", f"/repos/{pr.repository}/issues/{pr.number}/comments",
                                {"body": body})
            verb = "posted"
        address = done.get("html_url") if isinstance(done, Mapping) else None
        return verb, address

"""A stand-in for GitHub's REST API on 127.0.0.1: the issue-comment endpoints, kept in memory.

It answers what the action's comment step asks (list a pull request's comments page by page,
post one, edit one) with the shapes GitHub documents, records every request, and can refuse
every request with a given HTTP status, as GitHub does for a read-only token.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

_LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
_ONE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")
BOT = {"login": "github-actions[bot]", "type": "Bot"}


@dataclass
class Request:
    method: str
    path: str
    authorization: str
    body: Any


@dataclass
class GitHubApiStandIn:
    """The API's state: comments by id (with the issue number they belong to), requests."""

    refuse_with: int | None = None
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _server: ThreadingHTTPServer | None = None

    def add_comment(self, number: int, body: str, user: dict[str, str]) -> int:
        new_id = 1000 + len(self.comments)
        self.comments[new_id] = {"id": new_id, "issue": number, "body": body, "user": user,
                                 "html_url": f"https://github.test/pr/{number}#c{new_id}"}
        return new_id

    def on(self, number: int) -> list[dict[str, Any]]:
        return [c for c in self.comments.values() if c["issue"] == number]

    def start(self) -> str:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep the test output clean
                pass

            def _answer(self, status: int, document: Any) -> None:
                raw = json.dumps(document).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                parts = urlsplit(self.path)
                body = json.loads(raw) if raw else None
                api.requests.append(Request(method, self.path,
                                            self.headers.get("Authorization", ""), body))
                if api.refuse_with is not None:
                    self._answer(api.refuse_with,
                                 {"message": "Resource not accessible by integration"})
                    return
                listed, one = _LIST.match(parts.path), _ONE.match(parts.path)
                if method == "GET" and listed:
                    query = parse_qs(parts.query)
                    size = int(query.get("per_page", ["30"])[0])
                    page = int(query.get("page", ["1"])[0])
                    found = api.on(int(listed.group(2)))
                    self._answer(200, found[(page - 1) * size: page * size])
                elif method == "POST" and listed:
                    new_id = api.add_comment(int(listed.group(2)), body["body"], BOT)
                    self._answer(201, api.comments[new_id])
                elif method == "PATCH" and one and int(one.group(2)) in api.comments:
                    api.comments[int(one.group(2))]["body"] = body["body"]
                    self._answer(200, api.comments[int(one.group(2))])
                else:
                    self._answer(404, {"message": "Not Found"})

            def do_GET(self) -> None:
                self._handle("GET")

            def do_POST(self) -> None:
                self._handle("POST")

            def do_PATCH(self) -> None:
                self._handle("PATCH")

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        return self.url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

"""The GitHub Action's pull-request comment: one comment per pull request, edited in place.

With the action's ``comment: true`` input, the Evaluate step renders the comment's Markdown
(:func:`comment_body`, from the run's ``summary.json``, its result records and the baseline
comparison) into a file; the step after it, the only one that holds the token, runs
:func:`main`, which posts that file to the pull request through GitHub's REST API, or edits the
comment an earlier run posted (found by the hidden :func:`marker` its body starts with), so a
pull request never collects a second one. Proposal 0121.

The comment is skipped, with one ``notice`` line, on events that are not pull requests and on
pull requests from forks (their token is read-only). An API that refuses or cannot be reached
is a ``warning``: the comment is a convenience, and the gate is decided by the Evaluate step
alone. The API is reached through :mod:`openeval.ci.github_api` (the standard library only),
at ``GITHUB_API_URL``, as the runner sets it (GitHub Enterprise Server included).

Everything the pull request's author controls (case ids, tool names, details) is written as a
code span, so it renders as text: no link, image, HTML or ``@mention`` of theirs reaches the
comment as anything else. Like the CLI, this is an entry point, so it prints.
"""

from __future__ import annotations

import json
import os
import re
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.ci.github_api import ApiError, GitHubApi, pull_request_of
from openeval.report.alignment import Alignment, aligned_check, difference_parts, position
from openeval.report.github import command
from openeval.report.markdown import code_cell
from openeval.results.records import CaseResult, SuiteResult
from openeval.results.summary import percent

MARKER_PREFIX = "<!-- openeval:pr-comment"
"""How the body of the comment this action owns starts (an HTML comment: not rendered)."""

MAX_CASES = 10
"""Cases listed in the comment; the rest are counted, and the job summary lists them all."""
MAX_TOOLS = 12
"""Tool names shown per sequence (expected, executed); the rest are counted."""
MAX_TEXT = 80
"""Longest text shown for one name or one divergence detail."""
MAX_BODY = 60_000
"""A comment body stays under GitHub's limit of 65,536 characters."""
_TITLE = "OpenEval comment"


def marker(key: str) -> str:
    """Return the hidden first line of the comment for ``key`` (the suite), so two uses of the
    action on different suites in one pull request keep one comment each."""
    quoted = urllib.parse.quote(key, safe="/._").replace("-", "%2D")
    return f"{MARKER_PREFIX} {quoted} -->"


def _cut(text: str, limit: int = MAX_TEXT) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _code(text: str, limit: int = MAX_TEXT, *, table: bool = True) -> str:
    """Return ``text`` as a code span (a table cell's, with its pipes escaped, by default)."""
    cut = _cut(text, limit)
    if table:
        return code_cell(cut) or "` `"
    flat = " ".join(cut.splitlines()) or " "
    fence = "`" * (max((len(run) for run in re.findall("`+", flat)), default=0) + 1)
    return f"{fence} {flat} {fence}"


# --- what the comment says about one case --------------------------------------------------


@dataclass(frozen=True)
class CaseLine:
    """One row of the comment's table: a case that got worse (or, without a baseline, did not
    pass), where its calls first diverged, and its expected and executed tool sequences."""

    case_id: str
    change: str
    """``passed → failed``, or the status alone when there is no baseline."""
    divergence: str = ""
    expected: tuple[str, ...] = ()
    executed: tuple[str, ...] = ()
    cut: bool = False
    """True when the alignment was cut, so both sequences are a window of the whole."""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _sequences(alignment: Alignment) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Return the expected and the executed tool names, each in its own order."""
    expected: list[tuple[int, str]] = []
    executed: list[tuple[int, str]] = []
    for row in alignment.rows:
        tool = str(row.get("tool", ""))
        index, step = _int(row.get("expected")), _int(row.get("step_id"))
        if index is not None:
            expected.append((index, tool))
        if step is not None:
            got = row.get("got_tool")
            executed.append((step, str(got) if isinstance(got, str) else tool))
    return (tuple(name for _, name in sorted(expected)),
            tuple(name for _, name in sorted(executed)))


def _divergence(alignment: Alignment) -> str:
    """Return the first divergence as one line: the call, its status and the first
    differing argument."""
    if alignment.first is None:
        return ""
    row = alignment.rows[alignment.first]
    where = position(row)
    text = f"{row.get('tool', '')}{f' (expected call {where})' if where else ''}: "
    text += str(row.get("status", ""))
    parts = difference_parts(row)
    if parts:
        path, wanted, got, reason = parts[0]
        text += f"; {path}: " + (reason if reason is not None else
                                 f"expected {wanted}, got {got}")
    return text


def case_line(record: CaseResult, change: str) -> CaseLine:
    """Return the comment's row for ``record``, read from its alignment when it holds one."""
    check = aligned_check(record)
    if check is None:
        return CaseLine(record.case_id, change)
    alignment = Alignment.of(check)
    expected, executed = _sequences(alignment)
    return CaseLine(record.case_id, change, _divergence(alignment), expected, executed,
                    cut=alignment.start > 0 or alignment.total > len(alignment.rows))


def _tools(names: Sequence[str], cut: bool) -> str:
    if not names:
        return "(none)"
    shown = " → ".join(_cut(name, 40) for name in names[:MAX_TOOLS])
    left = len(names) - MAX_TOOLS
    text = ("… " if cut else "") + shown + (f" … (+{left})" if left > 0 else "")
    return code_cell(text)


def regressed_lines(diff: Mapping[str, Any], head: SuiteResult | None) -> list[CaseLine]:
    """Return a row per case that got worse than the baseline, in the comparison's order."""
    records = {c.case_id: c for c in head.cases} if head is not None else {}
    lines = []
    for change in diff.get("changes", []):
        if not isinstance(change, Mapping) or change.get("worse") is not True:
            continue
        case_id = str(change.get("case_id", ""))
        text = f"{change.get('base_status') or 'absent'} → {change.get('head_status') or 'gone'}"
        worse = [str(name) for name in change.get("checks_worse", []) if isinstance(name, str)]
        if worse and change.get("kind") != "regressed":
            text += "; newly failing: " + ", ".join(worse)
        record = records.get(case_id)
        lines.append(case_line(record, text) if record is not None else CaseLine(case_id, text))
    return lines


def failing_lines(head: SuiteResult) -> list[CaseLine]:
    """Return a row per case that failed or errored (the comment of a run without baseline)."""
    return [case_line(c, c.status) for c in head.cases if c.status in ("failed", "error")]


# --- the comment ---------------------------------------------------------------------------


def _table(lines: Sequence[CaseLine]) -> list[str]:
    out = ["| case | change | first divergence | expected tools | executed tools |",
           "|---|---|---|---|---|"]
    for line in lines[:MAX_CASES]:
        aligned = bool(line.expected or line.executed)
        out.append(
            f"| {_code(line.case_id)} | {_code(line.change)} | "
            f"{_code(line.divergence, 200) if line.divergence else ''} | "
            f"{_tools(line.expected, line.cut) if aligned else ''} | "
            f"{_tools(line.executed, line.cut) if aligned else ''} |"
        )
    if len(lines) > MAX_CASES:
        out += ["", f"… and {len(lines) - MAX_CASES} more, listed in the job summary."]
    return out


def comment_body(
    *,
    key: str,
    step_code: int,
    summary: Mapping[str, Any] | None,
    diff: Mapping[str, Any] | None = None,
    head: SuiteResult | None = None,
    run_url: str | None = None,
) -> str:
    """Return the comment's Markdown: the hidden marker, the gate verdict (the step's own exit
    code decides it), the counts, the cases that got worse than the baseline (or, without one,
    that did not pass) with their first divergence and tool sequences, and a link to the job
    summary. Bounded: at most :data:`MAX_CASES` cases and :data:`MAX_BODY` characters."""
    verdict = "✅ OpenEval: the gate passed" if step_code == 0 else "❌ OpenEval: the gate failed"
    out = [marker(key), f"### {verdict}", ""]
    if summary is None:
        out.append(f"`openeval run` stopped (exit code {step_code}) before writing results of "
                   f"the suite {_code(key, table=False)}; its error is in the job log.")
    else:
        out.append(
            f"Suite {_code(key, table=False)}: {summary.get('cases')} case(s), "
            f"{summary.get('passed_cases')} passed, {summary.get('failed_cases')} failed, "
            f"{summary.get('errored_cases')} errored; pass rate "
            f"{percent(summary.get('pass_rate'))}."
        )
        reason = summary.get("gate_reason")
        if isinstance(reason, str) and reason:
            out += ["", f"Gate: {_code(reason, 300, table=False)}"]
        if diff is not None:
            lines = regressed_lines(diff, head)
            out.append("")
            if lines:
                out += [f"**{len(lines)}** case(s) got worse than the baseline:", "",
                        *_table(lines)]
            else:
                out.append("Nothing got worse than the baseline.")
        elif head is not None:
            lines = failing_lines(head)
            if lines:
                out += ["", "Cases that did not pass (no baseline to compare with):", "",
                        *_table(lines)]
    if run_url:
        out += ["", f"[The full report is in the job summary]({run_url})."]
    body = "\n".join(out) + "\n"
    if len(body) > MAX_BODY:
        body = body[:MAX_BODY] + "\n\n… cut here; the job summary has the rest.\n"
    return body


def run_url(env: Mapping[str, str]) -> str | None:
    """Return the address of this workflow run's page (where the job summary is), or None."""
    server, repository, run = (env.get(k, "") for k in (
        "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"))
    if not (server and repository and run.isdigit()):
        return None
    attempt = env.get("GITHUB_RUN_ATTEMPT", "")
    return f"{server}/{repository}/actions/runs/{run}" + (
        f"/attempts/{attempt}" if attempt.isdigit() else "")


# --- the step ------------------------------------------------------------------------------


def enabled(value: str) -> bool:
    """Return the ``comment`` input as a bool; raise ValueError unless ``true`` or ``false``."""
    text = value.strip().lower()
    if text not in ("", "true", "false"):
        raise ValueError(f"the comment input must be true or false, not {value!r}")
    return text == "true"


def _event(env: Mapping[str, str]) -> Mapping[str, Any]:
    path = env.get("GITHUB_EVENT_PATH", "")
    if not path:
        return {}
    try:
        found = json.loads(Path(path).read_bytes())
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, Mapping) else {}


def post(env: Mapping[str, str]) -> str:
    """Post or update the comment; return the workflow command line that reports it."""
    target = pull_request_of(env.get("GITHUB_EVENT_NAME", ""), _event(env),
                             env.get("GITHUB_REPOSITORY", ""))
    if isinstance(target, str):
        return command("notice", target, title=_TITLE)
    body_file = env.get("OPENEVAL_COMMENT_FILE", "")
    token = env.get("OPENEVAL_GITHUB_TOKEN", "")
    if not body_file or not token:
        missing = "the comment the Evaluate step writes" if not body_file else "a token"
        return command("warning", f"no comment posted: {missing} is missing", title=_TITLE)
    api_url = env.get("GITHUB_API_URL", "") or "https://api.github.com"
    if urllib.parse.urlsplit(api_url).scheme not in ("https", "http"):
        return command("warning", f"no comment posted: GITHUB_API_URL {api_url!r} is not an "
                       "http(s) address", title=_TITLE)
    try:
        body = Path(body_file).read_text(encoding="utf-8")
        verb, address = GitHubApi(api_url, token).upsert(target, body)
    except OSError as exc:
        return command("warning", f"no comment posted: {body_file}: {exc.strerror}",
                       title=_TITLE)
    except ApiError as exc:
        return command("warning", f"no comment posted: {exc}", title=_TITLE)
    where = f": {address}" if isinstance(address, str) else ""
    return command("notice", f"{verb} the comment on pull request #{target.number}{where}",
                   title=_TITLE)


def main(env: Mapping[str, str] | None = None) -> int:
    """Run the comment step; always exit 0 (the Evaluate step's exit code is the gate)."""
    env = os.environ if env is None else env
    try:
        wanted = enabled(env.get("OPENEVAL_COMMENT", ""))
    except ValueError:
        return 0  # the Evaluate step already failed on this input
    if wanted:
        print(post(env))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())

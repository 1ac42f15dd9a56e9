"""The checks ``openeval score`` runs, compiled once into a picklable :class:`ScorePlan`.

A checks file is TOML with ``[[checks]]`` tables or JSON ``{"checks": [...]}``: the same entries
as a test case's ``checks`` (``check``, ``name``, ``threshold``, the check's settings, or a
``code`` check), compiled by :func:`openeval.scoring.plan.compile_plan` against a test case
that holds nothing else, so every check sees the trace and no expectation. Metrics are not
run: each one judges a trace against what a test case expects. Anything that configures
nothing (an unknown check or setting, a setting of the wrong type, a key other than
``checks``) is refused naming the file and the JSON path, and for TOML the table's line.

Without a checks file, :data:`DEFAULT_CHECKS` run: the reference-free checks a production
trace can fail on its own (proposals/0080-production-scoring.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from openeval.errors import OpenEvalError, TestCaseError
from openeval.models import EvalTestCase
from openeval.results.records import CheckSpec
from openeval.scoring.plan import CasePlan, compile_plan
from openeval.trust import REFUSE_ALL, CodePolicy

DEFAULT_CHECKS: tuple[Mapping[str, Any], ...] = (
    {"check": "pii_leak"},
    {"check": "refusal"},
    {"check": "repeated_tool_calls"},
    {"check": "error_spans"},
    {"check": "tool_call_validity"},
    {"check": "token_latency_budget"},
)
"""What ``openeval score`` runs without ``--checks``: no PII in the reply, no refusal, no tool
loop, no failed step, every tool call well formed, within the default token and latency
budget (2,000 output tokens, 30 s, 5 s to the first token, where the trace reports them)."""

CHECKS_KEY = "checks"
MAX_CHECKS_BYTES = 1024**2
"""Largest checks file read (a checks file is a few dozen lines)."""

PLAN_TASK_ID = "production"
"""Task id of the empty test case the checks are compiled against."""


@dataclass(frozen=True)
class ScorePlan:
    """The checks to run on every trace, compiled; pickles, so any worker can score with it."""

    case: CasePlan
    """The compiled plan: the empty test case and one spec per check entry."""
    source: str | None = None
    """The checks file, as given; None for the default checks."""

    @property
    def checks(self) -> tuple[CheckSpec, ...]:
        """The check specs, in file order."""
        return self.case.checks

    @property
    def names(self) -> tuple[str, ...]:
        """The instance names of the checks (what rows, the summary and gates use)."""
        return tuple(spec.name for spec in self.case.checks)


def plan_of(
    entries: Sequence[Mapping[str, Any]], *, source: str | Path | None = None,
    code_policy: CodePolicy = REFUSE_ALL,
) -> ScorePlan:
    """Return the plan of check ``entries``; raise TestCaseError naming ``source`` and the JSON
    path (``checks[2].max_repeats``) of an entry that configures nothing, or of a code entry
    ``code_policy`` refuses (openeval/trust.py)."""
    case = EvalTestCase(task_id=PLAN_TASK_ID, metrics=[], checks=[dict(e) for e in entries])
    plan = compile_plan(case, source=source, code_policy=code_policy)
    if not plan.checks:
        raise TestCaseError("expected at least one check entry", source=source,
                            location=CHECKS_KEY)
    return ScorePlan(case=plan, source=None if source is None else str(source))


Checks = ScorePlan | str | Path | Sequence[Mapping[str, Any]] | None
"""What a caller may give as the checks of a run: a compiled plan, a checks file, the check
entries themselves, or None for :data:`DEFAULT_CHECKS`."""


def as_plan(checks: Checks, *, code_policy: CodePolicy = REFUSE_ALL) -> ScorePlan:
    """Return the plan ``checks`` stands for (see :data:`Checks`); raise TestCaseError as
    :func:`load_checks` and :func:`plan_of` do."""
    if isinstance(checks, ScorePlan):
        return checks
    if checks is None or isinstance(checks, (str, Path)):
        return load_checks(None if checks is None else Path(checks), code_policy=code_policy)
    return plan_of(checks, code_policy=code_policy)


def load_checks(path: Path | None, *, code_policy: CodePolicy = REFUSE_ALL) -> ScorePlan:
    """Return the plan of the checks file ``path`` (TOML or JSON); None: the default checks.

    Raises TestCaseError naming the file and the place (JSON path; for TOML also the line of
    the ``[[checks]]`` table) of anything malformed or configuring nothing.
    """
    if path is None:
        return plan_of(DEFAULT_CHECKS)
    shown = path.as_posix()
    text = _read_text(path, shown)
    is_toml = path.suffix.lower() == ".toml"
    document = _parse_toml(text, shown) if is_toml else _parse_json(text, shown)
    lines: dict[str, int] = {}
    if is_toml:
        from openeval.suite.toml_lines import key_lines

        lines = key_lines(text)
    try:
        entries = _entries(document, shown)
        return plan_of(entries, source=shown, code_policy=code_policy)
    except OpenEvalError as exc:
        raise _with_line(exc, lines) from None


def _read_text(path: Path, shown: str) -> str:
    from openeval.io.files import open_regular

    handle, size = open_regular(path, error=TestCaseError, expected="a checks file")
    with handle:
        if size > MAX_CHECKS_BYTES:
            raise TestCaseError(f"is {size} bytes; a checks file may hold at most "
                                f"{MAX_CHECKS_BYTES}", source=shown)
        data = handle.read(MAX_CHECKS_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TestCaseError(f"invalid UTF-8 at byte {exc.start}", source=shown) from None


def _parse_toml(text: str, shown: str) -> Any:
    # The suite configuration's TOML reader: tomllib (tomli on 3.10), errors with line/column.
    from openeval.suite.config import _parse_toml as parse

    return parse(text, shown)


def _parse_json(text: str, shown: str) -> Any:
    from openeval.jsonio import parse_json

    return parse_json(text, source=shown, error=TestCaseError, max_depth=64)


def _entries(document: Any, shown: str) -> list[Mapping[str, Any]]:
    if not isinstance(document, dict):
        raise TestCaseError(f"expected a JSON object with a {CHECKS_KEY!r} list", source=shown)
    extra = sorted(set(document) - {CHECKS_KEY})
    if extra:
        raise TestCaseError(
            f"unknown key {extra[0]!r}; a checks file holds only {CHECKS_KEY!r} (a list of "
            "check entries)", source=shown, location=extra[0])
    entries = document.get(CHECKS_KEY)
    if not isinstance(entries, list):
        raise TestCaseError(f"expected a {CHECKS_KEY!r} list of check entries", source=shown,
                            location=CHECKS_KEY)
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise TestCaseError("expected a check entry (a table / JSON object)", source=shown,
                                location=f"{CHECKS_KEY}[{i}]")
    return entries


def _with_line(exc: OpenEvalError, lines: Mapping[str, int]) -> OpenEvalError:
    """Return ``exc`` with the TOML line of its JSON path added to its location."""
    if not lines or not exc.location:
        return exc
    from openeval.suite.toml_lines import line_of

    line = line_of(lines, exc.location)
    if line is None:
        return exc
    return type(exc)(exc.message, source=exc.source, location=f"line {line}: {exc.location}")

"""Drafting a test case from a known-good trace (``openeval snapshot``).

The draft pins down what a good run *did*: the tools it ran with their arguments, its final
state, and a step budget equal to its number of tool calls. It leaves the wording of the final
answer unchecked (``expected_output_contains`` stays empty), because model text changes from
run to run while tool calls and state should not; add the phrases that matter by hand.

Asked for a trajectory mode, the draft also holds a ``trajectory`` block
(docs/semantics.md#trajectory-matching) with that mode and the ``ignore_args`` globs; ignored
argument paths are left out of the expected calls too (inside an object argument they stay as
``{"$exists": true}``), so ``argument_correctness`` does not check their values either.

Values that differ on every run of the same task are generalised, unless ``exact``: a string
that is, as a whole, one of the :data:`VOLATILE_KINDS` becomes ``{"$type": "string"}``
(docs/semantics.md#argument-matchers), in the expected calls' arguments and the expected final
state, at any depth.
The rule recognises only shapes no ordinary word or number has; a bare date (``2026-03-01``)
is kept, since it is usually what the task asked for ("fly on 1 March"), not when the run
happened. proposals/0030-trajectory-matching.md gives the reasons.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from openeval.matching.calls import glob_pattern
from openeval.matching.matchers import is_matcher_object
from openeval.matching.trajectory import TRAJECTORY_MODES
from openeval.models import AgentTrace, EvalTestCase
from openeval.values import MAX_JSON_DEPTH, canonical_key

ANY_STRING: dict[str, str] = {"$type": "string"}
"""The matcher a volatile value is replaced with."""
PRESENT: dict[str, bool] = {"$exists": True}
"""The matcher an ignored argument path inside an object argument is replaced with."""

_HEX = "[0-9a-fA-F]"
_TIME = r"(?:[01]\d|2[0-3]):[0-5]\d(?::(?:[0-5]\d|60)(?:[.,]\d+)?)?"
_DATE = r"\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])"
_ZONE = r"(?:Z|z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)?"

VOLATILE_KINDS: dict[str, re.Pattern[str]] = {
    # Any version and variant: the 8-4-4-4-12 hex shape is all that makes a uuid.
    "uuid": re.compile(f"{_HEX}{{8}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{4}}-{_HEX}{{12}}"),
    # A date with a time of day, extended or basic form: when the run happened, not a choice.
    "timestamp": re.compile(
        f"{_DATE}[Tt ]{_TIME}{_ZONE}"
        r"|\d{4}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3])[0-5]\d(?:[0-5]\d)?"
        r"(?:[.,]\d+)?(?:Z|[+-]\d{4})?"
    ),
    # 16+ hex digits in one case with both a digit and a letter (trace ids, hashes, object
    # ids): a word has no digit, and a long run of digits alone may be an order or card number.
    "hex id": re.compile(r"(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{16,}"
                         r"|(?=[0-9A-F]*[A-F])(?=[0-9A-F]*\d)[0-9A-F]{16,}"),
}
"""The kinds of string the snapshot treats as volatile, each matched against the whole
string: a uuid, an ISO 8601 timestamp (a date with a time of day), a long hex id."""

_LONGEST_VOLATILE = 200
"""Longer strings are never volatile (no id or timestamp is this long); keeps matching cheap."""


def volatile_kind(value: str) -> str | None:
    """Return the kind (a key of :data:`VOLATILE_KINDS`) of a string that is volatile as a
    whole, or None for any other string."""
    if len(value) > _LONGEST_VOLATILE:
        return None
    for kind, pattern in VOLATILE_KINDS.items():
        if pattern.fullmatch(value):
            return kind
    return None


@dataclass
class Generalised:
    """What :func:`generalise` replaced: the JSON paths of the volatile values, with kinds."""

    replaced: list[tuple[str, str]] = field(default_factory=list)
    """``(path, kind)`` in the order met (``expected_tool_calls[0].args.id``, ``uuid``)."""


def generalise(
    value: Any,
    path: str,
    found: Generalised,
    *,
    exact: bool = False,
    ignore: re.Pattern[str] | None = None,
) -> Any:
    """Return a copy of ``value`` (a trace's JSON value) fit to stand as an expected value.

    A string volatile as a whole becomes ``{"$type": "string"}`` (unless ``exact``), recorded
    in ``found`` under its JSON ``path``. An object that would read as a matcher (every key
    starts with ``$``, as in a Mongo update) is wrapped in ``{"$eq": ...}`` so it is compared
    literally, exact or not. ``ignore`` (for a call's arguments) matches dotted key paths
    below ``value``: such a key is left out at the top level and becomes ``{"$exists": true}``
    deeper down; arrays end the paths, as in trajectory matching. Values nested past the JSON
    depth limit are copied as they are.
    """
    return _generalise(value, path, found, exact, 0, ignore, "")


def _generalise(
    value: Any,
    path: str,
    found: Generalised,
    exact: bool,
    depth: int,
    ignore: re.Pattern[str] | None,
    key_path: str | None,
) -> Any:
    if isinstance(value, str):
        kind = None if exact else volatile_kind(value)
        if kind is None:
            return value
        found.replaced.append((path, kind))
        return dict(ANY_STRING)
    if depth >= MAX_JSON_DEPTH or not isinstance(value, (Mapping, list)):
        return copy.deepcopy(value)
    if isinstance(value, list):
        return [_generalise(v, f"{path}[{i}]", found, exact, depth + 1, ignore, None)
                for i, v in enumerate(value)]
    if is_matcher_object(value):
        # Compared literally: its insides are the recorded value, not matchers to generalise.
        return {"$eq": copy.deepcopy(dict(value))}
    out: dict[str, Any] = {}
    for key, item in value.items():
        inner = None if key_path is None else (f"{key_path}.{key}" if key_path else str(key))
        if ignore is not None and inner is not None and ignore.fullmatch(inner):
            if key_path:
                out[key] = dict(PRESENT)
            continue
        out[key] = _generalise(item, f"{path}.{key}", found, exact, depth + 1, ignore, inner)
    return out


def expected_calls(
    trace: AgentTrace,
    *,
    ignore_args: Sequence[str] = (),
    exact: bool = True,
    found: Generalised | None = None,
    counts: bool = False,
) -> list[dict[str, Any]]:
    """Return ``{"tool": name, "args": {...}}`` for each executed call (not denied, not failed).

    ``args`` is left out when the trace does not know the call's arguments as a JSON object.
    An argument whose dotted path matches an ``ignore_args`` glob (``*`` crossing dots, as in
    the ``trajectory`` block) is left out; inside an object argument it stays as
    ``{"$exists": true}``, because ``argument_correctness`` compares nested objects in full.
    The arguments are :func:`generalise` d (volatile values replaced unless ``exact``, the
    replacements noted in ``found``).

    With ``counts``, each call also gets ``times``: a run of identical calls one after another
    (same tool, same recorded arguments) becomes one entry with ``times: n``, any other call
    ``times: 1``; the draft then fails a run that repeats a call the good run made once (a
    double refund), in every mode, and still passes the run it came from.
    """
    ignore = glob_pattern(ignore_args)
    found = found if found is not None else Generalised()
    calls: list[dict[str, Any]] = []
    previous: tuple[str, Any] | None = None
    for step in trace.tool_calls():
        if step.denied or step.error is not None or not step.tool_name:
            continue
        if counts:
            recorded = (step.tool_name, canonical_key(step.tool_args))
            if recorded == previous:
                calls[-1]["times"] += 1
                continue
            previous = recorded
        call: dict[str, Any] = {"tool": step.tool_name}
        if step.tool_args is not None:
            where = f"expected_tool_calls[{len(calls)}].args"
            call["args"] = generalise(step.tool_args, where, found, exact=exact, ignore=ignore)
        if counts:
            call["times"] = 1
        calls.append(call)
    return calls


def trace_reference(trace_path: Path, testcase_path: Path) -> str:
    """Return ``trace_path`` relative to the folder of ``testcase_path``, with ``/`` separators.

    This is the value of a test case's ``trace`` key, which is read relative to the test case.
    """
    base = testcase_path.resolve().parent
    relative = os.path.relpath(trace_path.resolve(), base)
    return Path(relative).as_posix()


def draft_test_case(
    trace: AgentTrace,
    *,
    task_id: str | None = None,
    trace_ref: str | None = None,
    mode: str | None = None,
    ignore_args: Sequence[str] = (),
    exact: bool = False,
    found: Generalised | None = None,
    counts: bool = False,
) -> EvalTestCase:
    """Return a test case that the given known-good ``trace`` passes.

    ``task_id`` defaults to the trace's; ``trace_ref`` becomes the case's ``trace`` key (None
    leaves it unset). ``max_steps`` is the trace's number of tool calls, denied ones included;
    when some calls were denied or failed (so they are not expected), ``optimal_steps`` says the
    trace's own count is the efficient one.

    ``mode`` (one of the trajectory modes) or ``ignore_args`` adds a ``trajectory`` block
    (mode ``in_order`` when only globs are given). Volatile strings are replaced by
    ``{"$type": "string"}`` unless ``exact``; ``found``, when given, collects where.
    ``counts`` writes ``times`` on every expected call (see :func:`expected_calls`). Raises
    ValueError for a mode that is not one of the trajectory modes, or an empty glob.
    """
    if mode is not None and mode not in TRAJECTORY_MODES:
        raise ValueError(f"{mode!r} is not one of {', '.join(TRAJECTORY_MODES)}")
    if any(not glob for glob in ignore_args):
        raise ValueError("an ignore_args glob is empty; expected an argument path glob")
    found = found if found is not None else Generalised()
    expected = expected_calls(trace, ignore_args=ignore_args, exact=exact, found=found,
                              counts=counts)
    state = generalise(trace.actual_state, "expected_final_state", found, exact=exact)
    calls = len(trace.tool_calls())
    trajectory: dict[str, Any] | None = None
    if mode is not None or ignore_args:
        trajectory = {"mode": mode or "in_order"}
        if ignore_args:
            trajectory["ignore_args"] = list(ignore_args)
    return EvalTestCase(
        task_id=task_id or trace.task_id,
        input=trace.input,
        expected_tool_calls=expected,
        expected_final_state=state,
        expected_output_contains=[],
        max_steps=calls,
        optimal_steps=calls if calls != len(expected) else None,
        trace=trace_ref,
        trajectory=trajectory,
    )


def case_document(case: EvalTestCase) -> dict[str, Any]:
    """Return the JSON object to write for ``case``: its fields, without the unset optional ones.

    Keys whose value is None, or an empty ``thresholds``, ``checks`` or ``denied_when``, are
    left out so the file stays short; they load back to the same defaults. A first key
    ``"$schema"`` names the published test case schema, for editors.
    """
    from openeval.models import SCHEMA_KEY
    from openeval.schemas.publish import schema_url

    document = case.to_dict()
    return {SCHEMA_KEY: schema_url("testcase")} | {
        key: value
        for key, value in document.items()
        if value is not None and not (key in _EMPTY_LEFT_OUT and not value)
    }


_EMPTY_LEFT_OUT = ("thresholds", "checks", "denied_when")

"""Drafting a test case from a known-good trace (``openeval snapshot``).

The draft pins down what a good run *did*: the tools it ran with their arguments and how many
times (``times`` per expected call), its final state, and a step budget equal to its number of
tool calls. It leaves the wording of the final answer unchecked (``expected_output_contains``
stays empty), because model text changes from run to run while tool calls and state should
not; add the phrases that matter by hand.

Asked for a trajectory mode, the draft also holds a ``trajectory`` block
(docs/semantics.md#trajectory-matching) with that mode and the ``ignore_args`` globs; ignored
argument paths are left out of the expected calls too (inside an object argument they stay as
``{"$exists": true}``), so ``argument_correctness`` does not check their values either.
Asked ``per_turn``, the expected calls are written per user turn (``turns``,
proposals/0154-turn-expectations.md) instead of as one list.

Values that look like noise are generalised, unless ``exact``: a string that is, as a whole,
one of the :data:`VOLATILE_KINDS` becomes ``{"$type": "string"}``
(docs/semantics.md#argument-matchers), in the expected calls' arguments and the expected final
state, at any depth -- but only when the run's outcome does not repeat it
(docs/semantics.md#what-a-snapshot-keeps, :class:`Outcome`): a timestamp the final state
also holds is the booking the task asked for, not the time the run happened.
The shape rule recognises only shapes no ordinary word or number has; a bare date
(``2026-03-01``) is kept, since it is usually what the task asked for ("fly on 1 March").
proposals/0030-trajectory-matching.md and proposals/0200-snapshot-keeps-the-outcome.md give
the reasons.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openeval.matching.calls import glob_pattern
from openeval.matching.matchers import is_matcher_object
from openeval.matching.trajectory import TRAJECTORY_MODES
from openeval.models import AgentTrace, EvalTestCase, TraceStep
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


_NOISE_KEY = re.compile(
    r"(?:created|updated|modified|requested|sent|received|generated|issued)"
    r"(?:_?(?:at|on|time|timestamp))?"
    r"|timestamp|request_?id|trace_?id|span_?id|correlation_?id|idempotency_?key|nonce",
    re.IGNORECASE,
)
"""Key names of bookkeeping values (creation and request times, request and trace ids): a
volatile value under such a key is noise even where the outcome repeats it."""

_SEARCHED_TEXT = 1_000_000
"""Characters of the user's input and of the final output read for words."""

_WORD = re.compile(r"[0-9A-Za-z][0-9A-Za-z:.,+_-]*")
"""A word of text as far as a volatile value goes: every volatile kind is one such word, or two
joined by one space (a date, a space, a time of day)."""


def _words(text: str) -> frozenset[str]:
    """The words of ``text`` (trailing punctuation cut) and each pair of words one space apart:
    a value is named in a text when it is one of these, so a lookup costs no search."""
    found: set[str] = set()
    previous: re.Match[str] | None = None
    for match in _WORD.finditer(text[:_SEARCHED_TEXT]):
        word = match.group().rstrip(".,:+_-")
        found.add(word)
        if previous is not None and previous.end() + 1 == match.start() and (
                text[previous.end()] == " "):
            found.add(f"{previous.group()} {word}")
        previous = match
    return frozenset(found)


Where = Literal["argument", "state"]

_NAMED = "the user's input names it"


@dataclass(frozen=True)
class Outcome:
    """What a run's outcome holds, to tell the value a task is about from noise.

    A volatile-looking value is the outcome, and kept literally, when the user's input names
    it or the final output says it (as a word of the text, :func:`_words`), or when the other
    half of the outcome repeats it: for a call argument, the final state holds the same string
    (a value or a key); for a final-state value, an executed call's arguments carried it. See
    docs/semantics.md#what-a-snapshot-keeps.
    """

    asked: frozenset[str] = frozenset()
    """The words of the user's input and of every user message (see :func:`_words`)."""
    output: frozenset[str] = frozenset()
    """The words of the final output."""
    state_values: frozenset[str] = frozenset()
    """Every string in the final state (values and keys), at any depth."""
    argument_values: frozenset[str] = frozenset()
    """Every string in an executed call's arguments, at any depth."""

    @classmethod
    def of(cls, trace: AgentTrace) -> Outcome:
        """Return the outcome of ``trace`` (its input, final output, state and arguments)."""
        asked = [trace.input, *(m.content for m in trace.messages if m.role == "user")]
        arguments: set[str] = set()
        for step in _executed(trace.tool_calls()):
            arguments.update(_strings(step.tool_args))
        return cls(
            asked=frozenset().union(*(_words(text) for text in asked if text)),
            output=_words(trace.final_output),
            state_values=frozenset(_strings(trace.actual_state)),
            argument_values=frozenset(arguments),
        )

    def repeats(self, value: str, where: Where) -> str | None:
        """Return why ``value`` (met in a call argument or in the final state) is part of the
        outcome, or None when nothing but its own place holds it."""
        if value in self.asked:
            return _NAMED
        if value in self.output:
            return "the final output says it"
        if where == "argument" and value in self.state_values:
            return "the final state holds it"
        if where == "state" and value in self.argument_values:
            return "a call's arguments set it"
        return None


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, object keys included, to the JSON depth limit."""
    found: list[str] = []
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif depth < MAX_JSON_DEPTH and isinstance(item, Mapping):
            found.extend(str(k) for k in item)  # a state keyed by the booked time holds it too
            stack.extend((v, depth + 1) for v in item.values())
        elif depth < MAX_JSON_DEPTH and isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return found


@dataclass
class Generalised:
    """What :func:`generalise` replaced, and the volatile-looking values it kept."""

    replaced: list[tuple[str, str]] = field(default_factory=list)
    """``(path, kind)`` in the order met (``expected_tool_calls[0].args.id``, ``uuid``)."""
    kept: list[tuple[str, str]] = field(default_factory=list)
    """``(path, why)`` of each volatile-looking value kept because the outcome repeats it
    (``expected_tool_calls[0].args.start``, ``the final state holds it``)."""


def generalise(
    value: Any,
    path: str,
    found: Generalised,
    *,
    exact: bool = False,
    ignore: re.Pattern[str] | None = None,
    outcome: Outcome | None = None,
    where: Where = "argument",
) -> Any:
    """Return a copy of ``value`` (a trace's JSON value) fit to stand as an expected value.

    A string volatile as a whole becomes ``{"$type": "string"}`` (unless ``exact``), recorded
    in ``found`` under its JSON ``path`` -- unless ``outcome`` repeats it (``where`` says
    whether ``value`` is a call's arguments or the final state) and its key does not name a
    bookkeeping value (``created_at``, ``request_id``): then it is kept and noted in
    ``found.kept``. An object that would read as a matcher (every key
    starts with ``$``, as in a Mongo update) is wrapped in ``{"$eq": ...}`` so it is compared
    literally, exact or not. ``ignore`` (for a call's arguments) matches dotted key paths
    below ``value``: such a key is left out at the top level and becomes ``{"$exists": true}``
    deeper down; arrays end the paths, as in trajectory matching. Values nested past the JSON
    depth limit are copied as they are.
    """
    walk = _Walk(found, exact, ignore, outcome, where)
    return walk.value(value, path, 0, "", None)


@dataclass
class _Walk:
    """One :func:`generalise` pass: its settings, and where it notes what it did."""

    found: Generalised
    exact: bool
    ignore: re.Pattern[str] | None
    outcome: Outcome | None
    where: Where

    def value(self, value: Any, path: str, depth: int, key_path: str | None,
              key: str | None) -> Any:
        if isinstance(value, str):
            kind = None if self.exact else volatile_kind(value)
            if kind is None:
                return value
            why = self._why_kept(value, key)
            if why is not None:
                self.found.kept.append((path, why))
                return value
            self.found.replaced.append((path, kind))
            return dict(ANY_STRING)
        if depth >= MAX_JSON_DEPTH or not isinstance(value, (Mapping, list)):
            return copy.deepcopy(value)
        if isinstance(value, list):
            return [self.value(v, f"{path}[{i}]", depth + 1, None, key)
                    for i, v in enumerate(value)]
        if is_matcher_object(value):
            # Compared literally: its insides are the recorded value, not matchers to generalise.
            return {"$eq": copy.deepcopy(dict(value))}
        out: dict[str, Any] = {}
        for name, item in value.items():
            inner = (None if key_path is None
                     else (f"{key_path}.{name}" if key_path else str(name)))
            if self.ignore is not None and inner is not None and self.ignore.fullmatch(inner):
                if key_path:
                    out[name] = dict(PRESENT)
                continue
            out[name] = self.value(item, f"{path}.{name}", depth + 1, inner, str(name))
        return out

    def _why_kept(self, value: str, key: str | None) -> str | None:
        if self.outcome is None:
            return None
        why = self.outcome.repeats(value, self.where)
        if why != _NAMED and key is not None and _NOISE_KEY.fullmatch(key):
            return None  # bookkeeping, repeated or not, unless the user named it
        return why


def _executed(steps: Sequence[TraceStep]) -> list[TraceStep]:
    """The calls a good run is expected to make again: not denied, not failed, named."""
    return [s for s in steps
            if s.type == "tool_call" and not s.denied and s.error is None and s.tool_name]


def expected_calls(
    trace: AgentTrace,
    *,
    ignore_args: Sequence[str] = (),
    exact: bool = True,
    found: Generalised | None = None,
    counts: bool = False,
    outcome: Outcome | None = None,
) -> list[dict[str, Any]]:
    """Return ``{"tool": name, "args": {...}}`` for each executed call (not denied, not failed).

    ``args`` is left out when the trace does not know the call's arguments as a JSON object.
    An argument whose dotted path matches an ``ignore_args`` glob (``*`` crossing dots, as in
    the ``trajectory`` block) is left out; inside an object argument it stays as
    ``{"$exists": true}``, because ``argument_correctness`` compares nested objects in full.
    The arguments are :func:`generalise` d (volatile values replaced unless ``exact`` or
    ``outcome`` repeats them, the replacements noted in ``found``).

    With ``counts``, each call also gets ``times``: a run of identical calls one after another
    (same tool, same recorded arguments) becomes one entry with ``times: n``, any other call
    ``times: 1``; the draft then fails a run that repeats a call the good run made once (a
    double refund), in every mode, and still passes the run it came from.
    """
    return _calls(trace.tool_calls(), "expected_tool_calls", glob_pattern(ignore_args), exact,
                  found if found is not None else Generalised(), counts, outcome)


def _calls(
    steps: Sequence[TraceStep], where: str, ignore: re.Pattern[str] | None, exact: bool,
    found: Generalised, counts: bool, outcome: Outcome | None,
) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    previous: tuple[str, Any] | None = None
    for step in _executed(steps):
        name = step.tool_name or ""
        if counts:
            recorded = (name, canonical_key(step.tool_args))
            if recorded == previous:
                calls[-1]["times"] += 1
                continue
            previous = recorded
        call: dict[str, Any] = {"tool": name}
        if step.tool_args is not None:
            call["args"] = generalise(step.tool_args, f"{where}[{len(calls)}].args", found,
                                      exact=exact, ignore=ignore, outcome=outcome)
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
    counts: bool = True,
    per_turn: bool = False,
) -> EvalTestCase:
    """Return a test case that the given known-good ``trace`` passes.

    ``task_id`` defaults to the trace's; ``trace_ref`` becomes the case's ``trace`` key (None
    leaves it unset). ``max_steps`` is the trace's number of tool calls, denied ones included;
    when some calls were denied or failed (so they are not expected), ``optimal_steps`` says the
    trace's own count is the efficient one.

    ``mode`` (one of the trajectory modes) or ``ignore_args`` adds a ``trajectory`` block
    (mode ``in_order`` when only globs are given). Volatile strings the outcome does not repeat
    are replaced by ``{"$type": "string"}`` unless ``exact`` (:class:`Outcome`); ``found``,
    when given, collects where. ``counts`` (the default) writes ``times`` on every expected
    call (see :func:`expected_calls`).

    ``per_turn`` writes the expected calls as ``turns``: one entry per user message, with that
    segment's calls, ``max_steps`` (with ``counts``; 0 for a turn answered in words) and the
    ``trajectory`` block (without ``counts``, a turn without calls has no entry); the
    case-level list is then empty, so each call is judged once, in its own turn.

    Raises ValueError for a mode that is not one of the trajectory modes or an empty glob, and
    OpenEvalError when ``per_turn`` meets a trace whose turns cannot be told apart.
    """
    if mode is not None and mode not in TRAJECTORY_MODES:
        raise ValueError(f"{mode!r} is not one of {', '.join(TRAJECTORY_MODES)}")
    if any(not glob for glob in ignore_args):
        raise ValueError("an ignore_args glob is empty; expected an argument path glob")
    found = found if found is not None else Generalised()
    outcome = None if exact else Outcome.of(trace)
    ignore = glob_pattern(ignore_args)
    trajectory: dict[str, Any] | None = None
    if mode is not None or ignore_args:
        trajectory = {"mode": mode or "in_order"}
        if ignore_args:
            trajectory["ignore_args"] = list(ignore_args)
    turns: list[dict[str, Any]] | None = None
    if per_turn:
        turns = _turns(trace, ignore, exact, found, counts, outcome, trajectory)
        expected: list[dict[str, Any]] = []
    else:
        expected = _calls(trace.tool_calls(), "expected_tool_calls", ignore, exact, found,
                          counts, outcome)
    state = generalise(trace.actual_state, "expected_final_state", found, exact=exact,
                       outcome=outcome, where="state")
    calls = len(trace.tool_calls())
    executed = len(_executed(trace.tool_calls()))
    return EvalTestCase(
        task_id=task_id or trace.task_id,
        input=trace.input,
        expected_tool_calls=expected,
        expected_final_state=state,
        expected_output_contains=[],
        max_steps=calls,
        optimal_steps=calls if calls != executed else None,
        trace=trace_ref,
        trajectory=None if per_turn else trajectory,
        turns=turns,
    )


def _turns(
    trace: AgentTrace, ignore: re.Pattern[str] | None, exact: bool, found: Generalised,
    counts: bool, outcome: Outcome | None, trajectory: dict[str, Any] | None,
) -> list[dict[str, Any]]:
    from openeval.metrics.turns import segments

    entries: list[dict[str, Any]] = []
    for k, segment in enumerate(segments(trace), start=1):
        calls = [s for s in segment.steps if s.type == "tool_call"]
        if not calls and not counts:
            continue  # a turn of words only, and no count asked: nothing to expect
        entry: dict[str, Any] = {"user": k}
        if calls:
            where = f"turns[{len(entries)}].expected_tool_calls"
            entry["expected_tool_calls"] = _calls(calls, where, ignore, exact, found, counts,
                                                  outcome)
        if counts:
            # The good run's call count for the turn; 0 for a turn it answered in words.
            entry["max_steps"] = len(calls)
        if trajectory is not None:
            entry["trajectory"] = copy.deepcopy(trajectory)
        entries.append(entry)
    return entries


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

"""Building blocks for checks, the way the built-in ones are written.

A check built from these takes a context, a trace or a plain text; reads a setting passed as
None as "the default" (:func:`opt`); and returns :class:`~openeval.scores.Scores` whose names
it declares up front (:func:`declares`)::

    @declares("polite", "politeness")
    def politeness(ctx, *, words=None, name="polite"):
        words = opt(words, ["please", "thank"])
        reply = subject_text(ctx).lower()
        found = [w for w in words if w in reply]
        return Scores([
            boolean_score(opt(name, "polite"), bool(found), f"found {found}"),
            numeric_score("politeness", len(found) / len(words), "share of words"),
        ])

Work that grows faster than the text must cut it first: :data:`MAX_TEXT_CHARS` and
:data:`MAX_SENTENCES` are the library's bounds, and :func:`clip` cuts and says so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, Literal, TypeVar, get_args

import orjson

from openeval.checks import text as _text
from openeval.checks._context import CheckContext, as_context
from openeval.checks._settings import SettingError, bad_setting, strings
from openeval.models import AgentTrace, Message
from openeval.scores import Score

MAX_TEXT_CHARS = 100_000
"""The most characters of a text a check reads where its work grows faster than the text."""
MAX_SENTENCES = 1_000
"""The most sentences a check compares one by one."""
MAX_ITEMS = 10_000
"""The most list items (steps, spans, passages, rows) a check walks one by one."""

Field = Literal["output", "input", "both"]
"""What a check reads: the reply, the user's turns, or both (its ``field`` setting)."""
FIELDS: tuple[str, ...] = get_args(Field)
"""The values of a check's ``field`` setting."""

STOPWORDS: frozenset[str] = frozenset({
    "a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and",
    "any", "are", "aren", "as", "at", "be", "because", "been", "before", "being", "below",
    "between", "both", "but", "by", "can", "cannot", "could", "couldn", "did", "didn", "do",
    "does", "doesn", "doing", "don", "down", "during", "each", "few", "for", "from",
    "further", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here",
    "hers", "herself", "him", "himself", "his", "how", "however", "i", "if", "in", "into",
    "is", "isn", "it", "its", "itself", "just", "let", "me", "more", "most", "much", "must",
    "mustn", "my", "myself", "no", "nor", "not", "now", "of", "off", "on", "once", "only",
    "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own", "same",
    "shall", "shan", "she", "should", "shouldn", "so", "some", "such", "than", "that",
    "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they",
    "this", "those", "through", "thus", "to", "too", "under", "until", "up", "upon", "us",
    "very", "was", "wasn", "we", "were", "weren", "what", "when", "where", "which", "while",
    "who", "whom", "why", "will", "with", "within", "without", "won", "would", "wouldn",
    "yes", "yet", "you", "your", "yours", "yourself", "yourselves",
})
"""English words that carry no content, left out by :func:`content_words`."""

_F = TypeVar("_F", bound=Callable[..., Any])
_T = TypeVar("_T")


def declares(*names: str) -> Callable[[_F], _F]:
    """Return a decorator that records the score names a check returns, primary first.

    The names go to the function's ``__scores__`` attribute, so reports and the registry know
    them before the check has run; the function itself is returned unchanged.
    """

    def mark(function: _F) -> _F:
        function.__scores__ = names  # type: ignore[attr-defined]
        return function

    return mark


def opt(value: _T | None, default: _T) -> _T:
    """Return ``value``, or ``default`` when ``value`` is None (an unset setting)."""
    return default if value is None else value


def is_context(value: Any) -> bool:
    """Return whether ``value`` is a :class:`~openeval.checks.CheckContext`."""
    return isinstance(value, CheckContext)


def check_choice(value: Any, setting: str, choices: Collection[str]) -> str:
    """Return ``value`` when it is one of ``choices``.

    Raises:
        SettingError: it is not (a TestCaseError, and a ValueError); the message names the
            setting and lists the valid values.
    """
    if not isinstance(value, str) or value not in choices:
        listed = ", ".join(repr(c) for c in choices)
        raise bad_setting(None, setting, f"one of {listed}", value)
    return value


def clip(value: str, limit: int = MAX_TEXT_CHARS) -> tuple[str, str]:
    """Return ``value`` cut to ``limit`` characters, and a note saying so ("" when not cut).

    Put the note in the score's comment, so a verdict on part of a text never reads as a
    verdict on all of it.
    """
    if len(value) <= limit:
        return value, ""
    return value[:limit], f"read the first {limit:,} of {len(value):,} characters"


def subject_text(ctx: Any, field: str = "output", limit: int | None = None) -> str:
    """Return the text a check reads: the reply, the user's turns, or both.

    Args:
        ctx: A context or trace; a plain string (returned as it is, whatever ``field``); or a
            message value (its assistant text). None gives "".
        field: ``output`` (the reply), ``input`` (the user's messages before it) or ``both``
            (input, a new line, then output). Used for a context or trace only.
        limit: The most characters to return; None returns all.

    Raises:
        SettingError: ``field`` is not one of the three.
    """
    check_choice(field, "field", FIELDS)
    if isinstance(ctx, str):
        found = ctx
    elif isinstance(ctx, (CheckContext, AgentTrace)):
        context = as_context(ctx)
        if field == "output":
            found = context.output
        elif field == "input":
            found = _text.user_text(context)
        else:
            found = "\n".join(t for t in (_text.user_text(context), context.output) if t)
    else:
        found = _text.reply(ctx)
    return found if limit is None else found[:limit]


def reference_or_expected(ctx: Any, reference: Any) -> Any:
    """Return ``reference`` when set; else a context's ``expected_output``; else None."""
    if reference is not None:
        return reference
    if isinstance(ctx, CheckContext):
        return ctx.expected_output
    return None


def require_reference(reference: Any, check: str) -> str:
    """Return a reference as text: a string as it is, any other value as its JSON text.

    Raises:
        SettingError: ``reference`` is None; the message says how to set one.
    """
    if reference is None:
        raise SettingError(
            f"{check} needs a reference: set its `reference` setting or the test case's "
            "`expected_output`"
        )
    return reference if isinstance(reference, str) else flat_text(reference)


def boolean_score(name: str, value: Any, comment: str, higher_is_better: bool = True) -> Score:
    """Return a BOOLEAN score; ``higher_is_better=False`` for one that flags a problem."""
    return Score(bool(value), "BOOLEAN", comment or None, name, higher_is_better)


def numeric_score(name: str, value: float, comment: str, higher_is_better: bool = True) -> Score:
    """Return a NUMERIC score; ``higher_is_better=False`` for a count of problems or a time.

    A value that is not finite is refused (ValueError), as :class:`~openeval.scores.Score` does.
    """
    return Score(float(value), "NUMERIC", comment or None, name, higher_is_better)


def categorical_score(name: str, value: str, comment: str) -> Score:
    """Return a CATEGORICAL score (a label, with no good direction)."""
    return Score(value, "CATEGORICAL", comment or None, name, None)


NOT_JUDGED = "n.a."
"""The value of the one score a check returns when it has nothing to judge."""


def not_judged(name: str, reason: str) -> Score:
    """Return the score of a check with nothing to judge: its verdict is n.a., never a pass.

    A CATEGORICAL score valued ``n.a.`` under the primary score's name, its comment saying
    why (no tool calls, a reply too short to judge ...). With no BOOLEAN and no NUMERIC score
    the verdict is n.a. whatever the entry's threshold (proposals/0102-no-vacuous-passes.md).
    """
    return categorical_score(name, NOT_JUDGED, reason)


_CODE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|`[^`\n]*`", re.DOTALL)
# A scheme starts where no scheme character precedes it and is at most 32 long, so a long run
# of letters is scanned once, not once per letter.
_URL = re.compile(r"(?<![a-zA-Z0-9+.-])[a-zA-Z][a-zA-Z0-9+.-]{0,31}://[^\s<>\"'`]+")


def strip_code(value: str) -> str:
    """Return ``value`` with code blocks, inline code and URLs replaced by a space each.

    Run it before reading prose, so code does not count as words. An unclosed fence runs to
    the end of the text.
    """
    return _URL.sub(" ", _CODE.sub(" ", value))


_FENCE_SCAN_CHARS = 5 * MAX_TEXT_CHARS
_FENCE = re.compile(r"^[ \t]*(```|~~~)[ \t]*([\w+.-]*)[^\n]*\n(.*?)^[ \t]*\1", re.DOTALL | re.M)


def fenced_block(value: str, *langs: str) -> str:
    """Return the content of the first closed fenced block labelled one of ``langs``.

    A block with no label is also accepted; labels compare in any case. Only blocks inside the
    first 500,000 characters are looked at, so a huge reply of many blocks costs little.
    Returns ``value`` itself when there is no such block.
    """
    if "```" not in value and "~~~" not in value:  # cheap, and saves a scan of every line
        return value
    wanted = {lang.lower() for lang in langs}
    for match in _FENCE.finditer(value, 0, _FENCE_SCAN_CHARS):
        label = match.group(2).lower()
        if not label or label in wanted:
            return match.group(3)
    return value


def join_problems(problems: list[str], limit: int = 10) -> str:
    """Return problems as one comment: ``"a; b; and 3 more"``, or "" for none."""
    shown = "; ".join(problems[:limit])
    rest = len(problems) - limit
    return f"{shown}; and {rest} more" if rest > 0 else shown


def flat_text(value: Any) -> str:
    """Return any value as text: a string as it is, a list line by line, else JSON; None is ""."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "\n".join(flat_text(item) for item in value)
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return str(value)


def context_text(ctx: Any, context: Any = None, context_key: str = "context") -> str:
    """Return the retrieved context to check a reply against, cut to :data:`MAX_TEXT_CHARS`.

    In order: the ``context`` argument (a text, or a list of passages one per line); else the
    trace's metadata value ``context_key``; else the conversation before the reply (every
    role's text: a RAG agent puts what it retrieved in its prompt or in tool results), and
    when the trace kept no messages, its input and the results of its tool steps.

    Args:
        ctx: A context or trace; a plain string or other value counts only through
            ``context``.
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context.

    Returns:
        The context text, or "".
    """
    if context is not None:
        return flat_text(context)[:MAX_TEXT_CHARS]
    if not isinstance(ctx, (CheckContext, AgentTrace)):
        return ""
    found = as_context(ctx)
    stored = _text.metadata_value(found, context_key)
    if stored is not None:
        return flat_text(stored)[:MAX_TEXT_CHARS]
    if found.trace.messages:
        return _text.message_text(found.input)[:MAX_TEXT_CHARS]
    parts = [found.trace.input]
    size = len(found.trace.input)
    for step in found.trace.steps[:MAX_ITEMS]:
        if size > MAX_TEXT_CHARS:
            break
        result = step.tool_result if step.type == "tool_call" else (
            step.content if step.type == "tool_result" else None)
        if result:
            parts.append(result)
            size += len(result)
    return "\n".join(p for p in parts if p)[:MAX_TEXT_CHARS]


def content_words(value: str) -> list[str]:
    """Return the lower-case words of ``value`` of 3 or more characters not in STOPWORDS."""
    return [w for w in _text.words(value) if len(w) >= 3 and w not in STOPWORDS]


_NUMBER = re.compile(r"(?<![\w])-?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][+-]?\d+)?")


def _first_digit(value: str, start: int = 0) -> int:
    """Return the index of the first ASCII digit at or after ``start``, or -1."""
    found = [i for i in (value.find(d, start) for d in "0123456789") if i >= 0]
    return min(found) if found else -1


def find_numbers(value: str, limit: int | None = None) -> list[float]:
    """Return the numbers in a text, in order; ``"1,200"`` reads as 1200.

    A minus sign counts only when it does not follow a word character, so "R-1" holds 1.
    """
    found: list[float] = []
    # Jump to the first digit with str.find (fast in C): a long text with no digit, or digits
    # only at its end, then costs no regex scan of its start.
    first = _first_digit(value)
    if first < 0:
        return found
    for match in _NUMBER.finditer(value, max(first - 1, 0)):
        if limit is not None and len(found) >= limit:
            break
        number = _number_of(match.group())
        if number is not None:
            found.append(number)
    return found


def _number_of(token: str) -> float | None:
    number = float(token.replace(",", ""))
    return number if math.isfinite(number) else None


def find_number(value: Any) -> float | None:
    """Return the first number in ``value`` as a float, or None when it holds none.

    ``value`` may be a number (a bool is not one) or a text; ``"1,200"`` reads as 1200. Any
    other value is read through :func:`flat_text`.
    """
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    found = find_numbers(value if isinstance(value, str) else flat_text(value), limit=1)
    return found[0] if found else None


_TRAILING = ".,;:!?'\""
_CLOSERS = {")": "(", "]": "[", "}": "{"}


def find_urls(value: str, limit: int | None = None) -> list[str]:
    """Return the URLs (``scheme://...``) in ``value`` in order, trailing punctuation removed.

    A closing bracket at the end is kept only when the URL opens one, as in a Wikipedia link.
    ``limit`` caps how many are returned; None returns all.
    """
    found: list[str] = []
    for match in _URL.finditer(value):
        if limit is not None and len(found) >= limit:
            break
        url = match.group()
        while url:
            last = url[-1]
            if last in _TRAILING or (
                last in _CLOSERS and url.count(_CLOSERS[last]) < url.count(last)
            ):
                url = url[:-1]
            else:
                break
        if "://" in url and not url.endswith("://"):
            found.append(url)
    return found


def is_messages(value: Any) -> bool:
    """Return whether ``value`` is a list of chat messages (a dict with ``role`` or ``parts``).

    :class:`~openeval.models.Message` objects count too.
    """
    if not isinstance(value, (list, tuple)):
        return False
    return any(
        isinstance(item, Message) or (isinstance(item, Mapping) and ("role" in item
                                                                    or "parts" in item))
        for item in value
    )


def limited(items: Iterable[_T], limit: int = MAX_ITEMS) -> list[_T]:
    """Return the first ``limit`` items of ``items`` as a list."""
    found: list[_T] = []
    for item in items:
        if len(found) >= limit:
            break
        found.append(item)
    return found


def texts(value: Any, setting: str) -> tuple[str, ...]:
    """Return a list-of-texts setting as a tuple: None gives (), one text gives a tuple of it.

    Raises:
        SettingError: an item is not a text; the message names the setting.
    """
    if value is None:
        return ()
    return strings(value, (), None, setting)


def check_number(
    value: Any, setting: str, *, minimum: float | None = None, maximum: float | None = None,
    integer: bool = False,
) -> float:
    """Return a numeric setting when it is a number within ``[minimum, maximum]``.

    Raises:
        SettingError: it is not a number (a bool is not one), not whole when ``integer``, or
            out of range; the message names the setting.
    """
    finite = (not isinstance(value, bool) and isinstance(value, (int, float))
              and math.isfinite(value))
    if (not finite or (integer and value != int(value))
            or (minimum is not None and value < minimum)
            or (maximum is not None and value > maximum)):
        kind = "a whole number" if integer else "a number"
        low = f" of at least {minimum:g}" if minimum is not None else ""
        high = (" and" if low else "") + f" at most {maximum:g}" if maximum is not None else ""
        raise bad_setting(None, setting, f"{kind}{low}{high}", value)
    checked: float = value  # an int stays an int: comments print it as given
    return checked

"""Checks of a reply against the context it should rest on: grounding, numbers, citations.

The context is, in order: the ``context`` setting (a text or a list of passages); the trace's
metadata value ``context_key``; else the conversation before the reply, where an agent's
retrieved documents arrive (tool turns, or the tool results of its steps when the trace kept
no messages). Word checks, not an entailment model: they catch a reply that talks about
things, or quotes figures, the context never mentions. (:mod:`openeval.checks._context` is
the unrelated context *type*.)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from openeval.checks import _settings, text, util
from openeval.checks._steps import CheckInput, read_context
from openeval.scores import Scores

_NAMED_LIMIT = 5
_NO_CONTEXT = ("no context to check against: set `context`, the trace's metadata "
               "`{key}`, or give the conversation")


def _context_key(value: Any, check: str) -> str:
    if value is None:
        return "context"
    if not isinstance(value, str) or not value:
        raise _settings.bad_setting(check, "context_key", "a non-empty text", value)
    return value


def _context_text(ctx: Any, context: Any, key: str) -> str:
    # A plain-text ctx is the reply, never its own context.
    return util.context_text(None if isinstance(ctx, str) else ctx, context, key)


def _quoted(sentence: str, limit: int = 60) -> str:
    flat = " ".join(sentence.split())
    return repr(flat if len(flat) <= limit else flat[: limit - 3] + "...")


# --- grounding -------------------------------------------------------------------------------


@util.declares("grounded", "grounding")
def grounding(
    ctx: CheckInput, *, context: Any = None, context_key: str = "context",
    min_overlap: float = 0.6, threshold: float = 0.8, name: str = "grounded",
) -> Scores:
    """Score the share of the reply's sentences whose words appear in the context.

    A sentence is grounded when at least ``min_overlap`` of its distinct content words (3
    letters or more, no stop words) appear in the context; a plural and its singular count
    as the same word. Sentences with no content word are not counted, and a reply with none
    scores 1. Code and URLs are left out of the reply first. Without any context the check
    cannot run: it fails and says so.

    Args:
        ctx: A context or trace, or the reply text (then give ``context``).
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context.
        min_overlap: Share of a sentence's words, 0 to 1, that must be in the context.
        threshold: Share of grounded sentences, 0 to 1, at which the reply is grounded.
        name: Name of the primary score.

    Returns:
        grounded (BOOLEAN): grounding reached ``threshold``; ``n.a.`` (no other score) when
            no sentence of the reply has a content word to check.
        grounding (NUMERIC, 0 to 1): the share of grounded sentences.
    """
    check = "grounding"
    key = _context_key(context_key, check)
    overlap_line = _settings.number(min_overlap, 0.6, check, "min_overlap", maximum=1.0)
    line = _settings.number(threshold, 0.8, check, "threshold", maximum=1.0)
    primary = _settings.score_name(name, "grounded", check)
    reply, note = util.clip(read_context(ctx, check).output)
    source = _context_text(ctx, context, key)
    if not source.strip():
        comment = _NO_CONTEXT.format(key=key)
        return Scores([util.boolean_score(primary, False, comment),
                       util.numeric_score("grounding", 0.0, comment)])
    known = set(util.content_words(source))
    said = text.sentences(util.strip_code(reply))
    if len(said) > util.MAX_SENTENCES:
        note = "; ".join(n for n in (note, f"read the first {util.MAX_SENTENCES:,} sentences")
                         if n)
        said = said[: util.MAX_SENTENCES]
    counted = grounded = 0
    worst: tuple[float, str] | None = None
    for sentence in said:
        words = set(util.content_words(sentence))
        if not words:
            continue
        counted += 1
        share = sum(1 for w in words if _known(w, known)) / len(words)
        if share >= overlap_line:
            grounded += 1
        elif worst is None or share < worst[0]:
            worst = (share, sentence)
    if not counted:
        comment = "no sentence with content words to check"
        return Scores([util.not_judged(primary, f"{comment} ({note})" if note else comment)])
    score = grounded / counted
    comment = f"{grounded} of {counted} sentences grounded"
    if worst is not None:
        comment += f"; least grounded: {_quoted(worst[1])} ({worst[0]:.2f} of its words)"
    if note:
        comment += f" ({note})"
    return Scores([
        util.boolean_score(primary, score >= line, comment),
        util.numeric_score("grounding", score, comment),
    ])


def _known(word: str, known: set[str]) -> bool:
    if word in known:
        return True
    if word.endswith("es") and word[:-2] in known:
        return True
    if word.endswith("s") and word[:-1] in known:
        return True
    return word + "s" in known or word + "es" in known


# --- unsupported_numbers ---------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.,])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w]|[.,]\d)")
_LIST_POSITION = re.compile(r"[ \t]*[(\[]?$")
_CAPITALISED = re.compile(r"[A-Z][\w'\u2019-]*(?:[ \t]+[A-Z][\w'\u2019-]*){0,5}")
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?:])\s+|\n)[\s\"'(\[*_>#-]*", re.MULTILINE)
_LEADING_WORDS = frozenset({
    "the", "a", "an", "this", "that", "these", "those", "it", "we", "you", "he", "she",
    "they", "our", "your", "my", "his", "her", "its", "their", "if", "when", "in", "on", "at",
    "for", "and", "but", "or", "so", "as", "i", "i'm", "i'll", "i've", "i'd",
})
_NGRAM = 6
"""Longest name, in words, looked up in the context."""


@util.declares("numbers_supported", "unsupported_count")
def unsupported_numbers(
    ctx: CheckInput, *, context: Any = None, context_key: str = "context",
    check_entities: bool = True, name: str = "numbers_supported",
) -> Scores:
    """Find numbers and names in the reply that the context does not have.

    Numbers compare by value: "1,200" equals "1200" and "1.50" equals "1.5". One-digit whole
    numbers and list positions ("2." or "3)" opening a line) are ignored. Names are runs of
    capitalised words that do not start a sentence (leading words such as "The" dropped),
    found in the context in any case. Each distinct value counts once. Without any context,
    every number and name found is unsupported.

    Args:
        ctx: A context or trace, or the reply text (then give ``context``).
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context.
        check_entities: Also check names.
        name: Name of the primary score.

    Returns:
        numbers_supported (BOOLEAN): every number and name found is in the context.
        unsupported_count (NUMERIC, lower is better): how many are not.
    """
    check = "unsupported_numbers"
    key = _context_key(context_key, check)
    entities = _settings.boolean(check_entities, True, check, "check_entities")
    primary = _settings.score_name(name, "numbers_supported", check)
    reply, note = util.clip(read_context(ctx, check).output)
    source = _context_text(ctx, context, key)
    prose = util.strip_code(reply)
    known_numbers = {value for _, value in _numbers(source, skip_small=False)}
    said = _numbers(prose, skip_small=True)
    missing: dict[str, str] = {}
    for shown, value in said:
        if value not in known_numbers:
            missing.setdefault(value, shown)
    checked = len({value for _, value in said})
    if entities:
        known_names = _word_runs(source)
        for entity in _names(prose):
            checked += 1
            if tuple(text.words(entity)) not in known_names:
                missing.setdefault("name:" + entity.casefold(), entity)
    unsupported = list(missing.values())
    what = "numbers and names" if entities else "numbers"
    if unsupported:
        comment = (f"{len(unsupported)} not in the context: "
                   + util.join_problems(unsupported, _NAMED_LIMIT))
        if not source.strip():
            comment = _NO_CONTEXT.format(key=key) + f"; {comment}"
    elif checked:
        comment = f"every one of {checked} {what} is in the context"
    else:
        comment = f"no {what} to check"
    if note:
        comment += f" ({note})"
    return Scores([
        util.boolean_score(primary, not unsupported, comment),
        util.numeric_score("unsupported_count", len(unsupported), comment,
                           higher_is_better=False),
    ])


def _numbers(body: str, *, skip_small: bool) -> list[tuple[str, str]]:
    """Return ``(as written, value key)`` for each number in ``body``."""
    found = []
    for match in _NUMBER.finditer(body):
        written = match.group()
        plain = written.replace(",", "")
        if skip_small:
            if "." not in plain and len(plain.lstrip("0") or "0") == 1:
                continue
            line_start = body.rfind("\n", 0, match.start()) + 1
            follows = body[match.end(): match.end() + 1]
            if follows in (".", ")") and _LIST_POSITION.fullmatch(
                    body[line_start:match.start()]):
                continue
        try:
            value = Decimal(plain).normalize()
        except InvalidOperation:
            continue
        found.append((written, f"{value:f}"))
    return found


def _names(body: str) -> list[str]:
    """Return the distinct capitalised runs of ``body`` that do not start a sentence."""
    starts = {m.end() for m in _SENTENCE_START.finditer(body)}
    found: dict[str, str] = {}
    for match in _CAPITALISED.finditer(body):
        if match.start() in starts:
            continue
        if match.start() > 0 and (body[match.start() - 1].isalnum()
                                  or body[match.start() - 1] in "_'\u2019"):
            continue  # the capital sits inside a word ("iPhone", "McDonald")
        words = match.group().split()
        while words and words[0].casefold() in _LEADING_WORDS:
            words = words[1:]
        if not words or (len(words) == 1 and len(words[0]) == 1):
            continue
        entity = " ".join(words)
        found.setdefault(entity.casefold(), entity)
        if len(found) >= util.MAX_ITEMS:
            break
    return list(found.values())


def _word_runs(body: str) -> set[tuple[str, ...]]:
    """Return every run of 1 to :data:`_NGRAM` consecutive words of ``body``, lower case."""
    words = text.words(body)
    return {tuple(words[i:i + n]) for n in range(1, _NGRAM + 1)
            for i in range(len(words) - n + 1)}


# --- citation_check --------------------------------------------------------------------------

_MARKER = re.compile(r"\[(\d{1,9}(?:[ \t]*[-\u2013,][ \t]*\d{1,9})*)\](?!\()")
_CONTEXT_MARK = re.compile(r"\[(\d{1,9})\]|^[ \t]*(\d{1,9})[.)][ \t]", re.MULTILINE)
_RANGE_LIMIT = 1000
"""Longest ``[a-b]`` range expanded; a longer one is a problem in itself."""


@util.declares("citations_ok", "citation_count")
def citation_check(
    ctx: CheckInput, *, sources: Sequence[Any] | None = None, context: Any = None,
    context_key: str = "context", require_citation: bool = False, check_urls: bool = True,
    name: str = "citations_ok",
) -> Scores:
    """Check that every citation in the reply points at a real source.

    A marker such as ``[2]``, ``[1, 3]`` or ``[2-4]`` must name a source: a number from 1 to
    the number of ``sources`` when they are given, else a number the context marks as
    ``[n]`` or as a numbered line. A URL in the reply must appear in the sources or the
    context (scheme, ``www.`` and a trailing slash aside). Code is left out of the reply
    first, so ``items[0]`` is not a citation.

    Args:
        ctx: A context or trace, or the reply text (then give ``context`` or ``sources``).
        sources: The sources the reply may cite, in order (texts or JSON values).
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context.
        require_citation: Fail a reply with no citation at all.
        check_urls: Check the reply's URLs too (and count them as citations).
        name: Name of the primary score.

    Returns:
        citations_ok (BOOLEAN): every citation resolves (and there is one, with
            ``require_citation``); ``n.a.`` for a reply that cites nothing when citations are
            not required (nothing to judge).
        citation_count (NUMERIC): markers and URLs found.
    """
    check = "citation_check"
    key = _context_key(context_key, check)
    listed = _sources(sources, check)
    required = _settings.boolean(require_citation, False, check, "require_citation")
    urls_too = _settings.boolean(check_urls, True, check, "check_urls")
    primary = _settings.score_name(name, "citations_ok", check)
    reply, note = util.clip(read_context(ctx, check).output)
    source = _context_text(ctx, context, key)
    problems: list[str] = []
    markers = list(_MARKER.finditer(util.strip_code(reply)))
    if markers:
        valid = (set(range(1, len(listed) + 1)) if listed is not None
                 else _context_marks(source))
        where = (f"{len(listed)} sources" if listed is not None
                 else "the context's numbered sources")
        for marker in markers:
            problem = _marker_problem(marker.group(1), valid)
            if problem:
                problems.append(f"[{marker.group(1)}]: {problem} ({where})")
    urls = util.find_urls(reply) if urls_too else []
    if urls:
        cited = _url_keys(source, listed or [])
        for url in urls:
            if _url_key(url) not in cited:
                problems.append(f"{_short_url(url)}: not in the sources or context")
    count = len(markers) + len(urls)
    if not count and required:
        problems.append("the reply cites nothing (require_citation)")
    if problems:
        comment = util.join_problems(problems, _NAMED_LIMIT)
    elif count:
        comment = f"{count} citation{'s' if count != 1 else ''} resolved"
    else:
        comment = "no citation in the reply"
    if note:
        comment += f" ({note})"
    judged = (util.boolean_score(primary, not problems, comment) if problems or count
              else util.not_judged(primary, comment))
    return Scores([
        judged,
        util.numeric_score("citation_count", count, f"{len(markers)} markers, {len(urls)} URLs"),
    ])


def _sources(value: Any, check: str) -> list[Any] | None:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    if not isinstance(value, (list, tuple)):
        raise _settings.bad_setting(check, "sources", "a list of sources", value)
    return list(value)


def _context_marks(source: str) -> set[int]:
    marks: set[int] = set()
    for match in _CONTEXT_MARK.finditer(source):
        marks.add(int(match.group(1) or match.group(2)))
        if len(marks) >= util.MAX_ITEMS:
            break
    return marks


def _marker_problem(inside: str, valid: set[int]) -> str | None:
    wanted: list[int] = []
    for part in re.split(r"[ \t]*,[ \t]*", inside.strip()):
        bounds = [int(b) for b in re.split(r"[ \t]*[-\u2013][ \t]*", part)]
        if len(bounds) == 1:
            wanted.append(bounds[0])
            continue
        low, high = bounds[0], bounds[-1]
        if low > high:
            return "a reversed range"
        if high - low > _RANGE_LIMIT:
            return "a range too long to be a citation"
        wanted.extend(range(low, high + 1))
    missing = [n for n in wanted if n not in valid]
    if missing:
        return f"no source {', '.join(str(n) for n in missing[:5])}"
    return None


_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*://")


def _url_key(url: str) -> str:
    """Return a URL as it is compared: no scheme, ``www.``, fragment or trailing slash."""
    bare = _SCHEME.sub("", url.strip().lower()).split("#", 1)[0].rstrip("/")
    return bare[4:] if bare.startswith("www.") else bare


def _url_keys(source: str, listed: Sequence[Any]) -> set[str]:
    """Return the keys of every URL the context and sources hold, and of each bare source."""
    keys = {_url_key(url) for url in util.find_urls(source)}
    for item in listed:
        flat = util.flat_text(item)
        keys.update(_url_key(url) for url in util.find_urls(flat))
        if flat.strip() and not any(c.isspace() for c in flat.strip()):
            keys.add(_url_key(flat))  # a source given as "example.com/docs"
    return keys


def _short_url(url: str, limit: int = 60) -> str:
    bare = url.split("?", 1)[0]
    return bare if len(bare) <= limit else bare[: limit - 3] + "..."

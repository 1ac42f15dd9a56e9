"""Format checks: JSON, patterns, keywords, substrings, length, Markdown, HTML, CSV, TOML, SQL.

Each check takes a text, a trace or a :class:`~openeval.checks.CheckContext` first (it reads the
reply, ``final_output``, unless its ``field`` setting says otherwise), its settings as keyword
arguments (None means the default), and returns :class:`~openeval.scores.Scores`, primary first.
"""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Mapping
from html.parser import HTMLParser
from itertools import islice
from typing import Any, Literal, get_args

from openeval.checks import text as _text
from openeval.checks._context import CheckContext
from openeval.checks._settings import SettingError, read_once
from openeval.checks.util import (
    MAX_ITEMS,
    MAX_TEXT_CHARS,
    Field,
    check_choice,
    check_number,
    clip,
    declares,
    fenced_block,
    join_problems,
    opt,
    reference_or_expected,
    subject_text,
    texts,
)
from openeval.checks.util import boolean_score as _boolean
from openeval.checks.util import categorical_score as _categorical
from openeval.checks.util import numeric_score as _numeric
from openeval.errors import OpenEvalError
from openeval.io.limits import toml_shape_refusal
from openeval.matching.regex_bounds import backtracking_risk
from openeval.matching.regex_budget import bounded_search
from openeval.scores import Scores
from openeval.values import json_type_is

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

JsonType = Literal["string", "number", "integer", "boolean", "array", "object", "null"]
"""A JSON type name, as ``key_types`` gives it."""
_JSON_TYPES: tuple[str, ...] = get_args(JsonType)


def _with_note(comment: str, note: str) -> str:
    return f"{comment} ({note})" if note else comment


# --- json_validity -------------------------------------------------------------------------


def _read_json(ctx: Any, from_fence: bool) -> tuple[bool, Any, str]:
    """Return ``(parsed, value, where)``: whether the output is JSON, its value, how it was read."""
    if isinstance(ctx, (dict, list, int, float)):  # bool included: true is JSON too
        return True, ctx, "the value arrived parsed"
    body = subject_text(ctx).strip()
    if not body:
        return False, None, "the reply is empty"
    ok, value = _text.parse_json(body)
    if ok:
        return True, value, "the reply parses as JSON"
    if from_fence:
        block = fenced_block(body, "json")
        if block is not body:
            ok, value = _text.parse_json(block)
            if ok:
                return True, value, "the fenced block parses as JSON"
            return False, None, "the fenced block is not valid JSON"
    return False, None, "the reply is not valid JSON"


@declares("is_json", "json_schema_ok")
def json_validity(
    ctx: Any,
    *,
    extract_from_code_fence: bool | None = True,
    required_keys: Any = (),
    key_types: Mapping[str, JsonType] | None = None,
    schema: Mapping[str, Any] | None = None,
    name: str | None = "is_json",
) -> Scores:
    """Check that the output is JSON and has the shape you expect.

    A value that arrives already parsed (a dict, list or number) counts as JSON.

    Args:
        ctx: A context or trace (reads the reply), a text, or a parsed JSON value.
        extract_from_code_fence: When the whole reply does not parse, read the first
            ```json (or unlabelled) fenced block instead. False demands bare JSON.
        required_keys: Keys the top-level object must have.
        key_types: ``{key: type}`` for top-level keys; a type is one of ``string``, ``number``,
            ``integer``, ``boolean``, ``array``, ``object``, ``null``. A missing key is left to
            ``required_keys``.
        schema: A JSON Schema (Draft 2020-12) the value must match, applied by the project's
            schema validator; one that is not a valid schema is a setting error, and so is a
            ``pattern`` that can backtrack exponentially or a ``$ref`` outside the schema. A
            pattern searches at most 10,000 characters; a longer string does not match.
        name: Name of the primary score.

    Returns:
        is_json (BOOLEAN): the output parses as JSON.
        json_schema_ok (BOOLEAN): it parses and meets ``required_keys``, ``key_types`` and
            ``schema`` (the same as is_json when none is set).
    """
    keys = texts(required_keys, "required_keys")
    types = dict(key_types or {})
    for key, kind in types.items():
        check_choice(kind, f"key_types[{key!r}]", _JSON_TYPES)
    if schema:
        from openeval.schemas import schema_error

        wrong = schema_error(schema)
        if wrong is not None:
            raise SettingError(f"json_validity: setting 'schema' is not a JSON Schema: {wrong}")
        # The schema is the test case author's: its patterns meet the bounds every user regex
        # meets (proposals/0163-bounded-user-regexes.md), before any reply is searched.
        refused = _schema_pattern_refusal(schema)
        if refused is not None:
            raise SettingError(f"json_validity: setting 'schema': {refused}")
    parsed, value, where = _read_json(ctx, bool(opt(extract_from_code_fence, True)))
    primary = opt(name, "is_json")
    if not parsed:
        return Scores([
            _boolean(primary, False, where),
            _boolean("json_schema_ok", False, f"not checked: {where}"),
        ])
    problems: list[str] = []
    if keys or types:
        if not isinstance(value, dict):
            problems.append("the top-level value is not an object")
        else:
            problems.extend(f"missing key {key!r}" for key in keys if key not in value)
            problems.extend(
                f"key {key!r} is not {kind}"
                for key, kind in types.items()
                if key in value and not json_type_is(value[key], kind)
            )
    if schema:
        from openeval.matching.matchers import MAX_REGEX_SUBJECT
        from openeval.schemas import schema_problems

        # The schema's patterns search under the CPU budget of every user regex: one that
        # uses it up errors the check, naming it (proposals/0310-regex-cpu-budget.md).
        problems.extend(schema_problems(value, schema, limit=MAX_ITEMS,
                                        max_subject=MAX_REGEX_SUBJECT, search=_schema_search))
    checked = "matches the shape asked for" if (keys or types or schema) else "no shape asked for"
    return Scores([
        _boolean(primary, True, where),
        _boolean("json_schema_ok", not problems, join_problems(problems) or checked),
    ])


_REF_KEYS = ("$ref", "$dynamicRef", "$recursiveRef")


def _schema_search(pattern: str, text: str) -> bool:
    """jsonschema's ``re.search(pattern, text)``, under the budget (regex_budget.py)."""
    found = bounded_search(re.compile(pattern), text, "json_validity: the schema's pattern")
    return found is not None


def _schema_pattern_refusal(schema: Any) -> str | None:
    """Return why a user's JSON Schema is not applied, or None: a ``pattern`` (or a
    ``patternProperties`` key) that can backtrack exponentially, by the same test as every user
    regex (``openeval.matching.regex_bounds.backtracking_risk``, proposals/0163), or a ``$ref``
    that points outside the schema. Such a pattern is refused before any value is checked;
    the CPU budget of each search (:func:`_schema_search`) bounds the rest."""
    from openeval.matching.regex_bounds import backtracking_risk

    stack: list[tuple[str | None, Any]] = [(None, schema)]
    while stack:
        key, item = stack.pop()
        if key in _REF_KEYS and not (isinstance(item, str) and item.startswith("#")):
            return f"{key} {item!r} points outside the schema (never fetched)"
        patterns = [item] if key == "pattern" and isinstance(item, str) else (
            [str(k) for k in item] if key == "patternProperties" and isinstance(item, dict)
            else [])
        for pattern in patterns:
            risk = backtracking_risk(pattern)
            if risk is not None:
                return f"the pattern {pattern!r} {risk}"
        if isinstance(item, dict):
            stack.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((None, v) for v in item)
    return None


# --- regex_match ---------------------------------------------------------------------------


def _compile(pattern: str) -> tuple[re.Pattern[str] | None, str]:
    """Return the compiled pattern, or None and why it does not compile; raise OpenEvalError
    (an errored check naming it) for a pattern that can backtrack exponentially or
    polynomially (openeval/matching/regex_bounds.py), read with the flags it is compiled with."""
    try:
        compiled = re.compile(pattern, re.MULTILINE)
    except re.error as exc:
        return None, f"pattern {pattern!r} does not compile: {exc}"
    risk = backtracking_risk(pattern, re.MULTILINE)
    if risk is not None:
        raise OpenEvalError(f"regex_match: the pattern {pattern!r} {risk}")
    return compiled, ""


_TAG_NAME_LT = re.compile(r"<[A-Za-z][^\s/>]*")
"""A tag's ``<`` and its name, as html.parser reads it (up to a space, ``/`` or ``>``)."""


def _escape_inner_lt(found: re.Match[str]) -> str:
    # html.parser rescans to the end of the text from every "<" of "<a<a<a..." (a name holding
    # "<" that never ends): quadratic, 57 s on 100 KB. Such a "<" starts no tag either way;
    # written as "&lt;" it is scanned once.
    name = found.group()
    return name if "<" not in name[1:] else "<" + name[1:].replace("<", "&lt;")


_SEGMENT = re.compile(r"[^>]*>?")
"""Text up to and including the next ``>``: at most one tag can end there."""
_TAG_START = re.compile(r"<(?=[A-Za-z/!?])")
_MAX_STARTS = 50
"""Tag starts one ``>`` may close before the earlier ones are taken for text."""


def _defused(found: re.Match[str]) -> str:
    # html.parser scans from every "<" to the next ">" (quadratic on "<a x=1 <a x=1 ... >").
    # Only one of them can start the tag that ">" ends; past a few dozen, all but the last
    # are text (a real page never has that many tag starts between two ">").
    segment = found.group()
    starts = [m.start() for m in _TAG_START.finditer(segment)]
    if len(starts) <= _MAX_STARTS:
        return segment
    last = starts[-1]
    return segment[:last].replace("<", "&lt;") + segment[last:]


_GAVE_UP = "regex_match: the pattern"
"""How a search that used up its budget names its pattern (regex_budget.py)."""


@declares("regex_pass")
def regex_match(
    ctx: Any,
    *,
    must_match: Any = (),
    must_not_match: Any = (),
    field: Field | None = "output",
    name: str | None = "regex_pass",
) -> Scores:
    """Check that the text matches every required pattern and none of the forbidden ones.

    Patterns are Python regular expressions in multi-line mode (start one with ``(?i)`` to
    ignore case), searched over the whole text. A pattern that does not compile fails the
    check and the comment says which; one that can backtrack is refused, and one whose search
    uses up its CPU budget (1 s) errors the check, naming it.

    Args:
        ctx: A context or trace, or the text to check.
        must_match: Patterns that must each match.
        must_not_match: Patterns that must not match.
        field: ``output`` (the reply), ``input`` (the user's messages) or ``both``.
        name: Name of the primary score.

    Returns:
        regex_pass (BOOLEAN): every rule held.

    Raises:
        SettingError: neither ``must_match`` nor ``must_not_match`` is given (nothing to check).
    """
    required = texts(must_match, "must_match")
    forbidden = texts(must_not_match, "must_not_match")
    if not required and not forbidden:
        raise SettingError("regex_match needs must_match or must_not_match patterns")
    body = subject_text(ctx, opt(field, "output"))
    problems = []
    for pattern in required:
        compiled, error = _compile(pattern)
        if compiled is None:
            problems.append(error)
        elif bounded_search(compiled, body, _GAVE_UP) is None:
            problems.append(f"no match for {pattern!r}")
    for pattern in forbidden:
        compiled, error = _compile(pattern)
        if compiled is None:
            problems.append(error)
        elif bounded_search(compiled, body, _GAVE_UP) is not None:
            problems.append(f"forbidden match for {pattern!r}")
    rules = len(required) + len(forbidden)
    comment = join_problems(problems) or f"all {rules} patterns held"
    return Scores([_boolean(opt(name, "regex_pass"), not problems, comment)])


# --- keyword_check and contains ------------------------------------------------------------


_CANDIDATES = 1_000


def _has_word(body: str, keyword: str) -> bool:
    """Return whether ``keyword`` occurs in ``body`` as whole words (a phrase across any space).

    Both are already lower-cased for a case-blind check. The regex starts with the keyword's
    literal text, which the engine finds fast; the word boundary before it is checked here.
    After many candidates that are parts of longer words, one boundary-aware search finishes.
    """
    parts = [re.escape(part) for part in keyword.split()]
    tail = r"\s+".join(parts) + r"(?!\w)"
    for tried, match in enumerate(re.finditer(tail, body)):
        start = match.start()
        if start == 0 or not (body[start - 1].isalnum() or body[start - 1] == "_"):
            return True
        if tried >= _CANDIDATES:
            return re.compile(r"(?<!\w)" + tail).search(body, start) is not None
    return False


@declares("keywords_ok", "keyword_coverage")
def keyword_check(
    ctx: Any,
    *,
    required: Any = (),
    forbidden: Any = (),
    mode: Literal["all", "any"] | None = "all",
    case_sensitive: bool | None = False,
    field: Field | None = "output",
    name: str | None = "keywords_ok",
) -> Scores:
    """Check that the text mentions the required words and none of the forbidden ones.

    Keywords match whole words, so "art" does not match "start"; a phrase matches across any
    white space. Use :func:`contains` to match inside words.

    Args:
        ctx: A context or trace, or the text to check.
        required: Keywords or phrases the text must mention.
        forbidden: Keywords or phrases the text must not mention.
        mode: ``all``: every required keyword must appear; ``any``: one is enough.
        case_sensitive: Match case exactly.
        field: ``output`` (the reply), ``input`` (the user's messages) or ``both``.
        name: Name of the primary score.

    Returns:
        keywords_ok (BOOLEAN): the required rule held and no forbidden keyword appeared.
        keyword_coverage (NUMERIC, 0 to 1): the share of required keywords found; only when
            ``required`` is set.

    Raises:
        SettingError: neither ``required`` nor ``forbidden`` is given, or a keyword is blank.
    """
    wanted = texts(required, "required")
    banned = texts(forbidden, "forbidden")
    if not wanted and not banned:
        raise SettingError("keyword_check needs required or forbidden keywords")
    if any(not keyword.strip() for keyword in (*wanted, *banned)):
        raise SettingError("keyword_check keywords must not be blank")
    how = check_choice(opt(mode, "all"), "mode", ("all", "any"))
    exact = bool(opt(case_sensitive, False))
    body = subject_text(ctx, opt(field, "output"))
    if not exact:
        body = body.lower()

    def mentioned(keyword: str) -> bool:
        return _has_word(body, keyword if exact else keyword.lower())

    found = [k for k in wanted if mentioned(k)]
    missing = [k for k in wanted if k not in found]
    present = [k for k in banned if mentioned(k)]
    required_ok = not wanted or (bool(found) if how == "any" else not missing)
    problems = []
    if not required_ok:
        problems.append(("none of " if how == "any" else "missing: ") + ", ".join(missing))
    if present:
        problems.append("forbidden: " + ", ".join(present))
    comment = "; ".join(problems) or ", ".join(
        part for part in (wanted and f"found {len(found)} of {len(wanted)} required",
                          banned and "no forbidden keyword") if part)
    scores = Scores([_boolean(opt(name, "keywords_ok"), required_ok and not present, comment)])
    if wanted:
        scores.append(_numeric("keyword_coverage", len(found) / len(wanted),
                               f"{len(found)} of {len(wanted)} required keywords found"))
    return scores


def _expected_values(ctx: Any) -> tuple[str, ...]:
    expected = reference_or_expected(ctx, None)
    if expected is None:
        raise SettingError("contains needs values, or an expected_output in the test case")
    if isinstance(expected, str):
        return (expected,)
    if isinstance(expected, list) and all(isinstance(item, str) for item in expected):
        return tuple(expected)
    raise SettingError("contains reads expected_output as a text or a list of texts; "
                     f"it is {type(expected).__name__}")


@declares("contains")
def contains(
    ctx: Any,
    *,
    values: Any = (),
    mode: Literal["any", "all", "none"] | None = "any",
    case_sensitive: bool | None = False,
    field: Field | None = "output",
    name: str | None = "contains",
) -> Scores:
    """Check that the text contains the given substrings, anywhere (also inside a word).

    Args:
        ctx: A context or trace, or the text to check.
        values: The substrings to look for. Empty: the test case's ``expected_output`` (a text
            or a list of texts).
        mode: ``any``: one value is enough; ``all``: every value must appear; ``none``: no
            value may appear.
        case_sensitive: Match case exactly.
        field: ``output`` (the reply), ``input`` (the user's messages) or ``both``.
        name: Name of the primary score.

    Returns:
        contains (BOOLEAN): the text meets ``mode``.

    Raises:
        SettingError: no values and no expected output, or an empty value.
    """
    wanted = texts(values, "values") or _expected_values(ctx)
    if not wanted or any(value == "" for value in wanted):
        raise SettingError("contains values must not be empty")
    how = check_choice(opt(mode, "any"), "mode", ("any", "all", "none"))
    body = subject_text(ctx, opt(field, "output"))
    if not opt(case_sensitive, False):
        body = body.casefold()
        found = [v for v in wanted if v.casefold() in body]
    else:
        found = [v for v in wanted if v in body]
    missing = [v for v in wanted if v not in found]
    if how == "any":
        ok, comment = bool(found), (f"found {found[0]!r}" if found else
                                    f"none of {len(wanted)} values found")
    elif how == "all":
        ok = not missing
        comment = "missing: " + ", ".join(repr(v) for v in missing) if missing else (
            f"all {len(wanted)} values found")
    else:
        ok = not found
        comment = "found: " + ", ".join(repr(v) for v in found) if found else (
            f"none of {len(wanted)} values found")
    return Scores([_boolean(opt(name, "contains"), ok, comment)])


# --- length_budget -------------------------------------------------------------------------


def _optional_limit(value: Any, setting: str) -> int | None:
    if value is None:
        return None
    return int(check_number(value, setting, minimum=0, integer=True))


@read_once
def _length_bounds(
    min_words: Any, max_words: Any, min_chars: Any, max_chars: Any
) -> tuple[int | None, int | None, int | None, int | None]:
    # None means "not checked" here, so the defaults are written in the signature only.
    bounds = (_optional_limit(min_words, "min_words"), _optional_limit(max_words, "max_words"),
              _optional_limit(min_chars, "min_chars"), _optional_limit(max_chars, "max_chars"))
    for unit, low, high in (("words", bounds[0], bounds[1]), ("chars", bounds[2], bounds[3])):
        if low is not None and high is not None and low > high:
            raise SettingError(f"min_{unit}={low} is above max_{unit}={high}")
    return bounds


def _word_count(body: str, low: int | None, high: int | None) -> tuple[int, str]:
    """Return how many words ``body`` holds, counting no further than one past the largest
    bound (so a huge reply costs little), and the count as the comment shows it."""
    # One past the largest bound set (0: none set), without a list: once per trace.
    if high is None:
        cap = 0 if low is None else low + 1
    else:
        cap = high + 1 if low is None or low <= high else low + 1
    if cap and len(body) < 2 * cap - 1:
        # Words are separated, so a text of n characters holds at most (n + 1) // 2 of
        # them: fewer than the cap, and one regex pass counts them all.
        count = len(_text.words(body, lower=False))
    else:
        count = sum(1 for _ in islice(_text.iter_words(body, lower=False), cap))
    return count, f"more than {cap - 1}" if cap and count >= cap else str(count)


@declares("within_length")
def length_budget(
    ctx: Any,
    *,
    min_words: int | None = 1,
    max_words: int | None = 300,
    min_chars: int | None = None,
    max_chars: int | None = 4000,
    name: str | None = "within_length",
) -> Scores:
    """Check that the reply stays inside a word and character range.

    Words are runs of letters, digits and underscores; characters are counted on the reply
    with the white space at its ends removed.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        min_words: Fewest words. None: not checked.
        max_words: Most words. None: not checked.
        min_chars: Fewest characters. None: not checked.
        max_chars: Most characters. None: not checked.
        name: Name of the primary score.

    Returns:
        within_length (BOOLEAN): every bound that is set held.

    Raises:
        SettingError: a bound is not a whole number >= 0, or a minimum exceeds its maximum.
    """
    min_words, max_words, min_chars, max_chars = _length_bounds(
        min_words, max_words, min_chars, max_chars)
    # A scorer's context reads its reply as subject_text would (the field is "output").
    body = (ctx.trace.final_output if type(ctx) is CheckContext else subject_text(ctx)).strip()
    chars = len(body)
    count, shown = _word_count(body, min_words, max_words)
    problems = []
    if min_words is not None and count < min_words:
        problems.append(f"{shown} words, fewer than {min_words}")
    if max_words is not None and count > max_words:
        problems.append(f"{shown} words, more than {max_words}")
    if min_chars is not None and chars < min_chars:
        problems.append(f"{chars} characters, fewer than {min_chars}")
    if max_chars is not None and chars > max_chars:
        problems.append(f"{chars} characters, more than {max_chars}")
    if not problems:
        checked = (min_words, max_words, min_chars, max_chars) != (None, None, None, None)
        comment = (f"{shown} words, {chars} characters" if checked
                   else "no bound set: nothing checked")
    else:
        comment = join_problems(problems)
    return Scores([_boolean(opt(name, "within_length"), not problems, comment)])


# --- markdown_structure --------------------------------------------------------------------

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_ATX_OPENING = re.compile(r"^ {0,3}(#{1,6})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+\S")
# Every blank run is followed by something required (a pipe, a dash, the end), so no two runs
# share a stretch of blanks: a long blank run costs linear time, never quadratic.
_TABLE_DELIMITER = re.compile(
    r"^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?$"
)
_INLINE_CODE = re.compile(r"`[^`]*`")


def atx_heading(line: str) -> str | None:
    """Return the text of an ATX heading line (``## Title ##``), or None if it is not one.

    A heading is up to three spaces, one to six ``#``, then nothing, or blanks and the text,
    or (after six ``#``) only a closing run. The text loses its leading blanks and its closing
    sequence (blanks, ``#``s, blanks). Written with string methods rather than one pattern
    because the pattern form (a lazy text before optional blank and ``#`` runs) backtracks
    quadratically on a long blank run; a test holds this equal to that pattern.
    """
    opening = _ATX_OPENING.match(line)
    if opening is None:
        return None
    rest = opening.group(2)
    if not rest:
        return ""
    if rest[0] in " \t":
        return rest.lstrip(" \t").rstrip(" \t").rstrip("#").rstrip(" \t")
    return "" if not rest.lstrip(" \t").lstrip("#").lstrip(" \t") else None


def _cells(row: str) -> int:
    body = _INLINE_CODE.sub("code", row.strip())
    body = body.replace("\\|", "")
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return body.count("|") + 1


class _Markdown:
    """What a pass over a Markdown text found."""

    def __init__(self, lines: list[str], cut: bool) -> None:
        self.headings: list[str] = []
        self.has_list = False
        self.tables = 0
        self.problems: list[str] = []
        self._read(lines, cut)

    def _read(self, lines: list[str], cut: bool) -> None:
        fence: tuple[str, int, int] | None = None  # (marker char, length, line number)
        previous = ""
        index = 0
        while index < len(lines):
            line = lines[index]
            index += 1
            marker = _FENCE_LINE.match(line)
            if fence is not None:
                if (marker and marker.group(1)[0] == fence[0]
                        and len(marker.group(1)) >= fence[1] and not marker.group(2).strip()):
                    fence = None
                continue
            # A backtick fence's info string may not hold a backtick (that is inline code).
            if marker and not (marker.group(1)[0] == "`" and "`" in marker.group(2)):
                fence = (marker.group(1)[0], len(marker.group(1)), index)
                previous = ""
                continue
            following = self._block(lines, index, line, previous)
            previous = line if following == index else ""
            index = following
        if fence is not None and not cut:
            self.problems.append(f"code fence opened on line {fence[2]} is not closed")

    def _block(self, lines: list[str], index: int, line: str, previous: str) -> int:
        """Read one line (a table reads all its rows); return the index of the next line.

        ``index`` is the index of the line after ``line`` (so ``line``'s number, from 1).
        """
        heading = atx_heading(line)
        if heading is not None:
            self.headings.append(heading.strip())
            return index
        setext = _SETEXT.match(line)
        if (setext and previous.strip() and not _LIST_ITEM.match(previous)
                and "|" not in previous):
            self.headings.append(previous.strip())
            return index
        if _LIST_ITEM.match(line):
            self.has_list = True
            return index
        if ("|" in line and index < len(lines) and "|" in lines[index]
                and _TABLE_DELIMITER.match(lines[index])):
            header = _cells(line)
            if _cells(lines[index]) != header:
                self.problems.append(f"table on line {index}: the delimiter row has "
                                     f"{_cells(lines[index])} cells, the header {header}")
            self.tables += 1
            index += 1
            while index < len(lines) and lines[index].strip() and "|" in lines[index]:
                cells = _cells(lines[index])
                if cells != header:
                    self.problems.append(f"table row on line {index + 1} has {cells} cells, "
                                         f"the header {header}")
                index += 1
        return index


@declares("markdown_ok", "heading_count")
def markdown_structure(
    ctx: Any,
    *,
    required_headings: Any = (),
    min_headings: int | None = 0,
    require_list: bool | None = False,
    require_table: bool | None = False,
    name: str | None = "markdown_ok",
) -> Scores:
    """Check the reply's Markdown: closed code fences, tables, headings and lists.

    Code fences (```` ``` ```` or ``~~~``) must be closed; a table's rows must have as many
    cells as its header; text inside a fence is not read as Markdown. Headings are ATX
    (``# Title``) or setext (a line underlined with ``===`` or ``---``). A reply longer than
    100,000 characters is read up to there, and the comment says so.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        required_headings: Headings the reply must have; each matches a heading that holds
            it, compared in lower case without punctuation.
        min_headings: Fewest headings.
        require_list: The reply must have a bulleted or numbered list.
        require_table: The reply must have a table.
        name: Name of the primary score.

    Returns:
        markdown_ok (BOOLEAN): every rule held.
        heading_count (NUMERIC): how many headings the reply has.
    """
    wanted = texts(required_headings, "required_headings")
    fewest = int(check_number(opt(min_headings, 0), "min_headings", minimum=0, integer=True))
    body, note = clip(subject_text(ctx))
    if note:
        body = body[: body.rfind("\n") + 1] or body
    found = _Markdown(body.splitlines(), bool(note))
    problems = list(found.problems)
    normalized = [_text.normalize(h) for h in found.headings]
    for heading in wanted:
        target = _text.normalize(heading)
        if not any(target in have for have in normalized):
            problems.append(f"no heading {heading!r}")
    if len(found.headings) < fewest:
        problems.append(f"{len(found.headings)} headings, fewer than {fewest}")
    if opt(require_list, False) and not found.has_list:
        problems.append("no list")
    if opt(require_table, False) and not found.tables:
        problems.append("no table")
    comment = join_problems(problems) or (
        f"{len(found.headings)} headings, {found.tables} tables, "
        f"{'a list' if found.has_list else 'no list'}")
    return Scores([
        _boolean(opt(name, "markdown_ok"), not problems, _with_note(comment, note)),
        _numeric("heading_count", len(found.headings), _with_note("headings found", note)),
    ])


# --- html_validity -------------------------------------------------------------------------

_VOID_TAGS = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen",
                        "link", "meta", "param", "source", "track", "wbr"})
_OPTIONAL_END = frozenset({"p", "li", "dt", "dd", "tr", "td", "th", "thead", "tbody", "tfoot",
                           "option", "optgroup", "rp", "rt", "colgroup", "caption", "html",
                           "head", "body"})


class _TagChecker(HTMLParser):
    """Follows start and end tags and notes each one out of order or not allowed."""

    def __init__(self, allowed: frozenset[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.allowed = allowed
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.refused: dict[str, None] = {}  # tags not allowed, each once, in order
        self.tags = 0

    def _seen(self, tag: str) -> None:
        self.tags += 1
        if self.allowed and tag not in self.allowed:
            self.refused[tag] = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._seen(tag)
        if tag not in _VOID_TAGS:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._seen(tag)

    def handle_endtag(self, tag: str) -> None:
        self.tags += 1
        if tag in _VOID_TAGS:
            return
        if tag not in self.stack:
            if len(self.problems) < MAX_ITEMS:
                self.problems.append(f"</{tag}> closes nothing")
            return
        while self.stack:
            open_tag = self.stack.pop()
            if open_tag == tag:
                break
            if open_tag not in _OPTIONAL_END and len(self.problems) < MAX_ITEMS:
                self.problems.append(f"<{open_tag}> is not closed before </{tag}>")


@declares("html_valid")
def html_validity(
    ctx: Any,
    *,
    allowed_tags: Any = (),
    name: str | None = "html_valid",
) -> Scores:
    """Check that the HTML in the reply has balanced tags.

    Reads the first ```html fenced block when there is one, else the whole reply. Void tags
    (``br``, ``img`` ...) need no end tag, and tags whose end tag HTML makes optional (``p``,
    ``li``, ``td`` ...) may be left open. A reply with no tag at all fails: it is not HTML.
    Only the first 100,000 characters are read, and the comment says so.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        allowed_tags: Tag names allowed (any case). Empty: any tag.
        name: Name of the primary score.

    Returns:
        html_valid (BOOLEAN): every tag is closed in order, and allowed.
    """
    allowed = frozenset(tag.lower() for tag in texts(allowed_tags, "allowed_tags"))
    body, note = clip(fenced_block(subject_text(ctx), "html"))
    checker = _TagChecker(allowed)
    checker.feed(_SEGMENT.sub(_defused, _TAG_NAME_LT.sub(_escape_inner_lt, body)))
    checker.close()
    problems = [f"<{tag}> is not allowed" for tag in checker.refused] + checker.problems
    if not note:  # a cut text may hold the end tags of what is still open
        problems.extend(f"<{tag}> is not closed" for tag in reversed(checker.stack)
                        if tag not in _OPTIONAL_END)
    if not checker.tags:
        problems.append("no HTML tag found")
    comment = join_problems(problems) or f"{checker.tags} tags, balanced"
    return Scores([_boolean(opt(name, "html_valid"), not problems, _with_note(comment, note))])


# --- csv_validity --------------------------------------------------------------------------

_DELIMITERS = (",", ";", "\t", "|")


@declares("csv_valid", "row_count")
def csv_validity(
    ctx: Any,
    *,
    delimiter: str | None = None,
    has_header: bool | None = True,
    required_columns: Any = (),
    min_rows: int | None = 1,
    name: str | None = "csv_valid",
) -> Scores:
    """Check that the reply is CSV with the same number of fields in every row.

    Reads the first ```csv fenced block when there is one, else the whole reply; blank lines
    are skipped. A reply longer than 100,000 characters is read up to the last line break
    before there, and the comment says so.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        delimiter: The field separator. None or "": whichever of ``,`` ``;`` tab and ``|``
            the first row holds most (``,`` on a tie or when it holds none).
        has_header: The first row names the columns.
        required_columns: Column names the header must have, compared in any case with the
            space around them removed. Needs ``has_header``.
        min_rows: Fewest data rows, the header not counted.
        name: Name of the primary score.

    Returns:
        csv_valid (BOOLEAN): every row has the header's field count and the rules held.
        row_count (NUMERIC): data rows, the header not counted.

    Raises:
        SettingError: ``required_columns`` without ``has_header``; a delimiter that is not one
            character; ``min_rows`` not a whole number >= 0.
    """
    header_row = bool(opt(has_header, True))
    columns = texts(required_columns, "required_columns")
    if columns and not header_row:
        raise SettingError("required_columns needs has_header")
    fewest = int(check_number(opt(min_rows, 1), "min_rows", minimum=0, integer=True))
    if delimiter and len(delimiter) != 1:
        raise SettingError(f"delimiter must be one character, got {delimiter!r}")
    body, note = clip(fenced_block(subject_text(ctx), "csv"))
    if note:
        body = body[: body.rfind("\n") + 1]
    lines = [line for line in body.splitlines() if line.strip()]
    primary = opt(name, "csv_valid")
    if not lines:
        return Scores([_boolean(primary, False, _with_note("no rows", note)),
                       _numeric("row_count", 0, "no rows")])
    separator = delimiter or max(_DELIMITERS, key=lines[0].count)
    try:
        rows = list(csv.reader(lines, delimiter=separator, strict=True))
    except csv.Error as exc:
        return Scores([_boolean(primary, False, _with_note(f"not CSV: {exc}", note)),
                       _numeric("row_count", 0, "not CSV")])
    width = len(rows[0])
    problems = [f"row {i + 1} has {len(row)} fields, the first row {width}"
                for i, row in enumerate(rows) if len(row) != width]
    data_rows = len(rows) - 1 if header_row else len(rows)
    if columns:
        header = {cell.strip().casefold() for cell in rows[0]}
        problems.extend(f"no column {c!r}" for c in columns if c.strip().casefold() not in header)
    if data_rows < fewest:
        problems.append(f"{data_rows} data rows, fewer than {fewest}")
    shown = "tab" if separator == "\t" else repr(separator)
    comment = join_problems(problems) or f"{data_rows} data rows of {width} fields ({shown})"
    return Scores([
        _boolean(primary, not problems, _with_note(comment, note)),
        _numeric("row_count", data_rows, _with_note("data rows", note)),
    ])


# --- toml_validity -------------------------------------------------------------------------


def _has_key(document: dict[str, Any], dotted: str) -> bool:
    node: Any = document
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False
        node = node[part]
    return True


@declares("toml_valid")
def toml_validity(
    ctx: Any,
    *,
    required_keys: Any = (),
    name: str | None = "toml_valid",
) -> Scores:
    """Check that the reply parses as TOML and has the keys you require.

    Reads the first ```toml fenced block when there is one, else the whole reply. An empty
    reply fails (it parses, but holds nothing), and so does a document over 100,000
    characters, which is not parsed.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        required_keys: Keys the document must have; a dotted key such as ``server.port``
            looks inside tables.
        name: Name of the primary score.

    Returns:
        toml_valid (BOOLEAN): it parses and has every required key.
    """
    keys = texts(required_keys, "required_keys")
    body = fenced_block(subject_text(ctx), "toml")
    primary = opt(name, "toml_valid")
    if not body.strip():
        return Scores([_boolean(primary, False, "the reply is empty")])
    if len(body) > MAX_TEXT_CHARS:
        return Scores([_boolean(primary, False, f"not parsed: {len(body):,} characters, "
                                                f"over the {MAX_TEXT_CHARS:,} limit")])
    refusal = toml_shape_refusal(body)
    if refusal is not None:
        return Scores([_boolean(primary, False, f"not parsed: {refusal}")])
    try:
        document = tomllib.loads(body)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        return Scores([_boolean(primary, False, f"not TOML: {exc}")])
    missing = [key for key in keys if not _has_key(document, key)]
    comment = ("missing: " + ", ".join(missing)) if missing else (
        f"parses, {len(document)} top-level keys")
    return Scores([_boolean(primary, not missing, comment)])


# --- sql_shape -----------------------------------------------------------------------------

_WRITE_KEYWORDS = ("DROP", "DELETE", "INSERT", "UPDATE", "ALTER", "CREATE", "TRUNCATE",
                   "GRANT", "REVOKE", "MERGE", "UPSERT", "RENAME", "EXEC", "EXECUTE", "CALL",
                   "ATTACH", "DETACH", "COPY")
_WITH_WRITES = ("INSERT", "UPDATE", "DELETE", "MERGE")
_SQL_NOISE = re.compile(
    r"--[^\n]*|/\*.*?(?:\*/|\Z)|'(?:[^']|'')*(?:'|\Z)|\"(?:[^\"]|\"\")*(?:\"|\Z)|`[^`]*(?:`|\Z)",
    re.DOTALL,
)
_SQL_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _statement_type(statement: str) -> str:
    first = _SQL_WORD.search(statement)
    if first is None:
        return "none"
    kind = first.group().upper()
    if kind == "WITH":
        # A CTE reads unless the statement after its definitions writes.
        for keyword in _WITH_WRITES:
            if re.search(rf"\b{keyword}\b", statement, re.IGNORECASE):
                return keyword
        return "SELECT"
    return kind


@declares("sql_ok", "statement_type")
def sql_shape(
    ctx: Any,
    *,
    allowed_statements: Any = ("SELECT",),
    allowed_keywords: Any = (),
    max_statements: int | None = 1,
    name: str | None = "sql_ok",
) -> Scores:
    """Check that generated SQL is only the kind of statement you allow.

    Reads the first ```sql fenced block when there is one, else the whole reply. Comments and
    quoted strings and identifiers are removed first, so a keyword inside them does not count.
    A pattern check, not a parser: it catches a model that writes where it should only read.
    Only the first 100,000 characters are read, and the comment says so.

    Args:
        ctx: A context or trace (reads the reply), or the SQL text.
        allowed_statements: Statement types allowed, such as ``SELECT`` or ``INSERT`` (any
            case). A WITH statement counts as the write it does (INSERT, UPDATE, DELETE,
            MERGE), else as SELECT.
        allowed_keywords: Write keywords (DROP, DELETE, INSERT, UPDATE, ALTER, CREATE,
            TRUNCATE, GRANT, REVOKE, MERGE, ...) allowed anywhere. An allowed statement type is
            allowed as a keyword too.
        max_statements: Most statements, split on ``;``.
        name: Name of the primary score.

    Returns:
        sql_ok (BOOLEAN): every rule held.
        statement_type (CATEGORICAL): the first statement's type, or ``none``.
    """
    statements_allowed = {s.upper() for s in texts(allowed_statements, "allowed_statements")}
    keywords_allowed = {k.upper() for k in texts(allowed_keywords, "allowed_keywords")}
    most = int(check_number(opt(max_statements, 1), "max_statements", minimum=1, integer=True))
    body, note = clip(fenced_block(subject_text(ctx), "sql"))
    code = _SQL_NOISE.sub(" ", body)
    statements = [s for s in code.split(";") if s.strip()]
    kinds = [_statement_type(s) for s in statements[:MAX_ITEMS]]
    first = kinds[0] if kinds else "none"
    problems = []
    if not statements:
        problems.append("no SQL statement")
    if len(statements) > most:
        problems.append(f"{len(statements)} statements, more than {most}")
    refused = sorted({k for k in kinds if k not in statements_allowed})
    if refused:
        problems.append("statement type not allowed: " + ", ".join(refused))
    permitted = statements_allowed | keywords_allowed
    writes = sorted(
        keyword for keyword in _WRITE_KEYWORDS
        if keyword not in permitted and re.search(rf"\b{keyword}\b", code, re.IGNORECASE)
    )
    if writes:
        problems.append("write keyword not allowed: " + ", ".join(writes))
    comment = join_problems(problems) or f"{len(statements)} {first} statement(s)"
    return Scores([
        _boolean(opt(name, "sql_ok"), not problems, _with_note(comment, note)),
        _categorical("statement_type", first, _with_note("the first statement's type", note)),
    ])

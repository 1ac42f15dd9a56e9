"""Similarity checks: the reply against a reference answer, a question or a context.

Checks that compare with a reference take it as the ``reference`` setting, else the test case's
``expected_output``; with neither they raise a SettingError (a test case mistake, never a score).
Each takes a text, a trace or a :class:`~openeval.checks.CheckContext` first and returns
:class:`~openeval.scores.Scores`, primary first. Work is bounded: texts are read up to 100,000
characters (the comment says when a text was cut), edit distance on the first 1,000
characters, ROUGE-L on the first 400 words.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import orjson

from openeval.checks import text as _text
from openeval.checks._context import CheckContext
from openeval.checks._settings import SettingError
from openeval.checks.util import (
    MAX_ITEMS,
    MAX_SENTENCES,
    MAX_TEXT_CHARS,
    check_choice,
    check_number,
    clip,
    content_words,
    context_text,
    declares,
    find_number,
    flat_text,
    opt,
    reference_or_expected,
    require_reference,
    subject_text,
)
from openeval.checks.util import boolean_score as _boolean
from openeval.checks.util import numeric_score as _numeric
from openeval.models import AgentTrace
from openeval.scores import Scores

EDIT_CHARS = 1_000
"""Characters of each text that edit distance compares."""
LCS_TOKENS = 400
"""Words of each text that ROUGE-L compares."""
_MAX_DEPTH = 64


def _notes(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _with_note(comment: str, *notes: str) -> str:
    joined = _notes(*notes)
    return f"{comment} ({joined})" if joined else comment


def _pair(ctx: Any, reference: Any, check: str) -> tuple[str, str, str]:
    """Return the reply and the reference as texts cut to MAX_TEXT_CHARS, and a note."""
    expected = require_reference(reference_or_expected(ctx, reference), check)
    reply, reply_note = clip(subject_text(ctx))
    expected, expected_note = clip(expected)
    return reply, expected, _notes(reply_note and "reply: " + reply_note,
                                   expected_note and "reference: " + expected_note)


# --- exact_match ---------------------------------------------------------------------------


@declares("exact_match")
def exact_match(
    ctx: Any,
    *,
    reference: Any = None,
    normalize: bool | None = False,
    case_sensitive: bool | None = True,
    name: str | None = "exact_match",
) -> Scores:
    """Check that the reply equals a reference text, white space at both ends ignored.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        reference: The expected text (any other JSON value is compared as its JSON text).
            None: the test case's ``expected_output``.
        normalize: Compare after :func:`~openeval.checks.text.normalize` (lower case, no
            punctuation, single spaces).
        case_sensitive: Match case exactly; ignored when ``normalize`` is set.
        name: Name of the primary score.

    Returns:
        exact_match (BOOLEAN): the texts are equal.
    """
    expected = require_reference(reference_or_expected(ctx, reference), "exact_match").strip()
    reply = subject_text(ctx).strip()
    if opt(normalize, False):
        same = _text.normalize(reply) == _text.normalize(expected)
        how = "after normalising"
    elif not opt(case_sensitive, True):
        same = reply.casefold() == expected.casefold()
        how = "ignoring case"
    else:
        same = reply == expected
        how = "exactly"
    comment = f"equal {how}" if same else f"differs {how} ({len(reply)} vs {len(expected)} chars)"
    return Scores([_boolean(opt(name, "exact_match"), same, comment)])


# --- levenshtein_ratio ---------------------------------------------------------------------


def levenshtein(first: str, second: str) -> int:
    """Return the edit distance (insertions, deletions, substitutions) between two texts.

    Bit-parallel (Myers, Hyyrö): one pass over the longer text with the shorter as a bit
    vector, so two 1,000-character texts take about a millisecond.
    """
    if first == second:
        return 0
    if len(first) < len(second):
        first, second = second, first
    size = len(second)
    if size == 0:
        return len(first)
    masks: dict[str, int] = {}
    for index, char in enumerate(second):
        masks[char] = masks.get(char, 0) | (1 << index)
    full = (1 << size) - 1
    top = 1 << (size - 1)
    plus, minus, distance = full, 0, size
    for char in first:
        equal = masks.get(char, 0)
        vertical = equal | minus
        horizontal = (((equal & plus) + plus) ^ plus) | equal
        h_plus = (minus | ~(horizontal | plus)) & full
        h_minus = plus & horizontal
        if h_plus & top:
            distance += 1
        elif h_minus & top:
            distance -= 1
        h_plus = ((h_plus << 1) | 1) & full
        h_minus = (h_minus << 1) & full
        plus = (h_minus | ~(vertical | h_plus)) & full
        minus = h_plus & vertical
    return distance


def edit_similarity(first: str, second: str) -> float:
    """Return 1 minus the edit distance over the longer length (1 for two empty texts)."""
    longest = max(len(first), len(second))
    return 1.0 if longest == 0 else 1 - levenshtein(first, second) / longest


@declares("levenshtein_ratio")
def levenshtein_ratio(
    ctx: Any,
    *,
    reference: Any = None,
    normalize: bool | None = False,
    name: str | None = "levenshtein_ratio",
) -> Scores:
    """Score how close the reply is to a reference by edit distance.

    1 minus the Levenshtein distance over the longer length, on the first 1,000 characters of
    each text (after normalising when asked).

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        reference: The expected text. None: the test case's ``expected_output``.
        normalize: Compare after :func:`~openeval.checks.text.normalize`.
        name: Name of the primary score.

    Returns:
        levenshtein_ratio (NUMERIC, 0 to 1): 1 is identical.
    """
    reply, expected, _ = _pair(ctx, reference, "levenshtein_ratio")
    if opt(normalize, False):
        reply, expected = _text.normalize(reply), _text.normalize(expected)
    cut = len(reply) > EDIT_CHARS or len(expected) > EDIT_CHARS
    ratio = edit_similarity(reply[:EDIT_CHARS], expected[:EDIT_CHARS])
    note = f"first {EDIT_CHARS:,} characters compared" if cut else ""
    return Scores([_numeric(opt(name, "levenshtein_ratio"), ratio,
                            _with_note(f"edit similarity {ratio:.3f}", note))])


# --- jaccard_similarity --------------------------------------------------------------------


@declares("jaccard_similarity")
def jaccard_similarity(
    ctx: Any,
    *,
    reference: Any = None,
    name: str | None = "jaccard_similarity",
) -> Scores:
    """Score the overlap of the reply's and the reference's sets of words.

    Words are compared normalised (lower case, no punctuation).

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        reference: The expected text. None: the test case's ``expected_output``.
        name: Name of the primary score.

    Returns:
        jaccard_similarity (NUMERIC, 0 to 1): shared words over all words; 1 when neither text
            has a word.
    """
    reply, expected, note = _pair(ctx, reference, "jaccard_similarity")
    ours, theirs = set(_text.normalize(reply).split()), set(_text.normalize(expected).split())
    union = ours | theirs
    value = 1.0 if not union else len(ours & theirs) / len(union)
    comment = f"{len(ours & theirs)} shared of {len(union)} words"
    return Scores([_numeric(opt(name, "jaccard_similarity"), value, _with_note(comment, note))])


# --- rouge and bleu ------------------------------------------------------------------------


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    # zip over shifted views builds the n-gram tuples in C, several times faster than slicing.
    return Counter(zip(*(tokens[i:] for i in range(n)), strict=False))


def _f1(overlap: int, predicted: int, target: int) -> float:
    if overlap == 0:
        return 0.0
    precision, recall = overlap / predicted, overlap / target
    return 2 * precision * recall / (precision + recall)


def lcs_length(first: Sequence[str], second: Sequence[str]) -> int:
    """Return the length of the longest common subsequence of two token lists (bit-parallel)."""
    if not first or not second:
        return 0
    masks: dict[str, int] = {}
    for index, token in enumerate(second):
        masks[token] = masks.get(token, 0) | (1 << index)
    full = (1 << len(second)) - 1
    row = full
    for token in first:
        match = row & masks.get(token, 0)
        row = ((row + match) | (row - match)) & full
    return len(second) - bin(row).count("1")


def _rouge_n(ours: Sequence[str], theirs: Sequence[str], n: int) -> float:
    predicted, target = _ngrams(ours, n), _ngrams(theirs, n)
    overlap = sum((predicted & target).values())
    return _f1(overlap, sum(predicted.values()), sum(target.values()))


@declares("rouge_l", "rouge_1", "rouge_2")
def rouge(
    ctx: Any,
    *,
    reference: Any = None,
    name: str | None = "rouge_l",
) -> Scores:
    """Score ROUGE-L, ROUGE-1 and ROUGE-2 F1 of the reply against a reference.

    Tokens are the words of the normalised texts (see :func:`~openeval.checks.text.normalize`);
    ROUGE-L uses the first 400 of each. Two texts with no words score 1; one with none, 0.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        reference: The expected text. None: the test case's ``expected_output``.
        name: Name of the primary score.

    Returns:
        rouge_l (NUMERIC, 0 to 1): longest common subsequence F1.
        rouge_1 (NUMERIC, 0 to 1): word overlap F1.
        rouge_2 (NUMERIC, 0 to 1): word pair overlap F1.
    """
    reply, expected, note = _pair(ctx, reference, "rouge")
    ours, theirs = _text.normalize(reply).split(), _text.normalize(expected).split()
    if not ours and not theirs:
        values = (1.0, 1.0, 1.0)
    else:
        head_ours, head_theirs = ours[:LCS_TOKENS], theirs[:LCS_TOKENS]
        common = lcs_length(head_ours, head_theirs)
        values = (_f1(common, len(head_ours), len(head_theirs)),
                  _rouge_n(ours, theirs, 1), _rouge_n(ours, theirs, 2))
    cut = len(ours) > LCS_TOKENS or len(theirs) > LCS_TOKENS
    l_note = _notes(note, f"ROUGE-L on the first {LCS_TOKENS} words" if cut else "")
    return Scores([
        _numeric(opt(name, "rouge_l"), values[0], _with_note("longest common subsequence F1",
                                                              l_note)),
        _numeric("rouge_1", values[1], _with_note("word overlap F1", note)),
        _numeric("rouge_2", values[2], _with_note("word pair overlap F1", note)),
    ])


def sentence_bleu(ours: Sequence[str], theirs: Sequence[str], max_n: int = 4) -> float:
    """Return sentence BLEU of token list ``ours`` against ``theirs``.

    The geometric mean of the modified 1- to ``max_n``-gram precisions, where each precision
    above n = 1 is smoothed as (matches + 1) / (n-grams + 1) (n-grams counted as at least 1),
    times the brevity penalty; 0 when no word matches.
    """
    if not ours or not theirs:
        return 0.0
    logs = 0.0
    for n in range(1, max_n + 1):
        predicted, target = _ngrams(ours, n), _ngrams(theirs, n)
        matches = sum((predicted & target).values())
        total = max(sum(predicted.values()), 1)
        if n == 1:
            if matches == 0:
                return 0.0
            logs += math.log(matches / total)
        else:
            logs += math.log((matches + 1) / (total + 1))
    penalty = 1.0 if len(ours) > len(theirs) else math.exp(1 - len(theirs) / len(ours))
    return penalty * math.exp(logs / max_n)


@declares("bleu")
def bleu(
    ctx: Any,
    *,
    reference: Any = None,
    max_n: int | None = 4,
    name: str | None = "bleu",
) -> Scores:
    """Score sentence BLEU of the reply against a reference.

    See :func:`sentence_bleu`: add-one smoothing above unigrams, so a short reply close to the
    reference does not score 0. Tokens are the words of the normalised texts.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        reference: The expected text. None: the test case's ``expected_output``.
        max_n: The longest n-gram, 1 to 4.
        name: Name of the primary score.

    Returns:
        bleu (NUMERIC, 0 to 1): 1 is identical.
    """
    longest = int(check_number(opt(max_n, 4), "max_n", minimum=1, maximum=4, integer=True))
    reply, expected, note = _pair(ctx, reference, "bleu")
    ours, theirs = _text.normalize(reply).split(), _text.normalize(expected).split()
    value = 1.0 if not ours and not theirs else sentence_bleu(ours, theirs, longest)
    return Scores([_numeric(opt(name, "bleu"), min(value, 1.0),
                            _with_note(f"BLEU-{longest} {value:.3f}", note))])


# --- numeric_diff and json_diff ------------------------------------------------------------


def number_similarity(first: float, second: float) -> float:
    """Return 1 minus the difference over the sum of the sizes (1 when both are 0).

    Scaled first, so numbers near the float limit do not overflow.
    """
    scale = max(abs(first), abs(second))
    if scale == 0:
        return 1.0
    a, b = first / scale, second / scale
    return max(0.0, min(1.0, 1 - abs(a - b) / (abs(a) + abs(b))))


@declares("numeric_diff")
def numeric_diff(
    ctx: Any,
    *,
    reference: Any = None,
    name: str | None = "numeric_diff",
) -> Scores:
    """Score how close the first number in the reply is to a reference number.

    1 minus the difference over the sum of the two sizes. Numbers are read with
    :func:`~openeval.checks.util.find_number`, so "1,200" reads as 1200.

    Args:
        ctx: A context or trace (reads the reply), a text, or a number.
        reference: The expected number, or a text holding one. None: the test case's
            ``expected_output``.
        name: Name of the primary score.

    Returns:
        numeric_diff (NUMERIC, 0 to 1): 1 is equal; 0 when the reply holds no number.

    Raises:
        SettingError: no reference, or a reference that holds no number.
    """
    expected_value = reference_or_expected(ctx, reference)
    if expected_value is None:
        require_reference(None, "numeric_diff")
    expected = find_number(expected_value)
    if expected is None:
        raise SettingError(f"numeric_diff reference {flat_text(expected_value)[:40]!r} "
                         "holds no number")
    is_number = isinstance(ctx, (int, float)) and not isinstance(ctx, bool)
    found = find_number(ctx if is_number else subject_text(ctx))
    primary = opt(name, "numeric_diff")
    if found is None:
        return Scores([_numeric(primary, 0.0, f"the reply holds no number; expected {expected:g}")])
    value = number_similarity(found, expected)
    return Scores([_numeric(primary, value, f"{found:g} vs {expected:g}")])


def json_similarity(first: Any, second: Any, depth: int = 0) -> float:
    """Return how alike two JSON values are, from 0 to 1.

    Objects: the mean over the union of their keys (a key on one side only scores 0).
    Arrays: the sum over paired items divided by the longer length. Strings: edit
    similarity (first 1,000 characters). Numbers: :func:`number_similarity`. Booleans: 1
    when equal, else 0 (a boolean is not a number). Null: 1 against null, else 0. Values of
    other different kinds: edit similarity of their compact JSON texts. Below 64 levels of
    nesting, values compare as equal or not.
    """
    if depth > _MAX_DEPTH:
        return 1.0 if flat_text(first) == flat_text(second) else 0.0
    if isinstance(first, Mapping) and isinstance(second, Mapping):
        keys = list(dict.fromkeys([*first, *second]))[:MAX_ITEMS]
        if not keys:
            return 1.0
        total = sum(
            json_similarity(first[k], second[k], depth + 1) if k in first and k in second else 0.0
            for k in keys
        )
        return total / len(keys)
    if isinstance(first, list) and isinstance(second, list):
        longest = max(len(first), len(second))
        if longest == 0:
            return 1.0
        pairs = zip(first[:MAX_ITEMS], second[:MAX_ITEMS], strict=False)
        return sum(json_similarity(a, b, depth + 1) for a, b in pairs) / longest
    if isinstance(first, str) and isinstance(second, str):
        return edit_similarity(first[:EDIT_CHARS], second[:EDIT_CHARS])
    if first is None or second is None:
        return 1.0 if first is None and second is None else 0.0
    if isinstance(first, bool) and isinstance(second, bool):
        return 1.0 if first is second else 0.0
    if (isinstance(first, (int, float)) and isinstance(second, (int, float))
            and not isinstance(first, bool) and not isinstance(second, bool)):
        return number_similarity(float(first), float(second))
    return edit_similarity(_canonical(first)[:EDIT_CHARS], _canonical(second)[:EDIT_CHARS])


def _canonical(value: Any) -> str:
    """Return a value's compact JSON text with sorted keys (its repr when JSON cannot hold it)."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return repr(value)


def _json_of(value: Any) -> tuple[bool, Any]:
    """Return ``(found, value)``: the JSON value a text holds, or a parsed value as it is."""
    if isinstance(value, (dict, list, int, float)) or value is None:
        return value is not None, value
    found = _text.extract_json(value)
    if found is not None:
        return True, found
    ok, parsed = _text.parse_json(value.strip()) if isinstance(value, str) else (False, None)
    return ok, parsed


@declares("json_diff")
def json_diff(
    ctx: Any,
    *,
    reference: Any = None,
    name: str | None = "json_diff",
) -> Scores:
    """Score how close the output's JSON is to a reference JSON value.

    The output's JSON is the whole reply, or the first JSON value found in it (see
    :func:`~openeval.checks.text.extract_json`); see :func:`json_similarity` for the score.

    Args:
        ctx: A context or trace (reads the reply), a text, or a parsed value.
        reference: The expected value, or its JSON text; a text that is not JSON is compared
            as a string. None: the test case's ``expected_output``.
        name: Name of the primary score.

    Returns:
        json_diff (NUMERIC, 0 to 1): 1 is the same structure and values; 0 when the output
            holds no JSON.
    """
    expected = reference_or_expected(ctx, reference)
    if expected is None:
        require_reference(None, "json_diff")
    if isinstance(expected, str):
        ok, parsed = _text.parse_json(expected.strip())
        expected = parsed if ok else expected
    primary = opt(name, "json_diff")
    source = ctx if not isinstance(ctx, (str, CheckContext, AgentTrace)) else subject_text(ctx)
    found, value = _json_of(source)
    if not found:
        return Scores([_numeric(primary, 0.0, "the output holds no JSON")])
    score = json_similarity(value, expected)
    return Scores([_numeric(primary, score, f"structure and values {score:.3f} alike")])


# --- bm25_relevance and tfidf_similarity ---------------------------------------------------


def _query_text(ctx: Any, against: str, context: Any, context_key: str) -> str:
    if not isinstance(ctx, (CheckContext, AgentTrace)):
        # A plain reply has no question of its own: the given context is the only query.
        return context_text(None, context)
    if against == "input":
        return _text.last_user_message(ctx)[:MAX_TEXT_CHARS]
    return context_text(ctx, context, context_key)


def _sentence_words(value: str) -> list[list[str]]:
    return [content_words(s) for s in _text.sentences(value)[:MAX_SENTENCES]]


@declares("bm25_relevance")
def bm25_relevance(
    ctx: Any,
    *,
    against: Literal["input", "context"] | None = "input",
    context: Any = None,
    context_key: str | None = "context",
    k1: float | None = 1.5,
    b: float | None = 0.75,
    name: str | None = "bm25_relevance",
) -> Scores:
    """Score how relevant the reply is to the question or the context, by BM25.

    The query is the content words of the question (or context); each sentence of the reply
    is a document. The best sentence's BM25 score is divided by the score a sentence of
    average length holding each query word once would get, and capped at 1. Word frequencies
    come from the sentences of both texts (the first 1,000 of each). A ranking signal for
    replies that miss the question, not a calibrated probability.

    Args:
        ctx: A context or trace, or the reply text (then give ``context``, which is the query
            whatever ``against`` says).
        against: ``input``: the user's last message before the reply; ``context``: the
            context (see :func:`~openeval.checks.util.context_text`).
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context when ``context`` is not given.
        k1: BM25 term saturation, >= 0.
        b: BM25 length normalisation, 0 to 1.
        name: Name of the primary score.

    Returns:
        bm25_relevance (NUMERIC, 0 to 1): higher is more relevant; 0 with the reason in the
            comment when the reply or the query has no content word.
    """
    target = check_choice(opt(against, "input"), "against", ("input", "context"))
    saturation = check_number(opt(k1, 1.5), "k1", minimum=0)
    length_weight = check_number(opt(b, 0.75), "b", minimum=0, maximum=1)
    primary = opt(name, "bm25_relevance")
    reply, note = clip(subject_text(ctx))
    query_source = _query_text(ctx, target, context, opt(context_key, "context"))
    documents = [words for words in _sentence_words(reply) if words]
    query_sentences = [words for words in _sentence_words(query_source) if words]
    query = list(dict.fromkeys(w for words in query_sentences for w in words))
    if not query or not documents:
        missing = "question" if target == "input" else "context"
        reason = f"no content word in the {missing if not query else 'reply'}"
        return Scores([_numeric(primary, 0.0, _with_note(reason, note))])
    pool = documents + query_sentences
    frequency = Counter(w for words in pool for w in set(words))
    average = sum(len(words) for words in documents) / len(documents)

    def idf(word: str) -> float:
        df = frequency[word]
        return math.log((len(pool) - df + 0.5) / (df + 0.5) + 1)

    weights = {word: idf(word) for word in query}
    best = 0.0
    for words in documents:
        counts = Counter(words)
        norm = saturation * (1 - length_weight + length_weight * len(words) / average)
        score = sum(
            weight * counts[word] * (saturation + 1) / (counts[word] + norm)
            for word, weight in weights.items() if counts[word]
        )
        best = max(best, score)
    ideal = sum(weights.values())  # a sentence of average length with each query word once
    value = min(best / ideal, 1.0) if ideal > 0 else 0.0
    return Scores([_numeric(primary, value, _with_note(
        f"best of {len(documents)} sentences against {len(query)} query words", note))])


@declares("tfidf_similarity")
def tfidf_similarity(
    ctx: Any,
    *,
    against: Literal["input", "context"] | None = "input",
    context: Any = None,
    context_key: str | None = "context",
    name: str | None = "tfidf_similarity",
) -> Scores:
    """Score the cosine similarity of the reply and the question or context, by TF-IDF.

    Content words only (no stop words, 3 letters or more). Inverse document frequencies come
    from the sentences of both texts (the first 1,000 of each), smoothed as
    ``ln((1 + N) / (1 + df)) + 1``.

    Args:
        ctx: A context or trace, or the reply text (then give ``context``).
        against: ``input``: the user's last message before the reply; ``context``: the
            context (see :func:`~openeval.checks.util.context_text`).
        context: The context text, or a list of passages.
        context_key: The metadata key that holds the context when ``context`` is not given.
        name: Name of the primary score.

    Returns:
        tfidf_similarity (NUMERIC, 0 to 1): 1 is the same words in the same proportions; 0
            with the reason in the comment when either text has no content word.
    """
    target = check_choice(opt(against, "input"), "against", ("input", "context"))
    primary = opt(name, "tfidf_similarity")
    reply, note = clip(subject_text(ctx))
    query_source = _query_text(ctx, target, context, opt(context_key, "context"))
    ours_sentences = _sentence_words(reply)
    theirs_sentences = _sentence_words(query_source)
    ours = Counter(w for words in ours_sentences for w in words)
    theirs = Counter(w for words in theirs_sentences for w in words)
    if not ours or not theirs:
        side = "reply" if not ours else ("question" if target == "input" else "context")
        return Scores([_numeric(primary, 0.0, _with_note(f"no content word in the {side}",
                                                          note))])
    pool = [words for words in ours_sentences + theirs_sentences if words]
    frequency = Counter(w for words in pool for w in set(words))

    def idf(word: str) -> float:
        return math.log((1 + len(pool)) / (1 + frequency[word])) + 1

    weights = {word: idf(word) for word in ours.keys() | theirs.keys()}
    dot = sum(ours[w] * theirs[w] * weights[w] ** 2 for w in ours.keys() & theirs.keys())
    norm_ours = math.sqrt(sum((count * weights[w]) ** 2 for w, count in ours.items()))
    norm_theirs = math.sqrt(sum((count * weights[w]) ** 2 for w, count in theirs.items()))
    value = min(dot / (norm_ours * norm_theirs), 1.0)
    shared = len(ours.keys() & theirs.keys())
    return Scores([_numeric(primary, value, _with_note(f"{shared} shared content words", note))])

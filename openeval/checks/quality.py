"""Quality checks: readability, language, tone and sentiment, with word lists and no model.

Each check takes a text, a trace or a :class:`~openeval.checks.CheckContext` first (it reads the
reply, ``final_output``), its settings as keyword arguments (None means the default), and
returns :class:`~openeval.scores.Scores`, primary first. :func:`detect_language` is a helper
that returns ``(code, confidence)``. Work is bounded: a reply longer than 100,000 characters is
read up to there, and the comment says so.
"""

from __future__ import annotations

import math
import re
from typing import Any, Literal, get_args

from openeval.checks import text as _text
from openeval.checks.util import boolean_score as _boolean
from openeval.checks.util import categorical_score as _categorical
from openeval.checks.util import (
    check_choice,
    check_number,
    clip,
    declares,
    not_judged,
    opt,
    strip_code,
    subject_text,
    texts,
)
from openeval.checks.util import numeric_score as _numeric
from openeval.scores import Scores


def _wordlist(words: str) -> list[str]:
    """Return the words of a white-space separated list written in the source."""
    return words.split()


def _with_note(comment: str, note: str) -> str:
    return f"{comment} ({note})" if note else comment


# --- readability ---------------------------------------------------------------------------

_LETTER_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
_VOWEL_GROUP = re.compile(r"[aeiouyàáâãäåæèéêëìíîïòóôõöøùúûüýÿœ]+")
# Bounded repeats: an unclosed "[" on a long line must not make the scan quadratic.
_MARKDOWN_LINK = re.compile(r"!?\[([^\[\]\n]{0,300})\]\([^()\s]{0,2000}\)")
_MARKDOWN_MARKS = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|\d{1,9}[.)][ \t]+|>[ \t]*)"
                             r"|[*_|]{1,3}", re.MULTILINE)


def _syllables(word: str) -> int:
    """Estimate a word's syllables: vowel groups, less a silent final ``e``; at least 1."""
    lower = word.lower()
    count = len(_VOWEL_GROUP.findall(lower))
    if count > 1 and lower.endswith("e") and not lower.endswith(("le", "ee", "ye")):
        count -= 1
    return max(count, 1)


def _prose(value: str) -> str:
    """Return the reply as prose: code, URLs, link targets and Markdown marks removed."""
    return _MARKDOWN_MARKS.sub(" ", _MARKDOWN_LINK.sub(r"\1", strip_code(value)))


def _sentence_count(value: str) -> int:
    # Lines end sentences too: list items and headings rarely end with a full stop.
    return sum(len(_text.sentences(line)) for line in value.splitlines() if line.strip())


@declares("readability_ok", "reading_ease")
def readability(
    ctx: Any,
    *,
    min_grade: float | None = None,
    max_grade: float | None = 10,
    min_words: int | None = 20,
    name: str | None = "readability_ok",
) -> Scores:
    """Score Flesch reading ease and check the Flesch-Kincaid grade of the reply.

    Syllables are estimated from vowel groups, so the grade is close enough to tell a plain
    answer from a dense one, not exact. Code, URLs and Markdown marks are left out; a line
    break ends a sentence as a full stop does.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        min_grade: Lowest grade allowed. None: not checked.
        max_grade: Highest grade allowed. None: not checked.
        min_words: A reply with fewer words is too short to grade: n.a., and the comment
            says it was not graded.
        name: Name of the primary score.

    Returns:
        readability_ok (BOOLEAN): the grade is within the limits that are set; ``n.a.``
            when neither limit is set (``reading_ease`` is then judged by the entry's
            ``threshold``, if any) or the reply is too short.
        reading_ease (NUMERIC, 0 to 1): Flesch reading ease over 100, clamped to [0, 1]; not
            returned for a reply too short to grade.
    """
    low = None if min_grade is None else check_number(min_grade, "min_grade")
    high = None if max_grade is None else check_number(max_grade, "max_grade")
    fewest = int(check_number(opt(min_words, 20), "min_words", minimum=0, integer=True))
    body, note = clip(subject_text(ctx))
    prose = _prose(body)
    found = _LETTER_WORD.findall(prose)
    primary = opt(name, "readability_ok")
    if not found or len(found) < fewest:
        return Scores([not_judged(primary, _with_note(
            f"not graded: {len(found)} words, fewer than {max(fewest, 1)}", note))])
    sentence_count = max(_sentence_count(prose), 1)
    syllables = sum(_syllables(word) for word in found)
    per_sentence = len(found) / sentence_count
    per_word = syllables / len(found)
    ease = 206.835 - 1.015 * per_sentence - 84.6 * per_word
    grade = 0.39 * per_sentence + 11.8 * per_word - 15.59
    problems = []
    if low is not None and grade < low:
        problems.append(f"grade {grade:.1f} below {low:g}")
    if high is not None and grade > high:
        problems.append(f"grade {grade:.1f} above {high:g}")
    comment = "; ".join(problems) or f"grade {grade:.1f}"
    judged = (_boolean(primary, not problems, _with_note(comment, note))
              if low is not None or high is not None else
              not_judged(primary, _with_note(f"{comment}; no min_grade or max_grade set", note)))
    return Scores([
        judged,
        _numeric("reading_ease", min(max(ease, 0.0), 100.0) / 100,
                 _with_note(f"Flesch reading ease {ease:.1f}", note)),
    ])


# --- detect_language and language_adherence ------------------------------------------------

Language = Literal["en", "es", "fr", "de", "it", "pt", "nl", "ru", "uk", "el", "ar", "he", "hi",
                   "th", "zh", "ja", "ko"]
"""A language :func:`language_adherence` can expect."""
LANGUAGES: tuple[str, ...] = get_args(Language)
"""The ISO 639-1 codes :func:`detect_language` can return (besides ``unknown``)."""

# The commonest function words of each Latin-script language: frequent in any prose, rare in
# the others' (a few are shared, which only lowers the confidence).
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": frozenset(_wordlist("""
        the and is are was were of to in that it for on with as this be have has
        you not but at by from they we will would can an or which there their what all been if
        do does your our he she his her its were should could these those""")),
    "es": frozenset(_wordlist("""
        el la los las de del que y en un una es por con para no se su al lo
        como más pero sus le ya este sí porque esta entre cuando muy sin sobre también me hay
        donde son está están usted puede tiene todo""")),
    "fr": frozenset(_wordlist("""
        le la les de des du et est un une que qui dans pour pas sur au aux avec
        ce cette il elle nous vous sont mais ou par plus ne se son sa ses être avoir été très
        comme leur je peut fait tout""")),
    "de": frozenset(_wordlist("""
        der die das und ist nicht ein eine einen zu den dem mit von auf für
        sich des im auch es werden wird aus er sie wir ich bei nach oder aber wie noch dass
        sind war kann haben hat nur um über""")),
    "it": frozenset(_wordlist("""
        il lo la gli le di del della che e è un una per non con sono mi si in
        da al ma come questo questa anche più nel alla dei delle ha hanno essere sua suo ci
        molto perché quando io""")),
    "pt": frozenset(_wordlist("""
        o a os as de do da dos das que e é um uma para com não em no na se por
        mais como mas ao foi são está você isso este esta também muito seu sua nos ou quando
        já ele ela eu tem há""")),
    "nl": frozenset(_wordlist("""
        de het een en van is dat op te in voor niet met zijn er maar ook als
        aan om bij dan nog wat door naar wordt uit kan ik je we hij zij deze die dit heeft
        hebben was geen worden meer""")),
}

_SCRIPTS: dict[str, re.Pattern[str]] = {
    "latin": re.compile(r"[A-Za-z\u00c0-\u024f]"),
    "cyrillic": re.compile(r"[\u0400-\u04ff]"),
    "el": re.compile(r"[\u0370-\u03ff\u1f00-\u1fff]"),
    "ar": re.compile(r"[\u0600-\u06ff\u0750-\u077f]"),
    "he": re.compile(r"[\u0590-\u05ff]"),
    "hi": re.compile(r"[\u0900-\u097f]"),
    "th": re.compile(r"[\u0e00-\u0e7f]"),
    "han": re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]"),
    "kana": re.compile(r"[\u3040-\u30ff]"),
    "ko": re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]"),
}
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_RUSSIAN = re.compile(r"[ыэъёЫЭЪЁ]")
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _latin_language(value: str) -> tuple[str, float]:
    tokens = _text.words(value)
    hits = {code: sum(1 for t in tokens if t in words) for code, words in _FUNCTION_WORDS.items()}
    ranked = sorted(hits.items(), key=lambda item: (-item[1], LANGUAGES.index(item[0])))
    (best, top), (_, second) = ranked[0], ranked[1]
    # Too few function words (a list of names, code) or a tie: no language to name.
    if top < 2 or top * 20 < len(tokens) or top == second:
        return "unknown", 0.0
    return best, round(top / (top + second), 4)


def detect_language(value: str) -> tuple[str, float]:
    """Return the language of a text and a confidence from 0 to 1.

    The script with the most letters decides first: Cyrillic (Ukrainian when its own letters
    outnumber Russian ones, else Russian), Greek, Arabic, Hebrew, Devanagari (Hindi), Thai,
    Hangul (Korean), Han (Japanese when kana appear, else Chinese); the confidence is that
    script's share of the letters. Latin-script text is told apart (en, es, fr, de, it, pt,
    nl) by counting each language's commonest words; the confidence is the best count over
    the best two. Mixed, very short or list-like text reads as ``("unknown", 0.0)``. Reads the
    first 100,000 characters.
    """
    body = subject_text(value)[:100_000]
    counts = {script: len(pattern.findall(body)) for script, pattern in _SCRIPTS.items()}
    letters = sum(counts.values())
    if not letters:
        return "unknown", 0.0
    cjk = counts["han"] + counts["kana"]
    candidates = {**counts, "cjk": cjk}
    del candidates["han"], candidates["kana"]
    script = max(candidates, key=lambda name: candidates[name])
    share = round(candidates[script] / letters, 4)
    if script == "latin":
        code, confidence = _latin_language(body)
        return code, round(confidence * share, 4) if code != "unknown" else 0.0
    if script == "cyrillic":
        uk, ru = len(_UKRAINIAN.findall(body)), len(_RUSSIAN.findall(body))
        return ("uk" if uk > ru else "ru"), share
    if script == "cjk":
        return ("ja" if counts["kana"] else "zh"), share
    return script, share


def _word_count(value: str) -> int:
    """Count words; in scripts written without spaces, each character counts as one."""
    unspaced = len(_UNSPACED.findall(value))
    spaced = sum(1 for w in _text.words(value) if not _UNSPACED.search(w))
    return unspaced + spaced


@declares("language_match", "detected_language")
def language_adherence(
    ctx: Any,
    *,
    expected_language: Language | None = "en",
    min_words: int | None = 5,
    name: str | None = "language_match",
) -> Scores:
    """Check that the reply is written in the language you expect (see :func:`detect_language`).

    Code and URLs are left out first. No model is needed.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        expected_language: An ISO 639-1 code: en, es, fr, de, it, pt, nl, ru, uk, el, ar, he,
            hi, th, zh, ja or ko.
        min_words: A reply with fewer words is too short to judge: n.a. (in Chinese,
            Japanese and Thai each character counts as a word).
        name: Name of the primary score.

    Returns:
        language_match (BOOLEAN): the detected language is the expected one; an ``unknown``
            language fails.
        detected_language (CATEGORICAL): the detected code or ``unknown``; not returned for a
            reply too short to detect.
    """
    expected = check_choice(opt(expected_language, "en"), "expected_language", LANGUAGES)
    fewest = int(check_number(opt(min_words, 5), "min_words", minimum=0, integer=True))
    body, note = clip(subject_text(ctx))
    prose = strip_code(body)
    count = _word_count(prose)
    primary = opt(name, "language_match")
    if count < max(fewest, 1):
        return Scores([not_judged(primary, _with_note(
            f"not judged: {count} words, fewer than {max(fewest, 1)}", note))])
    code, confidence = detect_language(prose)
    if code == expected:
        comment = f"{code} (confidence {confidence:.2f})"
    elif code == "unknown":
        comment = f"could not tell the language; expected {expected}"
    else:
        comment = f"{code} (confidence {confidence:.2f}), expected {expected}"
    return Scores([
        _boolean(primary, code == expected, _with_note(comment, note)),
        _categorical("detected_language", code, f"confidence {confidence:.2f}"),
    ])


# --- sentiment and tone --------------------------------------------------------------------

# Valences on VADER's scale (-4 to 4), written for this library.
_LEXICON: dict[str, float] = {
    **dict.fromkeys(_wordlist("""
        good nice fine helpful glad pleased happy thanks thank welcome useful
        easy clear correct right ready safe success successful successfully resolved solved fixed
        works working enjoy enjoyed like liked love loved kind friendly polite calm fair fast
        quick smooth reliable secure stable accurate valid recommend recommended improve improved
        better best benefit positive hope hopefully support supported confident sure glad
        appreciate appreciated cheers congratulations congrats delighted"""), 1.8),
    **dict.fromkeys(_wordlist("""
        great excellent wonderful fantastic amazing awesome perfect brilliant
        outstanding superb excited thrilled lovely beautiful impressive remarkable"""),
                    3.0),
    **dict.fromkeys(_wordlist("""
        bad poor wrong error errors fail failed failure fails failing broken
        problem problems issue issues bug bugs slow hard difficult confusing confused unclear
        sorry unfortunately unable unfortunate annoying annoyed frustrating frustrated upset
        sad unhappy disappointed disappointing worse worst invalid incorrect missing lost
        crash crashed crashes risk risky unsafe insecure unstable useless pointless hate
        hated dislike angry mad rude complain complaint refuse refused reject rejected
        denied deny delay delayed late stuck blame blamed negative"""), -1.8),
    **dict.fromkeys(_wordlist("""
        terrible horrible awful disgusting pathetic stupid idiot idiotic dumb
        ridiculous furious outrageous unacceptable disaster disastrous garbage trash
        nonsense incompetent"""), -3.0),
}
_NEGATIONS = frozenset(_wordlist("""
        not no never none nobody nothing neither nor cannot without
    hardly isnt arent wasnt werent dont doesnt didnt wont wouldnt cant couldnt shouldnt"""))
_CONTRACTED = frozenset(_wordlist("""
        isn aren wasn weren don doesn didn won wouldn can couldn shouldn
    haven hasn hadn"""))
_BOOSTERS = frozenset(_wordlist("""
        very really extremely so totally absolutely incredibly super highly
    truly completely deeply especially particularly remarkably"""))
_DAMPENERS = frozenset(_wordlist("""
        slightly somewhat barely marginally partly kinda"""))
_BOOST = 0.293
_NEGATE = -0.74
_NEGATION_SCOPE = 3
_NORMALISER = 15.0


def _lexicon(extra_positive: tuple[str, ...], extra_negative: tuple[str, ...]) -> dict[str, float]:
    if not extra_positive and not extra_negative:
        return _LEXICON
    merged = dict(_LEXICON)
    merged.update(dict.fromkeys((w.lower() for w in extra_positive), 2.0))
    merged.update(dict.fromkeys((w.lower() for w in extra_negative), -2.0))
    return merged


def _is_negation(tokens: list[str], index: int) -> bool:
    token = tokens[index]
    if token in _NEGATIONS:
        return True
    # "don't" reads as "don", "t": the "t" after a contracted auxiliary negates.
    return token == "t" and index > 0 and tokens[index - 1] in _CONTRACTED


def compound_sentiment(value: str, lexicon: dict[str, float] | None = None) -> float:
    """Return the sentiment of a text from -1 to 1, VADER-style, with word lists only.

    Each word of the lexicon adds its valence; a booster (``very``) or dampener (``slightly``)
    just before it moves it by 0.293; a negation among the three words before it flips and
    shrinks it (times -0.74); words before a ``but`` count half, words after it one and a half.
    The sum ``s`` becomes ``s / sqrt(s * s + 15)``, VADER's normalisation.
    """
    words = lexicon if lexicon is not None else _LEXICON
    tokens = _text.words(value)
    pivot = tokens.index("but") if "but" in tokens else -1
    total = 0.0
    for index, token in enumerate(tokens):
        valence = words.get(token)
        if valence is None:
            continue
        if index > 0 and tokens[index - 1] in _BOOSTERS:
            valence += math.copysign(_BOOST, valence)
        elif index > 0 and tokens[index - 1] in _DAMPENERS:
            valence -= math.copysign(_BOOST, valence)
        start = max(0, index - _NEGATION_SCOPE)
        if any(_is_negation(tokens, i) for i in range(start, index)):
            valence *= _NEGATE
        if pivot >= 0:
            valence *= 0.5 if index < pivot else 1.5
        total += valence
    if total == 0:
        return 0.0
    return round(total / math.sqrt(total * total + _NORMALISER), 4)


def _label(score: float) -> str:
    if score >= 0.05:
        return "positive"
    return "negative" if score <= -0.05 else "neutral"


@declares("sentiment", "sentiment_label")
def sentiment(
    ctx: Any,
    *,
    extra_positive_words: Any = (),
    extra_negative_words: Any = (),
    name: str | None = "sentiment",
) -> Scores:
    """Score the reply's sentiment from -1 (negative) to 1 (positive), with word lists.

    See :func:`compound_sentiment` for the method; code and URLs are left out first.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        extra_positive_words: Words to add to the positive list (valence 2).
        extra_negative_words: Words to add to the negative list (valence -2).
        name: Name of the primary score.

    Returns:
        sentiment (NUMERIC, -1 to 1): the compound sentiment.
        sentiment_label (CATEGORICAL): ``positive`` at 0.05 and above, ``negative`` at -0.05
            and below, else ``neutral``.
    """
    lexicon = _lexicon(texts(extra_positive_words, "extra_positive_words"),
                       texts(extra_negative_words, "extra_negative_words"))
    body, note = clip(subject_text(ctx))
    score = compound_sentiment(strip_code(body), lexicon)
    label = _label(score)
    return Scores([
        _numeric(opt(name, "sentiment"), score, _with_note(f"{label} ({score:+.2f})", note)),
        _categorical("sentiment_label", label, "from the compound sentiment"),
    ])


DEFAULT_FORBIDDEN_PHRASES = ("calm down", "obviously", "as i already said",
                             "that's not my problem", "you should have", "stupid", "shut up")
"""The phrases :func:`tone` refuses when ``forbidden_phrases`` is not given."""

_SHOUT_WORD = re.compile(r"[^\W\d_]{3,}")
_SHOUT_MIN_LETTERS = 20


@declares("tone_ok", "sentiment")
def tone(
    ctx: Any,
    *,
    max_uppercase_ratio: float | None = 0.3,
    max_exclamations: int | None = 2,
    min_sentiment: float | None = -0.3,
    forbidden_phrases: Any = DEFAULT_FORBIDDEN_PHRASES,
    extra_positive_words: Any = (),
    extra_negative_words: Any = (),
    name: str | None = "tone_ok",
) -> Scores:
    """Flag a reply that shouts, piles on exclamation marks, reads as negative, or uses a
    banned phrase.

    Sentiment is :func:`compound_sentiment` (word lists, no model). Code and URLs are left out
    first.

    Args:
        ctx: A context or trace (reads the reply), or the text to check.
        max_uppercase_ratio: Share of capital letters, over words of 3 or more letters, above
            which the reply shouts; judged only on 20 or more such letters.
        max_exclamations: Most exclamation marks allowed.
        min_sentiment: Sentiment below this (on -1 to 1) reads as negative.
        forbidden_phrases: Phrases that fail the check, matched in lower case anywhere in the
            reply.
        extra_positive_words: Words to add to the positive list.
        extra_negative_words: Words to add to the negative list.
        name: Name of the primary score.

    Returns:
        tone_ok (BOOLEAN): no issue found.
        sentiment (NUMERIC, -1 to 1): the reply's sentiment.
    """
    ratio_limit = check_number(opt(max_uppercase_ratio, 0.3), "max_uppercase_ratio",
                               minimum=0, maximum=1)
    most_marks = check_number(opt(max_exclamations, 2), "max_exclamations", minimum=0)
    floor = check_number(opt(min_sentiment, -0.3), "min_sentiment", minimum=-1, maximum=1)
    phrases = texts(opt(forbidden_phrases, DEFAULT_FORBIDDEN_PHRASES), "forbidden_phrases")
    lexicon = _lexicon(texts(extra_positive_words, "extra_positive_words"),
                       texts(extra_negative_words, "extra_negative_words"))
    body, note = clip(subject_text(ctx))
    prose = strip_code(body)
    problems = []
    letters = "".join(_SHOUT_WORD.findall(prose))
    if len(letters) >= _SHOUT_MIN_LETTERS:
        upper = sum(map(str.isupper, letters)) / len(letters)
        if upper > ratio_limit:
            problems.append(f"shouting: {upper:.0%} capitals")
    marks = prose.count("!")
    if marks > most_marks:
        problems.append(f"{marks} exclamation marks, more than {most_marks:g}")
    score = compound_sentiment(prose, lexicon)
    if score < floor:
        problems.append(f"negative: sentiment {score:+.2f} below {floor:+.2f}")
    lowered = prose.lower()
    used = [phrase for phrase in phrases if phrase and phrase.lower() in lowered]
    if used:
        problems.append("banned phrase: " + ", ".join(repr(p) for p in used))
    comment = "; ".join(problems) or "no issue found"
    return Scores([
        _boolean(opt(name, "tone_ok"), not problems, _with_note(comment, note)),
        _numeric("sentiment", score, _with_note(f"{_label(score)} ({score:+.2f})", note)),
    ])

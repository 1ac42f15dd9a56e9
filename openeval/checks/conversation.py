"""Conversation checks: an assistant that repeats itself, and one that forgets what it was told.

Both read the conversation before the reply (``trace.messages`` without the final assistant
turn) and the reply (``final_output``). Given a plain text, there is no conversation: only the
reply's own signals count. Choices where the reference is silent are in
proposals/0041-check-library-agent-and-safety.md.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Literal, get_args

from openeval.checks import _settings, text, util
from openeval.checks._context import CheckContext
from openeval.checks._pii import find_pii, phone_key
from openeval.checks._steps import CheckInput, read_context
from openeval.scores import Scores

FactKind = Literal["email", "phone", "order_id", "name"]
"""A kind of fact ``knowledge_retention`` can hold a reply to."""
FACT_KINDS: tuple[str, ...] = get_args(FactKind)
"""The kinds of fact ``knowledge_retention`` collects from the user's turns."""


# --- conversation_degeneration ---------------------------------------------------------------


@util.declares("degenerated", "degeneration")
def conversation_degeneration(
    ctx: CheckInput, *, turns_to_consider: int = 5, min_words: int = 8, threshold: float = 0.6,
    name: str = "degenerated",
) -> Scores:
    """Check whether the assistant starts to repeat itself, within the reply or across turns.

    Three signals, each from 0 (healthy) to 1 (degenerate); the score is the largest:

    - repetition: the share of the reply's word 3-grams that occur in it more than once (a
      reply looping on a phrase);
    - turn similarity: the overlap (Jaccard, over word pairs) of the reply with the most
      similar of the last ``turns_to_consider`` assistant turns (the same answer again);
    - low diversity: 1 minus the reply's word entropy over the most it could be for its
      length.

    A reply, or an earlier turn, of fewer than ``min_words`` words is not compared across
    turns and has no diversity signal: two "Done." replies are not degeneration. A reply with
    no words has nothing to judge: n.a., with no ``degeneration`` score.

    Args:
        ctx: A context or trace, or the reply text (then only repetition and low diversity).
        turns_to_consider: Earlier assistant turns to compare against.
        min_words: Fewest words for the turn similarity and low diversity signals.
        threshold: Degeneration, 0 to 1, at which the reply counts as degenerated.
        name: Name of the primary score.

    Returns:
        degenerated (BOOLEAN, lower is better): degeneration reached ``threshold``.
        degeneration (NUMERIC, 0 to 1, lower is better): the largest of the three signals.
    """
    check = "conversation_degeneration"
    turns = _settings.integer(turns_to_consider, 5, check, "turns_to_consider")
    shortest = _settings.integer(min_words, 8, check, "min_words", minimum=1)
    line = _settings.number(threshold, 0.6, check, "threshold", maximum=1.0)
    primary = _settings.score_name(name, "degenerated", check)
    context = read_context(ctx, check)
    reply, note = util.clip(context.output)
    words = text.words(reply)
    if not words:
        return Scores([util.not_judged(primary, "reply has no words: nothing to judge")])
    repetition = _repetition(words)
    diversity = _low_diversity(words) if len(words) >= shortest else 0.0
    similarity, similar_turn = 0.0, 0
    if len(words) >= shortest and turns:
        earlier = [t["content"] for t in text.turns(context, include_reply=False)
                   if t["role"] == "assistant"][-turns:]
        mine = _pairs(words)
        for back, turn in enumerate(reversed(earlier), 1):
            other = text.words(util.clip(turn)[0])
            if len(other) < shortest:
                continue
            score = _jaccard(mine, _pairs(other))
            if score > similarity:
                similarity, similar_turn = score, back
    degeneration = round(max(repetition, similarity, diversity), 6)
    parts = [f"repetition {repetition:.2f}", f"low diversity {diversity:.2f}"]
    if similar_turn:
        parts.insert(1, f"turn similarity {similarity:.2f} (assistant turn {similar_turn} back)")
    comment = f"degeneration {degeneration:.2f}: " + ", ".join(parts)
    if note:
        comment += f" ({note})"
    return Scores([
        util.boolean_score(primary, degeneration >= line, comment, higher_is_better=False),
        util.numeric_score("degeneration", degeneration, comment, higher_is_better=False),
    ])


def _repetition(words: Sequence[str]) -> float:
    grams = [tuple(words[i:i + 3]) for i in range(len(words) - 2)]
    if not grams:
        return 0.0
    counts = Counter(grams)
    repeated = sum(n for n in counts.values() if n > 1)
    return repeated / len(grams)


def _low_diversity(words: Sequence[str]) -> float:
    total = len(words)
    if total < 2:
        return 0.0
    counts = Counter(words)
    entropy = -sum(n / total * math.log(n / total) for n in counts.values())
    return max(0.0, 1.0 - entropy / math.log(total))


def _pairs(words: Sequence[str]) -> set[tuple[str, ...]]:
    if len(words) < 2:
        return {tuple(words)}
    return set(pairwise(words))


def _jaccard(a: set[tuple[str, ...]], b: set[tuple[str, ...]]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


# --- knowledge_retention ---------------------------------------------------------------------

_NAME = r"([A-Z][a-zA-Z'\u2019-]+(?:[ \t]+[A-Z][a-zA-Z'\u2019-]+){0,2})"
_USER_NAME = re.compile(
    r"\b(?i:my\s+name\s+is|my\s+name's|call\s+me|name\s*:)[ \t]+" + _NAME
    + r"|\b(?i:this\s+is)[ \t]+" + _NAME + r"[ \t]+(?i:speaking|here)\b"
    + r"|\bI(?:'m|\u2019m|[ \t]+am)[ \t]+" + _NAME + r"(?=[ \t]*(?:[,.!?;]|$|and\b|from\b))",
    re.MULTILINE,
)
_NOT_NAMES = frozenset({
    "sorry", "not", "here", "back", "done", "fine", "good", "ok", "okay", "happy", "glad",
    "just", "also", "so", "still", "really", "very", "afraid", "sure", "ready", "the", "a",
    "an", "in", "on", "at", "new", "confused", "frustrated", "interested", "available",
})
_REPLY_NAME = re.compile(
    r"\b(?i:hi|hello|hey|dear|thanks|thank\s+you|welcome|sorry|good\s+(?:morning|afternoon"
    r"|evening)),?[ \t]+" + _NAME
    + r"|\b(?i:your\s+name\s+is)[ \t]+" + _NAME
    + r"|\b(?:Mr|Mrs|Ms|Miss|Dr)\.?[ \t]+" + _NAME
)
_ORDER = re.compile(
    r"\b(?i:order|ticket|case|booking|reservation|confirmation|invoice|reference|ref|tracking)"
    # One blank run, then an optional ":" or "#" and its own run: two runs side by side with
    # nothing required between them would backtrack quadratically on a long blank run.
    r"(?i:[ \t]*(?:number|no\.?|num|id|code|#))?[ \t]*(?:[:#][ \t]*)?(?i:is[ \t]+)?"
    r"((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,40})\b"
)
_ASK = re.compile(
    r"\b(?:what(?:'s|\s+is|\s+was)"
    r"|(?:could|can|would)\s+you\s+(?:please\s+)?(?:provide|share|send|give|tell\s+me|confirm"
    r"|type|spell|enter|let\s+me\s+know)(?:\s+me)?"
    r"|please\s+(?:provide|share|send|give|tell\s+me|confirm|type|spell|enter"
    r"|let\s+me\s+know)(?:\s+me)?"
    r"|(?:may|can|could)\s+i\s+(?:have|get|ask\s+for|take)"
    r"|i(?:'ll|\s+will)?\s+need|tell\s+me|send\s+me|let\s+me\s+know)"
    r"\s+(?:with\s+)?your\s+([a-z-]+(?:\s+[a-z-]+){0,2})",
    re.IGNORECASE,
)
_ASKED_KIND: tuple[tuple[tuple[str, ...], str], ...] = (
    (("mail",), "email"),
    (("phone", "mobile", "cell", "telephone"), "phone"),
    (("order", "ticket", "case", "booking", "reference", "confirmation", "tracking",
      "reservation", "invoice"), "order_id"),
    (("name",), "name"),
    (("number",), "phone"),
)


@dataclass(frozen=True)
class _Fact:
    kind: str
    value: str


@util.declares("knowledge_retained", "knowledge_retention")
def knowledge_retention(
    ctx: CheckInput, *, turns_to_consider: int = 5,
    contradiction_kinds: Sequence[FactKind] = ("email", "phone", "name"),
    name: str = "knowledge_retained",
) -> Scores:
    """Check that the reply does not forget what the user already said.

    Collects the facts the user stated in the last ``turns_to_consider`` user turns before
    the reply: email addresses, phone numbers, order or ticket numbers, and their name ("my
    name is ...", "call me ...", "I'm ..."). A fact is forgotten when the reply asks for its
    kind again ("could you send me your order number?") without quoting it, or, for
    ``contradiction_kinds``, when the reply quotes a different value of that kind (another
    email, phone or name than any the user gave) and not the user's. A trace with no
    conversation, or a user who stated no fact, has nothing to judge: n.a., with no
    ``knowledge_retention`` score.

    Args:
        ctx: A context or trace.
        turns_to_consider: Earlier user turns to read facts from.
        contradiction_kinds: Kinds where the reply quoting a different value is a mistake:
            ``email``, ``phone``, ``order_id``, ``name``. Order numbers are left out by
            default: an agent that opens a new ticket rightly quotes a new number.
        name: Name of the primary score.

    Returns:
        knowledge_retained (BOOLEAN): no fact was forgotten.
        knowledge_retention (NUMERIC, 0 to 1): the share of facts kept.
    """
    check = "knowledge_retention"
    turns = _settings.integer(turns_to_consider, 5, check, "turns_to_consider")
    kinds = _settings.strings(contradiction_kinds, ("email", "phone", "name"), check,
                              "contradiction_kinds")
    unknown = [kind for kind in kinds if kind not in FACT_KINDS]
    if unknown:
        raise _settings.bad_setting(check, "contradiction_kinds",
                                    f"kinds among {', '.join(FACT_KINDS)}", unknown[0])
    primary = _settings.score_name(name, "knowledge_retained", check)
    context = read_context(ctx, check)
    facts = _user_facts(context, turns)
    if not facts:
        return Scores([util.not_judged(primary, "the user stated no fact to retain")])
    reply, note = util.clip(context.output)
    quoted = _reply_facts(reply)
    asked = _asked_kinds(reply)
    forgotten: list[str] = []
    lost: set[_Fact] = set()
    for kind in FACT_KINDS:
        mine = [f for f in facts if f.kind == kind]
        if not mine:
            continue
        theirs = {f.value for f in quoted if f.kind == kind}
        kept = [f for f in mine if _quotes(theirs, f)]
        if kind in asked and not kept:
            forgotten.append(f"asked again for the {_KIND_WORDS[kind]}")
            lost.update(mine)
        elif kind in kinds and theirs and not kept:
            forgotten.append(f"quoted a different {_KIND_WORDS[kind]} than the user gave")
            lost.update(mine)
    share = (len(facts) - len(lost)) / len(facts)
    counts = Counter(f.kind for f in facts)
    stated = ", ".join(f"{_KIND_WORDS[k]} x{counts[k]}" if counts[k] > 1 else _KIND_WORDS[k]
                       for k in FACT_KINDS if counts[k])
    if forgotten:
        comment = f"forgot {len(lost)} of {len(facts)} facts ({stated}): " + "; ".join(forgotten)
    else:
        comment = f"kept {len(facts)} fact{'s' if len(facts) != 1 else ''} ({stated})"
    if note:
        comment += f" ({note})"
    return Scores([
        util.boolean_score(primary, not forgotten, comment),
        util.numeric_score("knowledge_retention", share, comment),
    ])


_KIND_WORDS = {"email": "email", "phone": "phone number", "order_id": "order number",
               "name": "name"}


def _user_facts(context: CheckContext, turns: int) -> list[_Fact]:
    """Return the distinct facts of the last ``turns`` user turns, oldest first."""
    if not turns:
        return []
    said = [t["content"] for t in text.turns(context, include_reply=False)
            if t["role"] == "user"][-turns:]
    budget = util.MAX_TEXT_CHARS
    kept: list[str] = []
    for turn in reversed(said):  # the newest turns matter most when the budget runs out
        if budget <= 0:
            break
        kept.append(turn[:budget])
        budget -= len(kept[-1])
    facts: list[_Fact] = []
    for turn in reversed(kept):
        for found in find_pii(turn):
            if found.kind == "email":
                facts.append(_Fact("email", found.value))
            elif found.kind == "phone":
                facts.append(_Fact("phone", found.value))
        for match in _ORDER.finditer(turn):
            facts.append(_Fact("order_id", match.group(1).upper()))
        for match in _USER_NAME.finditer(turn):
            person = next(g for g in match.groups() if g)
            if person.split()[0].lower() not in _NOT_NAMES:
                facts.append(_Fact("name", person.lower()))
    return list(dict.fromkeys(facts))


def _reply_facts(reply: str) -> list[_Fact]:
    facts = [_Fact(f.kind, f.value) for f in find_pii(reply) if f.kind in ("email", "phone")]
    facts += [_Fact("order_id", m.group(1).upper()) for m in _ORDER.finditer(reply)]
    for match in _REPLY_NAME.finditer(reply):
        person = next(g for g in match.groups() if g)
        if person.split()[0].lower() not in _NOT_NAMES:
            facts.append(_Fact("name", person.lower()))
    return facts


def _quotes(values: set[str], fact: _Fact) -> bool:
    """Return whether the reply's values of a kind include ``fact`` (a name: any shared word)."""
    if fact.kind == "name":
        mine = set(fact.value.split())
        return any(mine & set(value.split()) for value in values)
    if fact.kind == "phone":
        return phone_key(fact.value) in {phone_key(v) for v in values}
    return fact.value in values


def _asked_kinds(reply: str) -> set[str]:
    asked = set()
    for match in _ASK.finditer(reply):
        phrase = match.group(1).lower()
        for keys, kind in _ASKED_KIND:
            if any(key in phrase for key in keys):
                asked.add(kind)
                break
    return asked

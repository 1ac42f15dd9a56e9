"""Combine several scores into one.

Every function takes a list of scores: the :class:`~openeval.scores.Scores` of a check, a plain
list, or a list of such lists (read as one flat list). A score may also be a dict with
``name``, ``value``, ``data_type`` and ``higher_is_better``, as score JSON is written::

    scores = tone(ctx) + readability(ctx)
    overall = weighted_mean(scores, weights={"tone_ok": 2})

A BOOLEAN score counts as 1 or 0 where a number is needed; CATEGORICAL scores and scores with no
value are skipped.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from openeval.scores import Score, Scores

ScoreLike = Score | Mapping[str, Any]
"""A :class:`~openeval.scores.Score`, or a score as a JSON dict."""


def _flat(scores: Any) -> list[ScoreLike]:
    """Return ``scores`` as one flat list (a single score becomes a list of one)."""
    if isinstance(scores, (Score, Mapping)):
        return [scores]
    found: list[ScoreLike] = []
    for item in scores:
        if isinstance(item, (Score, Mapping)):
            found.append(item)
        elif isinstance(item, Iterable) and not isinstance(item, (str, bytes)):
            found.extend(_flat(item))
        else:
            raise TypeError(f"expected a score or a list of scores, got {type(item).__name__}")
    return found


def _field(score: ScoreLike, key: str, default: Any = None) -> Any:
    if isinstance(score, Score):
        return getattr(score, key)
    return score.get(key, default)


def _data_type(score: ScoreLike) -> str:
    data_type = _field(score, "data_type")
    if data_type is None:  # a dict without a type: read it from its value
        value = _field(score, "value")
        if isinstance(value, bool):
            return "BOOLEAN"
        return "CATEGORICAL" if isinstance(value, str) else "NUMERIC"
    return str(data_type)


def _number(score: ScoreLike) -> float | None:
    """Return the score's value as a number (a BOOLEAN as 1 or 0), or None when it has none."""
    if _data_type(score) == "CATEGORICAL":
        return None
    value = _field(score, "value")
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    return None


def _name(score: ScoreLike) -> str:
    name = _field(score, "name")
    return name if isinstance(name, str) else ""


def _shared_direction(scores: Iterable[ScoreLike]) -> bool | None:
    directions = {_field(score, "higher_is_better") for score in scores}
    return directions.pop() if len(directions) == 1 else None


def weighted_mean(
    scores: Any, weights: Mapping[str, float] | Sequence[float] | None = None,
    name: str = "combined",
) -> Score:
    """Return the weighted mean of the scores' values as one NUMERIC score, higher is better.

    Values are used as they are, so pick scores that read the same way (turn a lower-is-better
    score round with :func:`threshold` first).

    Args:
        scores: The scores to combine.
        weights: ``{score name: weight}`` (a name not in it weighs 1), or one weight per score
            in the order of the flat list. None: every score weighs 1.
        name: Name of the combined score.

    Raises:
        ValueError: no score has a number; a weight is negative or not a number; a weight list
            does not have one weight per score; every weight is 0.
    """
    flat = _flat(scores)
    if weights is None:
        weight_of = [1.0] * len(flat)
    elif isinstance(weights, Mapping):
        weight_of = [weights.get(_name(score), 1.0) for score in flat]
    else:
        weight_of = list(weights)
        if len(weight_of) != len(flat):
            raise ValueError(f"weights has {len(weight_of)} items for {len(flat)} scores")
    total = 0.0
    weight_sum = 0.0
    used = 0
    for score, weight in zip(flat, weight_of, strict=True):
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not (
            math.isfinite(weight) and weight >= 0
        ):
            raise ValueError(f"weight {weight!r} of score {_name(score)!r} is not a number >= 0")
        value = _number(score)
        if value is None:
            continue
        total += weight * value
        weight_sum += weight
        used += 1
    if used == 0:
        raise ValueError("no score has a number to combine")
    if weight_sum == 0:
        raise ValueError("every score to combine weighs 0")
    return Score(total / weight_sum, "NUMERIC", f"weighted mean of {used} scores", name, True)


def passed(score: ScoreLike, at: float | None = None) -> bool:
    """Return whether one score reads as a pass.

    A BOOLEAN score passes when it is True, or False for a lower-is-better score (such as
    ``refused``). A NUMERIC score passes at or above ``at``, or at or below it when lower is
    better; with no ``at`` the line is 0.5: at or above it when higher is better, below it when
    lower is better.

    Raises:
        ValueError: the score is CATEGORICAL or has no value.
    """
    data_type = _data_type(score)
    value = _number(score)
    if data_type == "CATEGORICAL" or value is None:
        raise ValueError(f"score {_name(score)!r} has no value that can pass or fail")
    lower_is_better = _field(score, "higher_is_better") is False
    if data_type == "BOOLEAN":
        return (value == 0.0) if lower_is_better else (value == 1.0)
    if at is None:
        return value < 0.5 if lower_is_better else value >= 0.5
    return value <= at if lower_is_better else value >= at


def _judged(scores: Any, at: float | None) -> list[bool]:
    return [
        passed(score, at)
        for score in _flat(scores)
        if _data_type(score) != "CATEGORICAL" and _number(score) is not None
    ]


def all_pass(scores: Any, name: str = "all_pass", at: float | None = None) -> Score:
    """Return a BOOLEAN score, higher is better: True when every score passes (:func:`passed`).

    CATEGORICAL scores and scores with no value are skipped; True when nothing is left.
    """
    results = _judged(scores, at)
    failed = results.count(False)
    comment = f"{failed} of {len(results)} scores failed" if failed else (
        f"all {len(results)} scores passed")
    return Score(all(results), "BOOLEAN", comment, name, True)


def any_fail(scores: Any, name: str = "any_fail", at: float | None = None) -> Score:
    """Return a BOOLEAN score, lower is better: True when a score fails (see :func:`all_pass`)."""
    results = _judged(scores, at)
    failed = results.count(False)
    comment = f"{failed} of {len(results)} scores failed"
    return Score(failed > 0, "BOOLEAN", comment, name, False)


def _extreme(scores: Any, name: str, pick: Any) -> Score:
    numbered = [(value, score) for score in _flat(scores)
                if (value := _number(score)) is not None]
    if not numbered:
        raise ValueError("no score has a number")
    value, chosen = pick(numbered, key=lambda pair: pair[0])
    return Score(value, "NUMERIC", f"from {_name(chosen) or 'an unnamed score'}", name,
                 _shared_direction(score for _, score in numbered))


def minimum(scores: Any, name: str = "minimum") -> Score:
    """Return the smallest value among the scores as a NUMERIC score.

    Its direction is the one the scores share, else unset (None).

    Raises:
        ValueError: no score has a number.
    """
    return _extreme(scores, name, min)


def maximum(scores: Any, name: str = "maximum") -> Score:
    """Return the largest value among the scores as a NUMERIC score (see :func:`minimum`).

    Raises:
        ValueError: no score has a number.
    """
    return _extreme(scores, name, max)


def threshold(score: ScoreLike, at: float, name: str | None = None, above: bool = True) -> Score:
    """Return a BOOLEAN score, higher is better: ``score`` at or above ``at`` (below, when not
    ``above``).

    A BOOLEAN counts as 1 or 0; a score with no number gives False. ``name`` defaults to the
    score's name with ``_ok`` added.
    """
    value = _number(score)
    label = name if name is not None else f"{_name(score)}_ok"
    if value is None:
        return Score(False, "BOOLEAN", "the score has no number", label, True)
    ok = value >= at if above else value < at
    relation = ">=" if above else "<"
    comment = f"{value:g} {relation} {at:g}" if ok else f"{value:g} not {relation} {at:g}"
    return Score(ok, "BOOLEAN", comment, label, True)


def rename(scores: Any, prefix: str = "", names: Mapping[str, str] | None = None) -> Scores:
    """Return copies of the scores with new names; the scores passed in do not change.

    ``names`` (``{old: new}``) applies first, then ``prefix`` goes before every name. A score
    dict comes back as a :class:`~openeval.scores.Score`.
    """
    mapping = names or {}
    renamed = Scores()
    for score in _flat(scores):
        old = _name(score)
        new = prefix + mapping.get(old, old)
        if isinstance(score, Score):
            renamed.append(Score(score.value, score.data_type, score.comment, new,
                                 score.higher_is_better))
        else:
            renamed.append(Score(score.get("value"), _data_type(score),  # type: ignore[arg-type]
                                 score.get("comment"), new, score.get("higher_is_better")))
    return renamed

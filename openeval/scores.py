"""Named scores: what every metric and check returns, and the one rule that judges them.

A :class:`Score` is one named value of one of three data types (the check library's reference names
them ``NUMERIC``, ``BOOLEAN`` and ``CATEGORICAL``), with the direction that is good for it.
:class:`Scores` is a list of them, primary first, that also finds a score by name.

:func:`verdict` is the verdict rule of docs/semantics.md#verdict-rules, written once for every
metric, check and user check (proposals/0002-scoring-core.md):

- when any BOOLEAN score is present, pass when every BOOLEAN score is good (``True`` when higher
  is better, ``False`` when lower is better, as for ``refused``), fail otherwise;
- else, when a threshold is given, judge the primary NUMERIC score against it, direction-aware
  (at least the threshold when higher is better, at most when lower is better);
- else not evaluated: a measurement with no limit, or CATEGORICAL scores only.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal, SupportsIndex, get_args, overload

DataType = Literal["NUMERIC", "BOOLEAN", "CATEGORICAL"]
DATA_TYPES: tuple[str, ...] = get_args(DataType)

Verdict = Literal["pass", "fail", "n.a.", "error"]
"""Four states: judged good, judged bad, nothing to judge, could not be judged (never a pass)."""
VERDICTS: tuple[str, ...] = get_args(Verdict)

_set = object.__setattr__


@dataclass(frozen=True)
class Score:
    """One named score.

    The constructor takes the check library's order, ``Score(value, data_type, comment, name,
    higher_is_better)``, so code written for it reads unchanged.
    """

    value: float | bool | str
    """A number for NUMERIC, True or False for BOOLEAN, a string for CATEGORICAL."""
    data_type: DataType = "NUMERIC"
    """``NUMERIC``, ``BOOLEAN`` or ``CATEGORICAL``."""
    comment: str | None = None
    """A short reason shown next to the score."""
    name: str | None = None
    """The score's name; a check returning several scores names each."""
    higher_is_better: bool | None = None
    """Which way is good; None means higher (True for BOOLEAN) is good."""

    def __init__(self, value: float | bool | str, data_type: DataType = "NUMERIC",
                 comment: str | None = None, name: str | None = None,
                 higher_is_better: bool | None = None) -> None:
        # Written out rather than generated: the frozen dataclass's own sets each field
        # through a guarded setattr, and checks build several scores per trace
        # (proposals/0300-score-loop-once-per-check.md). Same fields, same checks.
        _set(self, "__dict__", {"value": value, "data_type": data_type, "comment": comment,
                                "name": name, "higher_is_better": higher_is_better})
        if data_type == "BOOLEAN" and type(value) is bool:  # the usual cases, first
            return
        if data_type == "NUMERIC" and type(value) is float and math.isfinite(value):
            return
        self.__post_init__()

    def __post_init__(self) -> None:
        value = self.value
        if self.data_type == "NUMERIC" and type(value) is float:  # the usual case, first
            if not math.isfinite(value):
                raise ValueError(f"NUMERIC score {self.name!r} is not finite: {value!r}")
            return
        if self.data_type not in DATA_TYPES:
            raise ValueError(
                f"score data_type {self.data_type!r}; expected one of: {', '.join(DATA_TYPES)}"
            )
        if self.data_type == "BOOLEAN":
            if not isinstance(self.value, bool):
                raise ValueError(f"BOOLEAN score {self.name!r} needs True or False, got "
                                 f"{type(self.value).__name__}")
        elif self.data_type == "NUMERIC":
            if isinstance(self.value, bool) or not isinstance(self.value, (int, float)):
                raise ValueError(f"NUMERIC score {self.name!r} needs a number, got "
                                 f"{type(self.value).__name__}")
            if not math.isfinite(self.value):
                raise ValueError(f"NUMERIC score {self.name!r} is not finite: {self.value!r}")
        elif not isinstance(self.value, str):
            raise ValueError(f"CATEGORICAL score {self.name!r} needs a string, got "
                             f"{type(self.value).__name__}")

    @property
    def good(self) -> bool | None:
        """For a BOOLEAN score: True when its value is the good one; None for other types."""
        if self.data_type != "BOOLEAN":
            return None
        return bool(self.value) is (self.higher_is_better is not False)

    def to_dict(self) -> dict[str, Any]:
        """Return the score as a JSON object with every field."""
        return {
            "name": self.name,
            "value": self.value,
            "data_type": self.data_type,
            "higher_is_better": self.higher_is_better,
            "comment": self.comment,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Score:
        """Build a score from its JSON object (already schema-checked)."""
        return cls(
            value=data["value"],
            data_type=data["data_type"],
            comment=data.get("comment"),
            name=data.get("name"),
            higher_is_better=data.get("higher_is_better"),
        )


class Scores(list[Score]):
    """A list of :class:`Score`, primary first, that also finds a score by its name.

    ``scores["rouge_l"]`` gives the score of that name (KeyError when none); an int index still
    gives the score at that place, and ``+`` joins lists as for any list.
    """

    @overload
    def __getitem__(self, key: SupportsIndex | str) -> Score: ...
    @overload
    def __getitem__(self, key: slice) -> Scores: ...
    def __getitem__(self, key: SupportsIndex | str | slice) -> Score | Scores:
        if isinstance(key, str):
            for score in self:
                if score.name == key:
                    return score
            names = ", ".join(str(s.name) for s in self) or "(none)"
            raise KeyError(f"no score named {key!r}; the scores are: {names}")
        if isinstance(key, slice):
            return Scores(super().__getitem__(key))
        return super().__getitem__(key)

    def get(self, name: str, default: Score | None = None) -> Score | None:
        """Return the score called ``name``, or ``default`` when there is none."""
        for score in self:
            if score.name == name:
                return score
        return default

    def __add__(self, other: Iterable[Score]) -> Scores:  # type: ignore[override]
        return Scores([*self, *other])


def verdict(scores: Iterable[Score], threshold: float | None = None) -> Verdict:
    """Return ``pass``, ``fail`` or ``n.a.`` for ``scores`` under the rule in the module docstring.

    ``error`` is never returned here: it is the verdict of a check that raised, set by the scorer.
    """
    # One pass, no temporary lists: this runs once per check per case (hot path).
    booleans = good = False
    primary: Score | None = None
    for score in scores:
        kind = score.data_type
        if kind == "BOOLEAN":
            if not booleans:
                booleans = good = True
            if bool(score.value) is (score.higher_is_better is False):
                good = False
        elif primary is None and kind == "NUMERIC":
            primary = score
    if booleans:
        return "pass" if good else "fail"
    if threshold is None or primary is None:
        return "n.a."
    value = float(primary.value)
    if primary.higher_is_better is False:
        return "pass" if value <= threshold else "fail"
    return "pass" if value >= threshold else "fail"

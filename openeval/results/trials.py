"""Repeated trials of one task: the rule that turns n trial verdicts into one, and pass^k/pass@k.

A case may be run several times (several traces of the same task). Of its ``n`` trials, ``c``
did not fail; for every ``k`` from 1 to ``n``:

- ``pass^k = C(c, k) / C(n, k)``: the chance that ``k`` trials drawn without replacement all
  pass (tau-bench's reliability estimator; 0 when ``k > c``);
- ``pass@k = 1 - C(n - c, k) / C(n, k)``: the chance that at least one of them passes (the
  unbiased estimator of Chen et al.; 1 when ``k > n - c``).

Both are computed from exact integers and divided once, so the figures are the same on every
machine. The case's own verdict follows its :class:`TrialsRule` (proposals/0060).

Scoring is deterministic, so trials that disagree disagree because the agent did: a case is
labelled by its :class:`FlakyBand` as ``stable-pass``, ``flaky`` or ``stable-fail`` from the
share of its trials that did not fail (proposals/0190-flaky-labels.md).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

RuleKind = str
"""A trials rule's name: one of ``openeval.results.registry.names()``."""

DEFAULT_RULE = "all"
"""The rule when none is given: a case passes when every one of its trials passes."""

RULE_HELP = "'all', 'majority' or 'pass_at_k=K' (K a whole number from 1)"
"""How the built-in rules read in an error message (:func:`rule_help` adds plugins' rules)."""

_K = re.compile(r"[1-9][0-9]{0,5}")


@dataclass(frozen=True)
class RuleDefinition:
    """One trials rule as the registry holds it: its name, whether it takes a ``K``
    (``name=K``), how it reads in an error message, and the verdict of ``passed`` of ``n``."""

    name: str
    takes_k: bool
    spelling: str
    """How the rule is written, as an error message lists it: ``'pass_at_k=K' (K ...)``."""
    decide: Callable[[int, int, int | None], bool]
    """``decide(n, passed, k)``: True when ``passed`` of ``n`` trials satisfy the rule."""


ALL = RuleDefinition("all", False, "'all'", lambda n, passed, k: passed == n)
MAJORITY = RuleDefinition("majority", False, "'majority'", lambda n, passed, k: 2 * passed > n)
PASS_AT_K = RuleDefinition(
    "pass_at_k", True, "'pass_at_k=K' (K a whole number from 1)",
    lambda n, passed, k: n - passed < (k if k is not None else 1),
)


def rule_help() -> str:
    """Return how every registered rule reads in an error message, plugins' rules included."""
    from openeval.results.registry import get, names

    spelled = [get(name).spelling for name in names()]
    return spelled[0] if len(spelled) == 1 else ", ".join(spelled[:-1]) + " or " + spelled[-1]


@dataclass(frozen=True)
class TrialsRule:
    """How a case with several trials passes: ``all`` of them, a strict ``majority``, or
    ``pass_at_k`` (fewer than ``k`` trials failed, so every choice of ``k`` trials holds a pass:
    pass@k = 1), or a rule a plugin registered (:mod:`openeval.results.registry`)."""

    kind: RuleKind = "all"
    k: int | None = None
    """The ``K`` of ``pass_at_k=K``; None for the other rules."""

    @classmethod
    def parse(cls, text: str) -> TrialsRule:
        """Return the rule ``text`` spells; raise ValueError saying what was expected."""
        from openeval.results.registry import REGISTRY

        name, sep, k = text.partition("=")
        definition = REGISTRY.get(name) if name in REGISTRY else None
        if definition is None or sep != ("=" if definition.takes_k else "") or (
            definition.takes_k and _K.fullmatch(k) is None
        ):
            raise ValueError(f"unknown trials rule {text!r}; expected {rule_help()}")
        return cls(name, int(k) if definition.takes_k else None)

    def __str__(self) -> str:
        return self.kind if self.k is None else f"{self.kind}={self.k}"

    def needs(self, n: int) -> str | None:
        """Return why the rule cannot judge ``n`` trials (fewer than its ``K``), or None."""
        if self.k is not None and self.k > n:
            return (f"trials rule {self} needs at least {self.k} trials; this case has {n}")
        return None

    def passes(self, n: int, passed: int) -> bool:
        """Return True when ``passed`` of ``n`` trials satisfy the rule."""
        from openeval.results.registry import get

        return get(self.kind).decide(n, passed, self.k)


Stability = Literal["stable-pass", "flaky", "stable-fail"]
"""What a case's trials say about the agent: it passes every time, it sometimes does, or it
never does (within the :class:`FlakyBand`)."""

STABILITY_LABELS: tuple[Stability, ...] = ("stable-pass", "flaky", "stable-fail")
"""Every label, in the order reports count them."""


@dataclass(frozen=True)
class FlakyBand:
    """Where a case with trials counts as flaky: the share of its trials that did not fail
    lies strictly between ``low`` and ``high``; at ``high`` or above it is ``stable-pass``, at
    ``low`` or below ``stable-fail``. The default (0, 1): flaky whenever the trials disagree.
    """

    low: float = 0.0
    high: float = 1.0

    @classmethod
    def parse(cls, value: Any) -> FlakyBand:
        """Return the band a ``[trials] flaky_between = [LOW, HIGH]`` value gives; raise
        ValueError saying what was expected."""
        if (
            not isinstance(value, list | tuple) or len(value) != 2
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)
            or not 0.0 <= value[0] < value[1] <= 1.0
        ):
            raise ValueError(f"expected [LOW, HIGH], two shares with 0 <= LOW < HIGH <= 1, "
                             f"got {value!r}")
        return cls(float(value[0]), float(value[1]))

    @property
    def is_default(self) -> bool:
        """True for the band (0, 1), which result files leave unwritten."""
        return self == DEFAULT_FLAKY_BAND

    def label(self, n: int, passed: int) -> Stability:
        """Return the label of ``passed`` of ``n`` trials (``n`` at least 1)."""
        # Exact fractions: 2 of 3 against a line written 0.6666666666666666 is at the line.
        share = Fraction(passed, n)
        if share >= _line(self.high):
            return "stable-pass"
        if share <= _line(self.low):
            return "stable-fail"
        return "flaky"

    def to_list(self) -> list[float]:
        """Return the band as a result file writes it."""
        return [self.low, self.high]


def _line(value: float) -> Fraction:
    """The fraction a line written as a decimal means (0.6666666666666666 is 2/3)."""
    return Fraction(value).limit_denominator(1_000_000)


DEFAULT_FLAKY_BAND = FlakyBand()
"""Flaky when some trials passed and some failed."""


def pass_hat_k(n: int, c: int, k: int) -> float:
    """Return pass^k for ``c`` passes in ``n`` trials; ``1 <= k <= n`` (ValueError otherwise)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Return pass@k for ``c`` passes in ``n`` trials; ``1 <= k <= n`` (ValueError otherwise)."""
    _check(n, c, k)
    total = math.comb(n, k)
    return (total - math.comb(n - c, k)) / total


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


@dataclass(frozen=True)
class TrialStats:
    """What the trials of one case add up to: ``passed`` of ``n``, and pass^k, pass@k for
    ``k = 1 .. n`` (index ``k - 1``)."""

    n: int
    passed: int
    pass_hat_k: tuple[float, ...]
    pass_at_k: tuple[float, ...]

    @classmethod
    def of(cls, n: int, passed: int) -> TrialStats:
        """Return the figures of ``passed`` passes in ``n`` trials (``n`` at least 1)."""
        ks = range(1, n + 1)
        return cls(n, passed, tuple(pass_hat_k(n, passed, k) for k in ks),
                   tuple(pass_at_k(n, passed, k) for k in ks))

    def to_dict(self) -> dict[str, Any]:
        """Return the figures as the ``trial_stats`` object of a result file."""
        return {
            "n": self.n,
            "passed": self.passed,
            "pass_hat_k": list(self.pass_hat_k),
            "pass_at_k": list(self.pass_at_k),
        }


@dataclass(frozen=True)
class KMeans:
    """pass^k and pass@k for one ``k``, averaged over the cases with at least ``k`` trials."""

    k: int
    cases: int
    pass_hat_k: float
    pass_at_k: float

    def to_dict(self) -> dict[str, Any]:
        """Return the means as one entry of the summary's ``trials.by_k`` list."""
        return {"k": self.k, "cases": self.cases, "pass_hat_k": self.pass_hat_k,
                "pass_at_k": self.pass_at_k}


@dataclass(frozen=True)
class TrialsSummary:
    """The trials of a run: how many cases had trials, how many trials passed, and the mean
    pass^k and pass@k per ``k`` over those cases."""

    cases: int
    trials: int
    passed_trials: int
    by_k: tuple[KMeans, ...]
    stability: tuple[tuple[Stability, int], ...] | None = None
    """How many cases carry each label, every label listed; None when no case was labelled
    (result files written before the labels existed)."""

    @classmethod
    def of(cls, stats: list[TrialStats], labels: list[Stability | None] | None = None
           ) -> TrialsSummary | None:
        """Return the summary of the cases' ``stats`` and stability ``labels`` (one per
        labelled case); None when no case had trials."""
        if not stats:
            return None
        by_k = []
        for k in range(1, max(s.n for s in stats) + 1):
            having = [s for s in stats if s.n >= k]
            # fsum, in case order: the same figures on every run and machine.
            by_k.append(KMeans(
                k, len(having),
                math.fsum(s.pass_hat_k[k - 1] for s in having) / len(having),
                math.fsum(s.pass_at_k[k - 1] for s in having) / len(having),
            ))
        counted = None
        if labels:
            counted = tuple((name, labels.count(name)) for name in STABILITY_LABELS)
        return cls(len(stats), sum(s.n for s in stats), sum(s.passed for s in stats),
                   tuple(by_k), counted)

    def labels_text(self) -> str:
        """Return ``1 stable-pass, 2 flaky, 0 stable-fail`` (every report's spelling); empty
        when no case was labelled."""
        return ", ".join(f"{n} {name}" for name, n in self.stability or ())

    def count(self, label: Stability) -> int:
        """Return how many cases carry ``label`` (0 when none was labelled)."""
        return dict(self.stability or ()).get(label, 0)

    def to_dict(self) -> dict[str, Any]:
        """Return the summary as the ``trials`` object of ``summary.json``."""
        document: dict[str, Any] = {
            "cases": self.cases,
            "trials": self.trials,
            "passed_trials": self.passed_trials,
            "by_k": [m.to_dict() for m in self.by_k],
        }
        if self.stability is not None:
            document["stability"] = dict(self.stability)
        return document

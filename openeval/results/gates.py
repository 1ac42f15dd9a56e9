"""A gate as it is asked for: a metric or check name, the pass rate it must reach, and where
the request came from; and the one parser of the ``NAME=X`` form both commands take.

What the gate found is :class:`openeval.results.summary.Gate` (its figure and verdict), judged
by :meth:`Gate.judge <openeval.results.summary.Gate.judge>` for ``run`` and ``score`` alike
(proposals/0091-one-gate.md).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import NamedTuple

from openeval.errors import SuiteError

GATE_FLAG = "--fail-under-metric"
"""The spelling of the gate flag ``run`` and ``score`` show in their help."""
GATE_FLAG_ALIASES = ("--fail-under-check",)
"""Other spellings both commands accept (``score`` showed this one before they shared one)."""


class GateRule(NamedTuple):
    """One per-name gate as asked for: the pass rate of ``name`` alone must reach ``line``."""

    name: str
    """A metric or check entry name."""
    line: float
    """The lowest pass rate that holds, from 0 to 1."""
    given: str
    """Where it was asked for, quoted in messages: ``--fail-under-metric x=0.9``, or a
    configuration file's ``openeval.toml: gates.x``."""


def parse_gate_values(values: Iterable[tuple[str, str]]) -> list[GateRule]:
    """Return the gate of each ``(flag, "NAME=X")`` pair, in order; the flag is the spelling
    the user typed, kept for the messages.

    Raises SuiteError for a value that is not NAME=X with X from 0 to 1, or a name given twice.
    """
    gates: list[GateRule] = []
    seen: set[str] = set()
    for flag, value in values:
        name, sep, line_text = value.rpartition("=")
        given = f"{flag} {value}"
        try:
            line = float(line_text)
        except ValueError:
            line = math.nan
        if not sep or not name.strip() or not 0.0 <= line <= 1.0:
            raise SuiteError(f"{given}: expected NAME=X, a metric or check name and a pass "
                             "rate X from 0 to 1")
        name = name.strip()
        if name in seen:
            raise SuiteError(f"{given}: a gate on {name!r} is given twice")
        seen.add(name)
        gates.append(GateRule(name, line, given))
    return gates

"""The gate of a run: the command line's lines, which a configuration file may only tighten.

In a pull request ``openeval.toml`` is the author's, the command line (the workflow) is the
repository's. So a configuration's ``fail_under``, ``fail_under_cases`` and ``[gates]`` apply
only where they make the gate stricter than what the command line gives
(proposals/0162-config-gates-only-tighten.md):

- a floor (``fail_under``, ``fail_under_cases``) replaces the default rule "every case
  passes", so a configuration's floor applies only when the command line gave that floor too,
  and then only when it is higher (the higher line wins);
- a per-metric gate only adds a condition, so a configuration's gate applies, and for a name the
  command line also gates the higher line wins.

A line that is not applied becomes a note in the gate's reason (naming the file, line and key),
so every report says it. ``trusted`` (``--trust-config-gates``, the workflow's opt-in) gives the
earlier rule: the command line wins, else the configuration applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openeval.suite.config import Origin, RunSettings

TRUST_FLAG = "--trust-config-gates"


@dataclass(frozen=True)
class MergedGates:
    """The gate lines a run applies, and where each came from."""

    fail_under: float | None
    fail_under_cases: float | None
    lines: dict[str, float]
    """Per-metric gate lines, configuration's first, then the command line's."""
    where: dict[str, str]
    """How a gate's name is shown in an error (``--fail-under-metric x=0.9``, a file's key)."""
    sources: tuple[tuple[str, str], ...]
    """``(fail_under | fail_under_cases | gates.NAME, file:line)`` for lines a file set."""
    notes: tuple[str, ...]
    """One sentence per configuration line not applied."""


def _place(origin: Origin) -> str:
    return str(origin)


def _floor(
    key: str, given: float | None, flag: str, found: tuple[float, Origin] | None, trusted: bool,
    sources: list[tuple[str, str]], notes: list[str],
) -> float | None:
    if found is None:
        return given
    line, origin = found
    if trusted:
        if given is not None:
            return given
        sources.append((key, _place(origin)))
        return line
    if given is not None and line > given:
        sources.append((key, _place(origin)))
        return line
    if given is None:
        looser = f"would replace the default gate (every case passes) with {line:g}"
    elif line == given:
        return given
    else:
        looser = f"is below {flag} {given:g}"
    notes.append(f"{_place(origin)}: {key} {line:g} not applied: it {looser}, and a "
                 f"configuration may only tighten the gate ({TRUST_FLAG} lets it)")
    return given


def merge_gates(
    settings: RunSettings,
    *,
    fail_under: float | None,
    fail_under_cases: float | None,
    gates: Sequence[tuple[str, float, str]],
    trusted: bool = False,
) -> MergedGates:
    """Return the gate of a run whose command line gave ``fail_under``, ``fail_under_cases``
    and ``gates`` (``(name, line, as given)``), under the root configuration's ``settings``."""
    sources: list[tuple[str, str]] = []
    notes: list[str] = []
    floor = _floor("fail_under", fail_under, "--fail-under", settings.fail_under, trusted,
                   sources, notes)
    cases = _floor("fail_under_cases", fail_under_cases, "--fail-under-cases",
                   settings.fail_under_cases, trusted, sources, notes)
    lines: dict[str, float] = {}
    where: dict[str, str] = {}
    from_file: dict[str, float] = {}
    for name, line, origin in settings.gates:
        lines[name], where[name] = line, f"{origin}: gates.{name}"
        from_file[name] = line
        sources.append((f"gates.{name}", _place(origin)))
    for name, line, given in gates:
        filed = from_file.get(name)
        if filed is not None and filed > line and not trusted:
            continue  # the file's stricter line stands
        lines.pop(name, None)  # the command line's gates come after the file's
        lines[name], where[name] = line, given
        sources = [s for s in sources if s[0] != f"gates.{name}"]
    return MergedGates(floor, cases, lines, where, tuple(sources), tuple(notes))

"""Report formats: one module per format, each turning a SuiteResult into text.

A built-in format is a module in this package exposing ``REPORTER`` (an object with ``name``,
``description`` and ``render(suite) -> str``) plus one line in ``_BUILTIN``. Third-party formats
register through the ``openeval.reporters`` entry-point group. ``render`` is pure: no printing,
no clock, so the same suite always gives the same text.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import entry_points
from typing import Protocol

from openeval.errors import SuiteError
from openeval.results import SuiteResult

_BUILTIN: dict[str, str] = {
    "markdown": "openeval.report.markdown",
    "json": "openeval.report.json",
    "junit": "openeval.report.junit",
    "github": "openeval.report.github",
}


class Reporter(Protocol):
    """One output format of ``openeval report``."""

    name: str
    """The ``--format`` value."""
    description: str
    """One line saying what the format is for."""

    def render(self, suite: SuiteResult) -> str:
        """Return the whole report for ``suite`` as text."""
        ...


_extra: dict[str, Reporter] = {}


def register_reporter(reporter: Reporter) -> Reporter:
    """Add ``reporter`` to the registry (replacing one of the same name); return it."""
    _extra[reporter.name] = reporter
    return reporter


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="openeval.reporters")}


def format_names() -> list[str]:
    """Return every report format name: built-ins first, then registered ones."""
    names = list(_BUILTIN)
    names += [n for n in (*_entry_points(), *_extra) if n not in names]
    return names


def get_reporter(name: str) -> Reporter:
    """Return the reporter called ``name``; raise SuiteError listing the valid names."""
    if name in _extra:
        return _extra[name]
    if name in _BUILTIN:
        reporter: Reporter = import_module(_BUILTIN[name]).REPORTER
        return reporter
    third_party = _entry_points()
    if name in third_party:
        module_name, _, attr = third_party[name].partition(":")
        found: Reporter = getattr(import_module(module_name), attr or "REPORTER")
        return found
    valid = ", ".join(format_names())
    raise SuiteError(f"unknown report format {name!r}; expected one of: {valid}")


def render(suite: SuiteResult, format: str) -> str:
    """Return ``suite`` rendered in ``format``."""
    return get_reporter(format).render(suite)


__all__ = ["Reporter", "format_names", "get_reporter", "register_reporter", "render"]

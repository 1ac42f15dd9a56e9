"""Report formats: one module per format, each turning a SuiteResult into text.

A built-in format is a module in this package exposing ``REPORTER`` (an object with ``name``,
``description`` and ``render(suite) -> str``) plus one line in :data:`BUILTIN_REPORTERS`.
Third-party formats register through the ``openeval.reporters`` entry-point group (or
:func:`register_reporter` at run time). ``render`` is pure: no printing, no clock, so the same
suite always gives the same text. The registry is the shared :class:`openeval.registry.Registry`.
"""

from __future__ import annotations

from typing import Any, Protocol

from openeval.errors import OpenEvalError, SuiteError
from openeval.registry import Registry
from openeval.results.records import SuiteResult

BUILTIN_REPORTERS: dict[str, str] = {
    "markdown": "openeval.report.markdown:REPORTER",
    "json": "openeval.report.json:REPORTER",
    "junit": "openeval.report.junit:REPORTER",
    "github": "openeval.report.github:REPORTER",
    "html": "openeval.report.html:REPORTER",
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


REPORTERS: Registry[Any] = Registry(
    "report format", "openeval.reporters", BUILTIN_REPORTERS, module_attr="REPORTER"
)


def register_reporter(reporter: Reporter) -> Reporter:
    """Add ``reporter`` to the registry under its name (replacing one of that name); return
    it."""
    REPORTERS.register(reporter.name, reporter, replace=True)
    return reporter


def format_names() -> list[str]:
    """Return every report format name: built-ins first, then registered ones."""
    return REPORTERS.names()


def get_reporter(name: str) -> Reporter:
    """Return the reporter called ``name``; raise SuiteError listing the valid names."""
    try:
        reporter: Reporter = REPORTERS.get(name)
    except OpenEvalError as exc:
        raise SuiteError(exc.message) from None
    return reporter


def render(suite: SuiteResult, format: str) -> str:
    """Return ``suite`` rendered in ``format``."""
    return get_reporter(format).render(suite)


__all__ = [
    "BUILTIN_REPORTERS",
    "REPORTERS",
    "Reporter",
    "format_names",
    "get_reporter",
    "register_reporter",
    "render",
]

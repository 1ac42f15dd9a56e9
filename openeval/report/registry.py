"""The reporter registries: every format a run's result, or a comparison of two runs, renders in.

The recipe every kind of entry follows (proposals/0110-one-registry-recipe.md): a built-in is
one line in a ``BUILTIN`` table naming ``module:attr``, imported on first use; a reporter added
at run time goes through ``register``; third-party reporters come from an entry-point group (the
entry point names the reporter object, or a module holding it). ``get`` and ``names`` read all
three. Two kinds of reporter live here, one registry each:

- a :class:`Reporter` renders a :class:`SuiteResult` (``openeval report --format``, ``run
  --html``): :data:`BUILTIN`, :func:`register`, :func:`get`, :func:`names`, entry-point group
  ``openeval.reporters``, module attribute ``REPORTER``;
- a :class:`DiffReporter` renders a :class:`ResultDiff` (``openeval diff --format``, ``run
  --baseline-report``): :data:`BUILTIN_DIFF`, :func:`register_diff`, :func:`get_diff`,
  :func:`diff_names`, group ``openeval.diff_reporters``, module attribute ``DIFF_REPORTER``.

Rendering is pure: no printing, no clock, so the same input always gives the same text.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from openeval.errors import OpenEvalError, SuiteError
from openeval.registry import Registry

if TYPE_CHECKING:
    from openeval.results.diff import ResultDiff
    from openeval.results.records import SuiteResult

BUILTIN: dict[str, str] = {
    "markdown": "openeval.report.markdown:REPORTER",
    "json": "openeval.report.json:REPORTER",
    "junit": "openeval.report.junit:REPORTER",
    "github": "openeval.report.github:REPORTER",
    "html": "openeval.report.html:REPORTER",
}
"""Built-in report formats, in the order ``names()`` lists them; one line adds a format."""

BUILTIN_DIFF: dict[str, str] = {
    "markdown": "openeval.report.diff:MARKDOWN",
    "json": "openeval.report.diff:JSON",
    "github": "openeval.report.diff:GITHUB",
}
"""Built-in comparison formats, in the order ``diff_names()`` lists them."""


class Reporter(Protocol):
    """One output format of ``openeval report``."""

    name: str
    """The ``--format`` value."""
    description: str
    """One line saying what the format is for."""

    def render(self, suite: SuiteResult) -> str:
        """Return the whole report for ``suite`` as text."""
        ...


class DiffReporter(Protocol):
    """One output format of ``openeval diff`` (and of ``run --baseline-report``)."""

    name: str
    """The ``--format`` value."""
    description: str
    """One line saying what the format is for."""

    def render(
        self, diff: ResultDiff, *, base: str | None, head: str | None, failing: bool
    ) -> str:
        """Return the comparison as text; ``base`` and ``head`` name the two result folders
        (None when unknown), ``failing`` says whether a regression fails the step."""
        ...


REGISTRY: Registry[Any] = Registry(
    "report format", "openeval.reporters", BUILTIN, module_attr="REPORTER"
)
DIFF_REGISTRY: Registry[Any] = Registry(
    "comparison format", "openeval.diff_reporters", BUILTIN_DIFF, module_attr="DIFF_REPORTER"
)


def _found(registry: Registry[Any], name: str) -> Any:
    try:
        return registry.get(name)
    except OpenEvalError as exc:
        raise SuiteError(exc.message) from None


def register(reporter: Reporter) -> Reporter:
    """Add ``reporter`` under its name (replacing one of that name); return it unchanged."""
    REGISTRY.register(reporter.name, reporter, replace=True)
    return reporter


def get(name: str) -> Reporter:
    """Return the reporter called ``name``; raise SuiteError listing the valid names."""
    reporter: Reporter = _found(REGISTRY, name)
    return reporter


def names() -> list[str]:
    """Return every report format name: built-ins first, then registered ones."""
    return REGISTRY.names()


def register_diff(reporter: DiffReporter) -> DiffReporter:
    """Add the comparison format ``reporter`` under its name (replacing one of that name)."""
    DIFF_REGISTRY.register(reporter.name, reporter, replace=True)
    return reporter


def get_diff(name: str) -> DiffReporter:
    """Return the comparison format called ``name``; raise SuiteError listing the valid ones."""
    reporter: DiffReporter = _found(DIFF_REGISTRY, name)
    return reporter


def diff_names() -> list[str]:
    """Return every comparison format name: built-ins first, then registered ones."""
    return DIFF_REGISTRY.names()


BUILTIN_REPORTERS = BUILTIN
REPORTERS = REGISTRY
register_reporter = register
get_reporter = get
format_names = names


def render(suite: SuiteResult, format: str) -> str:
    """Return ``suite`` rendered in ``format``."""
    return get(format).render(suite)


def render_diff(diff: ResultDiff, format: str, *, base: str | None = None,
                head: str | None = None, failing: bool = True) -> str:
    """Return the comparison ``diff`` rendered in ``format``."""
    return get_diff(format).render(diff, base=base, head=head, failing=failing)

"""The exceptions OpenEval raises for bad input.

Every error a user can cause is an :class:`OpenEvalError` (and so is a run that could not
finish, which the gate must see as a failure, never as a crash); the CLI prints its message on
one line and exits, never with a traceback. Anything else that escapes is a bug in OpenEval.

::

    OpenEvalError                 bad input of any kind; .source names the file, .location where
    ├── TestCaseError             a test case file that cannot be read or does not fit the schema
    ├── TraceFormatError          a trace file that no adapter can read, or that breaks its format
    │   └── MissingDependencyError  an adapter needs an optional package that is not installed
    ├── ResultFileError           a result file (``openeval report`` input) that is malformed
    ├── SuiteError                a suite folder that holds no case, or a usage mistake
    └── RunAborted                a run that could not finish (a worker process died)

Two more live beside the code that raises them: ``CodeCheckError``
(:mod:`openeval.code_checks.types`, a code check that gave no verdict) and ``RegexGaveUp``
(:mod:`openeval.matching.regex_budget`, a user's pattern that used up its CPU budget).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pathlib costs a few ms of `openeval --help`; only annotations need it
    from pathlib import Path


class OpenEvalError(Exception):
    """Bad input, reported as ``source: location: message``.

    ``source`` is the file the problem is in (None when no file is involved) and ``location``
    the place inside it: ``line 12`` or a JSON path such as ``steps[3].tool_args``.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | Path | None = None,
        location: str | None = None,
    ) -> None:
        self.message = message
        self.source = str(source) if source is not None else None
        self.location = location
        super().__init__(self.__str__())

    def __str__(self) -> str:
        parts = [p for p in (self.source, self.location) if p]
        parts.append(self.message)
        return ": ".join(parts)

    def __reduce__(self) -> tuple[object, ...]:
        # Keyword-only arguments do not survive pickling by default; a process pool needs them.
        return (_rebuild, (type(self), self.message, self.source, self.location))


def _rebuild(
    cls: type[OpenEvalError], message: str, source: str | None, location: str | None
) -> OpenEvalError:
    return cls(message, source=source, location=location)


class TestCaseError(OpenEvalError):
    """A test case file that cannot be read, or that does not fit the test case schema."""

    __test__ = False  # not a pytest test class, despite the name


class TraceFormatError(OpenEvalError):
    """A trace file that no adapter recognises, or that breaks the format it claims."""


class MissingDependencyError(TraceFormatError):
    """An adapter needs an optional package; the message names the extra that installs it."""


class ResultFileError(OpenEvalError):
    """A result file given to ``openeval report`` that is malformed or missing."""


class SuiteError(OpenEvalError):
    """A suite folder that holds no case, or options that do not fit together."""


class RunAborted(OpenEvalError):
    """A run that stopped before every case was scored: a worker process died (killed by the
    OOM killer or a signal). No result of that run may be read as a verdict."""

"""The types a user's check file works with, and the error its mistakes become.

A code check is a plain function (or the ``evaluate`` staticmethod of a class ``Check``) that
declares, by parameter name, the inputs it wants out of :data:`INPUTS`, and returns one of the
shapes :func:`openeval.code_checks.call.as_scores` reads: a bool, a number, a
:class:`CheckResponse`, a ``(value, explanation)`` tuple, a :class:`~openeval.scores.Score` or
:class:`~openeval.scores.Scores`. Design: proposals/0070-code-checks-and-pytest.md.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any, Literal, get_args

from openeval.errors import OpenEvalError

InputName = Literal[
    "model_output",
    "scenario_input",
    "scenario_result",
    "metadata",
    "model_input",
    "trace",
    "steps",
    "tool_calls",
    "test_case",
    "params",
    "scores",
]
"""A parameter name a code check may declare; every other name is refused when it loads."""

INPUTS: tuple[str, ...] = get_args(InputName)
"""Every input a code check may ask for, in the order the docs list them."""


@dataclass(frozen=True)
class CheckResponse:
    """What a code check returns when a verdict needs words beside it.

    ``score`` True/False is a BOOLEAN verdict; a number is a NUMERIC score, judged against the
    check entry's ``threshold`` (not evaluated without one). ``explanation`` becomes the
    score's comment and the result's details.
    """

    score: bool | int | float
    """The verdict (True or False) or the measured number."""
    explanation: str | None = None
    """Why, in one line; None when there is nothing to add."""
    metadata: dict[str, Any] | None = None
    """Anything else the check measured (tokens, latency ...). Kept on the returned object for
    the check's own callers; result files have no place for it yet."""


class CodeBasedCheck(ABC):
    """An optional base class for a check written as a class ``Check``.

    Subclassing it is not required: any class called ``Check`` whose ``evaluate`` is a
    staticmethod works. ``evaluate`` may declare any subset of :data:`INPUTS`.
    """

    @staticmethod
    @abstractmethod
    def evaluate(*args: Any, **kwargs: Any) -> Any:
        """Return the verdict of this check on one case (see the module docstring)."""


class CodeCheckError(OpenEvalError):
    """A code check that could not give a verdict: its file does not load, it names an input
    that does not exist, it raised, ran past its time limit or returned something that is not
    a verdict. ``source`` is ``file:line`` in the user's code."""


def code_error(message: str, file: str, line: int | None) -> CodeCheckError:
    """Return a CodeCheckError printed as ``file:line: message`` (``file: message`` without
    a line), the form editors and CI logs make clickable."""
    return CodeCheckError(message, source=f"{file}:{line}" if line else file)

"""Options that several commands take, defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

_F = TypeVar("_F", bound=Callable[..., Any])

trace_format = click.option(
    "--format", "trace_format", metavar="NAME",
    help="Read traces with this adapter instead of detecting their format.",
)
"""``--format NAME``: force a trace adapter."""

trace_argument = click.argument("trace_path", metavar="TRACE", type=click.Path(path_type=Path))
"""The ``TRACE`` argument of the trace commands."""


def read_limits(function: _F) -> _F:
    """Add ``--agent-spec``, ``--max-decompressed-bytes`` and ``--max-line-bytes``."""
    for option in reversed((
        click.option("--agent-spec", metavar="MODULE:ATTR",
                     help="The current agent, to compute Fixtura drift verdicts."),
        click.option("--max-decompressed-bytes", type=click.IntRange(min=1),
                     help="Largest decompressed size accepted from a compressed trace."),
        click.option("--max-line-bytes", type=click.IntRange(min=1),
                     help="Longest line accepted in a JSON Lines trace."),
    )):
        function = option(function)
    return function


def load_options(
    agent_spec: str | None,
    max_decompressed_bytes: int | None,
    max_line_bytes: int | None,
    allow_code: bool = False,
    allow_code_modules: tuple[str, ...] = (),
) -> Any:
    """Return the LoadOptions that the :func:`read_limits` and :func:`code_options` flags ask
    for."""
    from openeval.adapters.base import LoadOptions
    from openeval.trust import CodePolicy

    defaults = LoadOptions()
    return LoadOptions(
        agent_spec=agent_spec,
        max_decompressed_bytes=max_decompressed_bytes or defaults.max_decompressed_bytes,
        max_line_bytes=max_line_bytes or defaults.max_line_bytes,
        code=CodePolicy(files=allow_code, modules=allow_code_modules),
    )


def code_options(function: _F) -> _F:
    """Add ``--allow-code`` and ``--allow-code-module`` (openeval/trust.py): the opt-in no
    file of a pull request can give."""
    for option in reversed((
        click.option("--allow-code", is_flag=True,
                     help="Run the check files that check entries name (only files inside the "
                          "suite folder). Without it a code check is a test case error."),
        click.option("--allow-code-module", "allow_code_modules", multiple=True,
                     metavar="MODULE",
                     help="Let check entries and test cases' agent_spec import this module "
                          "and its submodules. Repeatable."),
    )):
        function = option(function)
    return function


def gate_options(function: _F) -> _F:
    """Add ``--fail-under-metric``, ``--fail-under-cases``, ``--trials-rule`` and
    ``--trust-config-gates``."""
    for option in reversed((
        click.option("--fail-under-metric", "fail_under_metric", multiple=True,
                     metavar="NAME=X",
                     help="Also gate on one metric or check alone: its pass rate must reach X "
                          "(0-1). Repeatable; [gates] in openeval.toml may only raise it."),
        click.option("--fail-under-cases", type=click.FloatRange(0.0, 1.0),
                     help="Pass the gate when the share of cases that passed is at least this "
                          "(0-1), even if some failed. An errored case still fails it."),
        click.option("--trials-rule", metavar="RULE",
                     help="How a case with several trials passes: all (default), majority, or "
                          "pass_at_k=K. Wins over [trials] rule in openeval.toml."),
        click.option("--trust-config-gates", is_flag=True,
                     help="Let openeval.toml's fail_under, fail_under_cases and [gates] loosen "
                          "the gate the command line gives (by default they may only tighten "
                          "it)."),
    )):
        function = option(function)
    return function


tolerance = click.option(
    "--tolerance", type=click.FloatRange(0.0, 1.0), default=0.05, show_default=True,
    help="How far a score may drop, with its verdict unchanged, before it counts as worse.",
)
"""``--tolerance X``: the score drop allowed by a baseline comparison."""

allow_regressions = click.option(
    "--allow-regressions", is_flag=True,
    help="Report what got worse than the baseline without failing (exit 0 for it).",
)
"""``--allow-regressions``: a baseline comparison only reports."""


def baseline_options(function: _F) -> _F:
    """Add ``--baseline``, ``--baseline-report``, ``--tolerance`` and ``--allow-regressions``."""
    for option in reversed((
        click.option("--baseline", "baseline_dir", type=click.Path(path_type=Path),
                     help="Results folder of an earlier run (e.g. main's): after the summary, "
                          "say what got worse, and fail when anything did."),
        click.option("--baseline-report", "baseline_reports", multiple=True,
                     metavar="FORMAT[=PATH]",
                     help="Also render the comparison with --baseline in FORMAT (markdown, "
                          "json, github), into PATH or onto stdout. Repeatable."),
        tolerance,
        allow_regressions,
    )):
        function = option(function)
    return function

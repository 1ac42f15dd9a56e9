"""Every option that several commands take, defined once; a command stacks the ones it needs.

Where one old spelling meant different things in different commands, each meaning has its own
name and the old spelling stays an alias, so no command line breaks: ``--trace-format`` (the
adapter that reads a trace), ``--report-format``, ``--diff-format`` and ``--output-format``
all still answer to ``--format``; ``--output-dir`` (a folder of result files) and
``--output-file`` (one file) still answer to ``--output``.

Options that belong together reach the command as one value built from them (see
:func:`grouped`): the read limits as one ``LoadOptions`` (``load``), the per-name gates as a
list of :class:`~openeval.results.gates.GateRule` (``gates``), a baseline comparison as one
:class:`Baseline` (``baseline``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.results.diff import BaselinePolicy
    from openeval.results.gates import GateRule

_F = TypeVar("_F", bound=Callable[..., Any])
Flag = Callable[[_F], _F]


def grouped(
    name: str, build: Callable[..., Any], *flags: Callable[[Any], Any]
) -> Callable[[_F], _F]:
    """Add ``flags`` to a command, which receives one argument ``name`` instead of theirs:
    ``build`` called with their values as keywords (when the command runs, so an error it
    raises is the command's)."""

    def decorate(function: _F) -> _F:
        before = len(getattr(function, "__click_params__", ()))

        @functools.wraps(function)
        def command(*args: Any, **kwargs: Any) -> Any:
            values = {key: kwargs.pop(key) for key in keys}
            kwargs[name] = build(**values)
            return function(*args, **kwargs)

        decorated: Any = command
        for flag in reversed(flags):
            decorated = flag(decorated)
        keys = [param.name for param in decorated.__click_params__[before:]]
        return decorated  # type: ignore[no-any-return]

    return decorate


# -- reading traces ------------------------------------------------------------------------

trace_format = click.option(
    "--trace-format", "--format", "trace_format", metavar="NAME",
    help="Read traces with this adapter instead of detecting their format.",
)
"""``--trace-format NAME`` (alias ``--format``): force a trace adapter."""

trace_argument = click.argument("trace_path", metavar="TRACE", type=click.Path(path_type=Path))
"""The ``TRACE`` argument of the trace commands."""


def load_options(
    agent_spec: str | None,
    max_decompressed_bytes: int | None,
    max_line_bytes: int | None,
    max_json_values: int | None = None,
    allow_code: bool = False,
    allow_code_modules: tuple[str, ...] = (),
) -> LoadOptions:
    """Return the LoadOptions that the :data:`read_limits` flags (and, for ``run`` and
    ``score``, the :data:`read_limits_and_code` flags) ask for."""
    from openeval.adapters.base import LoadOptions
    from openeval.trust import CodePolicy

    defaults = LoadOptions()
    return LoadOptions(
        agent_spec=agent_spec,
        max_decompressed_bytes=max_decompressed_bytes or defaults.max_decompressed_bytes,
        max_line_bytes=max_line_bytes or defaults.max_line_bytes,
        max_json_values=max_json_values or defaults.max_json_values,
        code=CodePolicy(files=allow_code, modules=allow_code_modules),
    )


_LIMIT_FLAGS = (
    click.option("--agent-spec", metavar="MODULE:ATTR",
                 help="The current agent, to compute Fixtura drift verdicts."),
    click.option("--max-decompressed-bytes", type=click.IntRange(min=1),
                 help="Largest decompressed size accepted from a compressed trace."),
    click.option("--max-line-bytes", type=click.IntRange(min=1),
                 help="Longest line accepted in a JSON Lines trace."),
    click.option("--max-json-values", type=click.IntRange(min=1),
                 help="Most JSON values accepted in one trace document or line."),
)

_CODE_FLAGS = (
    click.option("--allow-code", is_flag=True,
                 help="Run the check files that check entries name (only files inside the "
                      "suite folder). Without it a code check is a test case error."),
    click.option("--allow-code-module", "allow_code_modules", multiple=True, metavar="MODULE",
                 help="Let check entries and test cases' agent_spec import this module and its "
                      "submodules. Repeatable."),
)

read_limits = grouped("load", load_options, *_LIMIT_FLAGS)
"""``--agent-spec``, ``--max-decompressed-bytes``, ``--max-line-bytes``, ``--max-json-values``:
the command receives ``load``, one LoadOptions."""

read_limits_and_code = grouped("load", load_options, *_LIMIT_FLAGS, *_CODE_FLAGS)
""":data:`read_limits` and ``--allow-code`` / ``--allow-code-module`` (openeval/trust.py), the
opt-in no file of a pull request can give: the command receives ``load``, one LoadOptions
whose ``code`` policy says what user code may run."""

trust_config_gates = click.option(
    "--trust-config-gates", is_flag=True,
    help="Let openeval.toml's fail_under, fail_under_cases and [gates] loosen the gate the "
         "command line gives (by default they may only tighten it).")
"""``--trust-config-gates``: the workflow's opt-in letting a configuration loosen the gate."""


# -- what a command writes -----------------------------------------------------------------


def output_dir(what: str) -> Flag[Any]:
    """``--output-dir DIR`` (alias ``--output``): the folder the command writes ``what`` into;
    the command receives ``output_dir``."""
    return click.option("--output-dir", "--output", "output_dir",
                        type=click.Path(path_type=Path), metavar="DIR",
                        help=f"Write {what} into this folder.")


def output_file(what: str, *, required: bool = False, short: bool = False) -> Flag[Any]:
    """``--output-file FILE`` (alias ``--output``, and ``-o`` where the command had it): the
    file the command writes ``what`` into; the command receives ``output_path``."""
    names = ("--output-file", "--output", *(("-o",) if short else ()))
    return click.option(*names, "output_path", type=click.Path(path_type=Path),
                        metavar="FILE", required=required, help=what)


quiet = click.option("--quiet", "-q", is_flag=True, help="Print only the summary line.")
"""``--quiet`` / ``-q``: print only the summary line."""


# -- gates and baselines -------------------------------------------------------------------

GATE_HELP = ("Also gate on one metric or check alone: its pass rate must reach X (0-1). "
             "Repeatable.")


def _gate_rules(fail_under_metric: tuple[str, ...], fail_under_check: tuple[str, ...]
                ) -> list[GateRule]:
    from openeval.results.gates import GATE_FLAG, GATE_FLAG_ALIASES, parse_gate_values

    given = [(GATE_FLAG, value) for value in fail_under_metric]
    given += [(GATE_FLAG_ALIASES[0], value) for value in fail_under_check]
    return parse_gate_values(given)


def gate_flags(more_help: str = "") -> Flag[Any]:
    """``--fail-under-metric NAME=X`` (repeatable; ``--fail-under-check`` is a hidden alias):
    the command receives ``gates``, a list of GateRule keeping the spelling typed."""
    return grouped(
        "gates", _gate_rules,
        click.option("--fail-under-metric", "fail_under_metric", multiple=True,
                     metavar="NAME=X", help=f"{GATE_HELP} {more_help}".strip()),
        click.option("--fail-under-check", "fail_under_check", multiple=True,
                     metavar="NAME=X", hidden=True),
    )


fail_under_cases = click.option(
    "--fail-under-cases", type=click.FloatRange(0.0, 1.0),
    help="Pass the gate when the share of cases that passed is at least this (0-1), even if "
         "some failed. An errored case still fails it.")
"""``--fail-under-cases X``: the case pass-rate floor."""

trials_rule = click.option(
    "--trials-rule", metavar="RULE",
    help="How a case with several trials passes: all (default), majority, or pass_at_k=K. "
         "Wins over [trials] rule in openeval.toml.")
"""``--trials-rule RULE``: how a case with trials passes."""

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

allow_removed = click.option(
    "--allow-removed", is_flag=True,
    help="Accept cases of the baseline that this run no longer has (by default a case that "
         "disappeared fails the comparison: deleting a failing case is not a fix).",
)
"""``--allow-removed``: a case that disappeared from the baseline does not fail."""

fail_on_new_flaky = click.option(
    "--fail-on-new-flaky", is_flag=True,
    help="Also fail when a case is newly flaky: its trials disagree, or its verdict flipped "
         "twice over --history, the baseline and this run, and it was not flaky before.",
)
"""``--fail-on-new-flaky``: a case that became flaky fails the comparison."""

history = click.option(
    "--history", "history_dirs", multiple=True, type=click.Path(path_type=Path),
    metavar="DIR",
    help="Results folder of a run before the baseline, newest first; repeat for more. Used "
         "only to tell flaky cases (a verdict that flips back and forth).",
)
"""``--history DIR`` (repeatable, newest first): earlier runs, for flaky verdicts."""


def baseline_policy(allow_regressions: bool, allow_removed: bool, fail_on_new_flaky: bool
                    ) -> Any:
    """Return the :class:`~openeval.results.diff.BaselinePolicy` the flags ask for."""
    from openeval.results.diff import BaselinePolicy

    return BaselinePolicy(allow_regressions, allow_removed, fail_on_new_flaky)


@dataclass(frozen=True)
class Baseline:
    """What the baseline flags ask for."""

    folder: Path | None
    """``--baseline DIR``; None: no comparison."""
    reports: tuple[str, ...]
    """The ``--baseline-report FORMAT[=PATH]`` values, as given."""
    tolerance: float
    policy: BaselinePolicy
    """What fails the comparison (``--allow-regressions``, ``--allow-removed``,
    ``--fail-on-new-flaky``)."""
    history: tuple[Path, ...] = ()
    """The ``--history DIR`` folders, newest first."""


def _baseline(baseline_dir: Path | None, baseline_reports: tuple[str, ...], tolerance: float,
              allow_regressions: bool, allow_removed: bool, fail_on_new_flaky: bool,
              history_dirs: tuple[Path, ...]) -> Baseline:
    return Baseline(baseline_dir, baseline_reports, tolerance,
                    baseline_policy(allow_regressions, allow_removed, fail_on_new_flaky),
                    history_dirs)


baseline_options = grouped(
    "baseline", _baseline,
    click.option("--baseline", "baseline_dir", type=click.Path(path_type=Path),
                 help="Results folder of an earlier run (e.g. main's): after the summary, "
                      "say what got worse, and fail when anything did."),
    click.option("--baseline-report", "baseline_reports", multiple=True,
                 metavar="FORMAT[=PATH]",
                 help="Also render the comparison with --baseline in FORMAT (markdown, "
                      "json, github), into PATH or onto stdout. Repeatable."),
    tolerance,
    allow_regressions,
    allow_removed,
    fail_on_new_flaky,
    history,
)
"""``--baseline``, ``--baseline-report``, ``--tolerance``, ``--allow-regressions``,
``--allow-removed``, ``--fail-on-new-flaky``, ``--history``: the command receives
``baseline``, one :class:`Baseline`."""

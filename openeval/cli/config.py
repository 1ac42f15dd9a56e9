"""``openeval config --suite DIR [CASE]``: the settings a run would use, and where each is from.

Without CASE it lists the suite's configuration files and the run settings (``fail_under``,
``fail_under_cases``, gates), including the ones of nested files that a run of this folder
ignores. With CASE (a case id as reports show it, or the path of its test case file or folder)
it adds that case's effective settings: metrics, each pass line, trajectory settings, check
entries, limits and the trials rule, each with the file and line, the test case, or the
default it came from.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from openeval.cli._common import command
from openeval.errors import SuiteError, TestCaseError
from openeval.printable import printable

if TYPE_CHECKING:
    from openeval.suite.config import Origin, Setting, SuiteConfig
    from openeval.suite.discover import CaseSpec

_WIDEST = 56


def _find_case(specs: list[CaseSpec], wanted: str, suite_dir: Path) -> CaseSpec:
    """Return the case ``wanted`` names: its id, or its test case file or folder."""
    for spec in specs:
        if spec.case_id == wanted:
            return spec
    candidates = {os.path.realpath(p) for p in (wanted, suite_dir / wanted) if os.path.exists(p)}
    for spec in specs:
        own = {os.path.realpath(spec.testcase_path), os.path.realpath(spec.testcase_path.parent)}
        if candidates & own:
            return spec
    shown = ", ".join(s.case_id for s in specs[:5])
    more = f" and {len(specs) - 5} more" if len(specs) > 5 else ""
    raise SuiteError(f"no case {wanted!r} in the suite; its cases are: {shown}{more}",
                     source=suite_dir)


def _lines(settings: list[Setting]) -> list[str]:
    from openeval.jsonio import dump_json_compact

    cells = [
        (("(ignored) " if not s.applied else "") + f"{s.key} = {dump_json_compact(s.value)}",
         str(_shown_origin(s.origin)))
        for s in settings
    ]
    width = min(_WIDEST, max((len(left) for left, _ in cells), default=0))
    return [printable(f"  {left.ljust(width)}  {right}") for left, right in cells]


def _shown(path: Path | str) -> str:
    """A path as the rest of OpenEval shows it: its bytes read as UTF-8 whatever the locale."""
    from openeval.suite.discover import display_path

    return display_path(path)


def _shown_origin(origin: Origin) -> Origin:
    if origin.kind in ("config", "case"):  # a file; an option or a default is plain text
        return replace(origin, source=_shown(origin.source))
    return origin


def _setting_dict(setting: Setting) -> dict[str, Any]:
    return {**setting.to_dict(), "origin": _shown_origin(setting.origin).to_dict()}


def _files(config: SuiteConfig) -> list[str]:
    return [_shown(file) for file in config.files]


def _text(config: SuiteConfig, run: list[Setting], case: tuple[CaseSpec, list[Setting]] | None
          ) -> list[str]:
    lines = [f"suite: {_shown(config.root)}",
             "config files: " + (", ".join(_files(config)) or "none"), "", "run settings:"]
    lines += _lines(run) or ["  none (every case must pass; no per-metric gate)"]
    if any(not s.applied for s in run):
        lines.append("  (ignored: a nested file's run settings apply only when its folder is "
                     "run as the suite)")
    if case is not None:
        spec, settings = case
        lines += ["", f"case {spec.case_id} ({_shown(spec.testcase_path)}):",
                  *_lines(settings)]
    return [printable(line) for line in lines]


@command()
@click.option("--suite", "suite_dir", required=True, type=click.Path(path_type=Path),
              help="The suite folder, as given to `openeval run --suite`.")
@click.argument("case_name", metavar="[CASE]", required=False)
@click.option("--output-format", "--format", "output_format",
              type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text to read, json for tools.")
def config(suite_dir: Path, case_name: str | None, output_format: str) -> None:
    """Print the settings a run of the suite uses, and where each came from.

    Exit 0 when printed, 2 when the suite, a configuration file or the case cannot be read.
    """
    from openeval.jsonio import dump_json, read_json_file
    from openeval.suite.config import case_setting_list, load_suite_config, run_setting_list
    from openeval.suite.discover import discover
    from openeval.suite.evaluate import RunPlan, read_case

    specs = discover(suite_dir)
    suite_config = load_suite_config(suite_dir)
    if case_name is None and suite_config.problems:
        raise next(iter(sorted(suite_config.problems.items())))[1]
    if "" in suite_config.problems:
        raise suite_config.problems[""]
    run_settings = run_setting_list(suite_config)
    case = None
    if case_name is not None:
        spec = _find_case(specs, case_name, suite_dir)
        document = read_json_file(spec.testcase_path, error=TestCaseError, unique_keys=True)
        found = read_case(spec.testcase_path, RunPlan.of(config=suite_config))
        case = (spec, case_setting_list(
            document, found.merged, found.plan.checks, found.trials_rule,
            testcase_path=spec.testcase_path,
        ))
    if output_format == "json":
        document_out = {
            "suite": _shown(suite_config.root),
            "files": _files(suite_config),
            "run": [_setting_dict(s) for s in run_settings],
            "case": None if case is None else {
                "case_id": case[0].case_id, "testcase": _shown(case[0].testcase_path),
                "settings": [_setting_dict(s) for s in case[1]],
            },
        }
        click.echo(dump_json(document_out), nl=False)  # UTF-8 bytes, as files are, in any locale
        return
    for line in _text(suite_config, run_settings, case):
        click.echo(line)

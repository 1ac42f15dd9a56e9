"""The group lists its commands without importing them, exactly as the commands would."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from openeval.cli import COMMANDS, GROUP_HELP, main


def _real(name: str) -> click.Command:
    command = getattr(importlib.import_module(COMMANDS[name][0]), name)
    assert isinstance(command, click.Command)
    return command


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_the_listing_shows_what_the_command_itself_would(name: str) -> None:
    real = _real(name)
    stand_in = click.Command(name, help=COMMANDS[name][1])
    assert real.name == name
    assert (real.hidden, real.deprecated, real.short_help) == (False, False, None)
    for limit in range(20, 200, 7):
        assert stand_in.get_short_help_str(limit) == real.get_short_help_str(limit), limit


def test_the_group_help_is_that_of_the_loaded_commands() -> None:
    lazy = CliRunner().invoke(main, ["--help"], prog_name="openeval", terminal_width=100).output
    eager = click.Group("openeval", help=main.help, params=main.params,
                        context_settings=main.context_settings)
    for name in sorted(COMMANDS):
        eager.add_command(_real(name), name)
    assert lazy == CliRunner().invoke(eager, ["--help"], prog_name="openeval",
                                      terminal_width=100).output
    assert "snapshot  Draft a test case" in lazy


_LOADED = ("import sys\nfrom openeval.cli import main\n"
           "try:\n    main(['--help'], prog_name='openeval')\n"
           "except SystemExit:\n    pass\n"
           "print(sorted(m for m in sys.modules if m.startswith(('openeval.cli.', 'click'))))\n")


@pytest.mark.parametrize(("columns", "loaded"), [
    ("80", []),  # the page at full width: printed without click
    ("200", []),
    ("60", ["click", "openeval.cli.exit_codes", "openeval.cli.group"]),  # click lays it out
])
def test_help_imports_no_command_module(columns: str, loaded: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True,
                          check=False, env={**os.environ, "COLUMNS": columns})
    assert done.returncode == 0, done.stderr
    shown = [m for m in ast.literal_eval(done.stdout.strip().splitlines()[-1])
             if m == "click" or not m.startswith("click")]
    assert shown == loaded


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_the_page_printed_without_click_is_clicks_own(flag: str) -> None:
    clicks = CliRunner().invoke(main, [flag], prog_name="openeval", terminal_width=78)
    assert clicks.exit_code == 0
    assert clicks.output == GROUP_HELP
    done = subprocess.run([sys.executable, "-m", "openeval", flag], capture_output=True,
                          text=True, check=False, env={**os.environ, "COLUMNS": "120"})
    assert (done.returncode, done.stdout, done.stderr) == (0, GROUP_HELP, "")


def test_a_command_runs_once_asked_for() -> None:
    done = CliRunner().invoke(main, ["run", "--help"])
    assert done.exit_code == 0
    assert "--suite" in done.output

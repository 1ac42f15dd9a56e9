"""The group lists its commands without importing them, exactly as the commands would."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from openeval.cli import COMMANDS, main


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


def test_help_imports_no_command_module() -> None:
    script = ("import sys\nfrom openeval.cli import main\ntry:\n    main(['--help'])\n"
              "except SystemExit:\n    pass\n"
              "print(sorted(m for m in sys.modules if m.startswith('openeval.cli.')))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "['openeval.cli.exit_codes']"


def test_a_command_runs_once_asked_for() -> None:
    done = CliRunner().invoke(main, ["run", "--help"])
    assert done.exit_code == 0
    assert "--suite" in done.output

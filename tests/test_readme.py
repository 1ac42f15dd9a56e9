"""The README's promises hold: CI runs its exact commands, and its Python examples run.

Blocks fenced as ``python`` must run as written from the repository root; a block that needs
the reader's own agent is fenced as ``py`` and is only shown.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.DOTALL)


def test_ci_runs_the_two_setup_commands_verbatim() -> None:
    section = README.split("## Set up in two commands", 1)[1].split("\n## ", 1)[0]
    commands = [block.strip() for block in re.findall(r"```bash\n(.*?)```", section, re.DOTALL)]
    assert len(commands) == 2
    assert "pytest" in commands[1]
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for command in commands:
        assert command in ci_lines, f".ci/run does not run the README command: {command}"


@pytest.mark.parametrize("index", range(len(_blocks("python"))))
def test_python_examples_run(index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    exec(compile(_blocks("python")[index], f"README.md python block {index + 1}", "exec"), {})

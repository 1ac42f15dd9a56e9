"""The README's promises hold: CI runs its exact commands, and its Python examples run.

Blocks fenced as ``python`` must run as written from the repository root; a block that needs
the reader's own agent is fenced as ``py`` and is only shown.
"""

from __future__ import annotations

import itertools
import re
import shlex
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

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


def _selection(expression: str, marks: set[str], names: list[str]) -> bool:
    # A marker expression of names joined by not/and/or reads as Python over booleans.
    assert re.fullmatch(r"[\w\s()]+", expression), expression
    words = set(re.findall(r"\w+", expression)) - {"not", "and", "or"}
    assert words <= set(names), f"unregistered marker in {expression!r}"
    return bool(eval(expression, {"__builtins__": {}}, {n: n in marks for n in names}))


def test_ci_runs_what_the_readme_test_command_leaves_out() -> None:
    """Every combination of markers runs in exactly one of .ci/run's two pytest calls."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_config = config["tool"]["pytest"]["ini_options"]
    names = [line.split(":", 1)[0] for line in pytest_config["markers"]]
    addopts = shlex.split(pytest_config["addopts"])
    assert "--strict-markers" in addopts
    default = addopts[addopts.index("-m") + 1]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    (marked,) = re.findall(r'^\.venv/bin/python -m pytest -m "([^"]+)"$', script, re.MULTILINE)
    for size in range(len(names) + 1):
        for marks in itertools.combinations(names, size):
            chosen = {_selection(default, set(marks), names), _selection(marked, set(marks), names)}
            assert chosen == {True, False}, f"tests marked {marks or 'nothing'}"
    assert "export OPENEVAL_TEST_PROFILE=ci" in script


def test_no_install_command_fetches_the_old_build_from_the_registry() -> None:
    """The registry's openeval-core is an older, unrelated 0.2.1 build and its openeval another
    project: every install from the registry keeps a 1.0 floor, every uvx names the package."""
    lines = [line for block in re.findall(r"```\w*\n(.*?)```", README, re.DOTALL)
             for line in block.splitlines()]
    installs = [line for line in lines if re.search(r"pip install|uvx|pipx", line)]
    assert installs
    for line in installs:
        if "openeval-core" in line:
            assert "@ git+" in line or '>=1.0"' in line, line
        if "uvx" in line or "pipx run" in line:
            assert re.search(r"(--from|--spec) \"openeval-core>=1\.0\"", line), line

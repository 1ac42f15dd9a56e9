"""Shared options: each meaning has its own name and the old spelling still works; the gate
flag has one spelling and one hidden alias in ``run`` and ``score``; one error-to-exit rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from openeval.cli import main

ROOT = Path(__file__).resolve().parents[2]
SUITE = str(ROOT / "examples" / "simple_agent")
TRACE = str(ROOT / "examples" / "simple_agent" / "trace.json")

# (id, old spelling, new spelling); "{out}" is a fresh path per invocation, "{results}" the
# results folder of a run of SUITE.
ALIASES = [
    ("run-trace-format", ["run", "--suite", SUITE, "--format", "native"],
     ["run", "--suite", SUITE, "--trace-format", "native"]),
    ("run-output-folder", ["run", "--suite", SUITE, "--output", "{out}"],
     ["run", "--suite", SUITE, "--output-dir", "{out}"]),
    ("score-output-folder", ["score", TRACE, "--output", "{out}"],
     ["score", TRACE, "--output-dir", "{out}"]),
    ("score-trace-format", ["score", TRACE, "--format", "native"],
     ["score", TRACE, "--trace-format", "native"]),
    ("report-format-and-file", ["report", "--input", "{results}", "--format", "json",
                                "--output", "{out}"],
     ["report", "--input", "{results}", "--report-format", "json", "--output-file", "{out}"]),
    ("diff-format", ["diff", "{results}", "{results}", "--format", "json"],
     ["diff", "{results}", "{results}", "--diff-format", "json"]),
    ("config-format", ["config", "--suite", SUITE, "--format", "json"],
     ["config", "--suite", SUITE, "--output-format", "json"]),
    ("convert-file", ["convert", TRACE, "-o", "{out}"],
     ["convert", TRACE, "--output-file", "{out}"]),
    ("inspect-trace-format", ["inspect", TRACE, "--format", "native"],
     ["inspect", TRACE, "--trace-format", "native"]),
    ("run-gate-flag", ["run", "--suite", SUITE, "--fail-under-check", "goal_completion_rate=0.5"],
     ["run", "--suite", SUITE, "--fail-under-metric", "goal_completion_rate=0.5"]),
    ("score-gate-flag", ["score", TRACE, "--fail-under-check", "refusal=0.5"],
     ["score", TRACE, "--fail-under-metric", "refusal=0.5"]),
]


def _invoke(args: list[str], tmp_path: Path, n: int) -> tuple[Result, bytes | None]:
    out = tmp_path / f"out{n}"
    filled = [a.replace("{out}", str(out)).replace("{results}", str(tmp_path / "results"))
              for a in args]
    result = CliRunner().invoke(main, filled)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    written = None
    if out.is_file():
        written = out.read_bytes()
    elif out.is_dir():
        written = (out / "summary.json").read_bytes()
    return result, written


@pytest.mark.parametrize(("old", "new"), [r[1:] for r in ALIASES], ids=[r[0] for r in ALIASES])
def test_the_old_spelling_does_what_the_new_one_does(
    old: list[str], new: list[str], tmp_path: Path
) -> None:
    assert CliRunner().invoke(main, ["run", "--suite", SUITE, "--output",
                                     str(tmp_path / "results")]).exit_code == 0
    before, old_file = _invoke(old, tmp_path, 1)
    after, new_file = _invoke(new, tmp_path, 2)
    assert before.exit_code == after.exit_code, before.output + after.output
    assert before.exit_code in (0, 1), before.output
    assert old_file == new_file
    if old[0] != "score":
        assert before.stdout == after.stdout
        return
    # score's last line holds the time taken; a gate line quotes the spelling typed.
    typed = [line.replace("--fail-under-check", "--fail-under-metric")
             for line in before.stdout.splitlines()[:-1]]
    assert typed == after.stdout.splitlines()[:-1]
    assert ("--fail-under-check" in before.stdout) == ("--fail-under-check" in old)


@pytest.mark.parametrize("command", ["run", "score"])
def test_the_gate_flag_has_one_spelling_in_the_help(command: str) -> None:
    shown = CliRunner().invoke(main, [command, "--help"]).output
    assert "--fail-under-metric" in shown and "--fail-under-check" not in shown


def test_an_unknown_engine_lists_the_registered_ones(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["score", TRACE, "--engine", "spark"])
    assert result.exit_code == 2
    assert result.stderr == ("openeval: error: unknown engine 'spark'; expected one of: local, "
                             "ray\n")


@pytest.mark.parametrize(("args", "code", "says"), [
    (["report", "--input", "nowhere"], 1, "openeval: error: "),  # report's own verdict
    (["report", "--input", SUITE, "--format", "nope"], 2,
     "openeval: error: unknown report format 'nope'"),
    (["diff", "nowhere", "nowhere"], 2, "openeval: error: nowhere: baseline: "),
    (["convert", "nowhere.json"], 2, "openeval: error: nowhere.json"),
    (["config", "--suite", "nowhere"], 2, "openeval: error: "),
    (["score", "nowhere.jsonl"], 2, "openeval: error: nowhere.jsonl: file not found"),
    (["run", "--suite", "nowhere"], 2, "openeval: error: "),
])
def test_every_command_ends_an_error_in_one_line_and_its_code(
    args: list[str], code: int, says: str
) -> None:
    result = CliRunner().invoke(main, args)
    assert result.exit_code == code, result.output
    assert result.stderr.startswith(says) and result.stderr.count("\n") == 1, result.stderr

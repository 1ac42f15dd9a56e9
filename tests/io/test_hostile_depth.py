"""Depth, size and shape checks before parsing, in every command: a test case holding a
wrong-type value nested 1,000 deep, an ``openeval.toml`` nested 2,000 deep or with a 100 KB
dotted key, and replies that made html_validity and toml_validity quadratic. Each is one line
naming the file (or one failed check), never a traceback, in a subprocess with a time limit."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEEP = 1000
TRACE = {"task_id": "t", "steps": [], "final_output": "x"}


def _openeval(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", *args], cwd=cwd,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
                          text=True, timeout=60, check=False)


def _case(root: Path, testcase_text: str, toml: str | None = None) -> None:
    (root / "c").mkdir(parents=True)
    (root / "c" / "testcase.json").write_text(testcase_text)
    (root / "c" / "trace.json").write_text(json.dumps(TRACE))
    if toml is not None:
        (root / "openeval.toml").write_text(toml)


DEEP_CASE = ('{"task_id": "t", "expected_tool_calls": [{"tool": "x", "args": {"a": '
             + "[" * DEEP + '"x"' + "]" * DEEP + '}}], "max_steps": ' + "[" * DEEP + "]" * DEEP
             + "}")


@pytest.mark.parametrize("command", [["run", "--suite", "s"], ["config", "--suite", "s", "c"],
                                     ["run", "--testcase", "s/c/testcase.json", "--trace",
                                      "s/c/trace.json"]])
def test_a_test_case_nested_1000_deep_is_one_error_naming_it(
    tmp_path: Path, command: list[str]
) -> None:
    _case(tmp_path / "s", DEEP_CASE)
    done = _openeval(tmp_path, *command)
    output = done.stdout + done.stderr
    assert done.returncode in (1, 2) and "Traceback" not in output, output
    assert "s/c/testcase.json: expected_tool_calls[0].args.a[0]" in output
    assert "nested more than 200 levels deep (MAX_JSON_DEPTH); expected a JSON file" in output


@pytest.mark.parametrize(("toml", "said"), [
    ("a = " + "[" * 2000 + "]" * 2000 + "\n",
     "arrays or inline tables nested too deeply for the parser"),
    ("a" + ".a" * 50_000 + "\n", "line 1 holds 50,000 dots, over the 1,000 parsed on one line"),
])
def test_a_hostile_openeval_toml_is_one_line_naming_it(tmp_path: Path, toml: str,
                                                       said: str) -> None:
    _case(tmp_path / "s", json.dumps({"task_id": "t"}), toml)
    done = _openeval(tmp_path, "config", "--suite", "s")
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr == f"openeval: error: s/openeval.toml: invalid TOML: {said}\n"


@pytest.mark.parametrize(("check", "reply"), [
    ("html_validity", "<a" * 50_000),
    ("html_validity", "<a x=1 " * 14_000 + ">"),
    ("toml_validity", "a" + ".a" * 50_000),
])
def test_a_hostile_reply_is_judged_at_once(tmp_path: Path, check: str, reply: str) -> None:
    (tmp_path / "s" / "c").mkdir(parents=True)
    (tmp_path / "s" / "c" / "testcase.json").write_text(json.dumps(
        {"task_id": "t", "metrics": [], "checks": [{"check": check}]}))
    (tmp_path / "s" / "c" / "trace.json").write_text(json.dumps({**TRACE, "final_output": reply}))
    done = _openeval(tmp_path, "run", "--suite", "s")  # 57 s and 14 s before: the limit is 60
    assert done.returncode == 1, done.stdout + done.stderr
    assert "FAIL  c" in done.stdout

"""The edges of JSON text every command refuses with one located line: a byte order mark, and a
value too large for the parser (docs/semantics.md#json-text)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openeval.jsonio import BOM_MESSAGE, MAX_PARSE_BYTES

BOM = b"\xef\xbb\xbf"
TRACE = b'{"task_id": "t", "steps": []}'
CASE = b'{"task_id": "t", "metrics": ["step_efficiency"]}'


def _openeval(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, check=False, env=os.environ.copy())


@pytest.mark.parametrize(("bom_in", "command"), [
    ("trace.json", ["inspect", "trace.json"]),
    ("trace.json", ["run", "--trace", "trace.json", "--testcase", "case.json"]),
    ("case.json", ["run", "--trace", "trace.json", "--testcase", "case.json"]),
    ("lines.jsonl", ["inspect", "lines.jsonl"]),
], ids=["inspect-trace", "run-trace", "run-testcase", "inspect-json-lines"])
def test_a_byte_order_mark_is_refused_naming_the_file_and_place(
    tmp_path: Path, bom_in: str, command: list[str]
) -> None:
    (tmp_path / "trace.json").write_bytes(TRACE)
    (tmp_path / "case.json").write_bytes(CASE)
    (tmp_path / "lines.jsonl").write_bytes(TRACE + b"\n" + TRACE + b"\n")
    target = tmp_path / bom_in
    target.write_bytes(BOM + target.read_bytes())
    done = _openeval(*command, cwd=tmp_path)
    assert done.returncode == 2, done.stdout
    assert done.stderr == f"openeval: error: {bom_in}: line 1 column 1: {BOM_MESSAGE}\n"


def test_score_counts_a_json_lines_file_with_a_bom_as_unreadable(tmp_path: Path) -> None:
    (tmp_path / "lines.jsonl").write_bytes(BOM + TRACE + b"\n" + TRACE + b"\n")
    done = _openeval("score", "lines.jsonl", "--output", "out", cwd=tmp_path)
    assert done.returncode == 1
    assert f"lines.jsonl: line 1 column 1: {BOM_MESSAGE}" in done.stdout + done.stderr


@pytest.mark.slow
def test_a_line_past_the_parser_ceiling_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    # A real file of just over 2 GB (the ceiling is about the parser, so no smaller one shows
    # it): raised read limits let it through to the parser, which must not be asked.
    big = tmp_path / "big.jsonl"
    with big.open("wb") as handle:
        handle.write(b'{"task_id": "t", "steps": [], "input": "')
        chunk = b"a" * (1 << 26)
        for _ in range(MAX_PARSE_BYTES // len(chunk) + 1):
            handle.write(chunk)
        handle.write(b'"}\n' + TRACE + b"\n")
    (tmp_path / "case.json").write_bytes(CASE)
    raised = ["--max-line-bytes", "4000000000", "--max-decompressed-bytes", "5000000000"]
    done = _openeval("score", "big.jsonl", "--output", "out", *raised, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    shown = done.stdout + done.stderr
    assert "Traceback" not in shown
    assert f"big.jsonl: {big.stat().st_size} bytes in one JSON value, over the " \
        f"{MAX_PARSE_BYTES}-byte most the parser reads" in shown

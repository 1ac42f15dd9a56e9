"""``openeval score`` end to end: files written, every line accounted for, exit codes, bad input.

Each test runs the command in process and as a subprocess (the ``openeval`` fixture).
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
import zstandard
from conftest import Invoke

CHECKS = '[[checks]]\ncheck = "pii_leak"\n\n[[checks]]\ncheck = "refusal"\n'


def _traces(path: Path, count: int, *, leaky: set[int] = frozenset(), extra: bytes = b"") -> Path:  # type: ignore[assignment]
    lines = []
    for n in range(count):
        answer = "write to jane.doe@corp-mail.net" if n in leaky else "Your order ships."
        lines.append(orjson.dumps({"task_id": f"t{n}", "steps": [], "final_output": answer}))
    path.write_bytes(b"\n".join(lines) + b"\n" + extra)
    return path


def _rows(folder: Path, name: str = "results.jsonl") -> list[dict[str, object]]:
    data = (folder / name).read_bytes()
    if name.endswith(".zst"):
        data = zstandard.ZstdDecompressor().decompressobj().decompress(data)
    return [json.loads(line) for line in data.splitlines()]


def _summary(folder: Path) -> dict[str, object]:
    return json.loads((folder / "summary.json").read_text())


def test_every_line_is_a_row_and_the_summary_adds_up(openeval: Invoke, tmp_path: Path) -> None:
    traces = _traces(tmp_path / "a.jsonl", 30, leaky={4, 9}, extra=b"not json\n")
    (tmp_path / "c.toml").write_text(CHECKS)
    out = tmp_path / "out"
    done = openeval("score", str(traces), "--checks", str(tmp_path / "c.toml"),
                    "--output", str(out))
    assert done.code == 1, done.stderr  # a failed trace and an unreadable line: the gate fails
    rows = _rows(out)
    assert len(rows) == 31 and [r["line"] for r in rows] == list(range(1, 32))
    summary = _summary(out)
    assert summary["rows"] == summary["scored"] + summary["unreadable"]["count"] == 31  # type: ignore[index, operator]
    assert summary["checks"]["pii_leak"]["failing_traces"] == ["t4", "t9"]  # type: ignore[index]
    assert "a.jsonl:31: " in summary["unreadable"]["first"][0]  # type: ignore[index]
    assert "openeval score: 30 scored" in done.stdout


def test_gates_pass_when_the_rates_hold(openeval: Invoke, tmp_path: Path) -> None:
    traces = _traces(tmp_path / "a.jsonl", 20, leaky={3})
    out = tmp_path / "out"
    held = openeval("score", str(traces), "--output", str(out),
                    "--fail-under-check", "pii_leak=0.9")
    assert held.code == 0, held.stdout + held.stderr
    assert "gate --fail-under-check pii_leak=0.9: 95.0% >= 90%" in held.stdout
    failed = openeval("score", str(traces), "--fail-under-check", "pii_leak=0.99")
    assert failed.code == 1 and "(FAILED)" in failed.stdout


def test_same_input_same_bytes_and_zstd_results(openeval: Invoke, tmp_path: Path) -> None:
    traces = _traces(tmp_path / "a.jsonl", 40, leaky={1})
    first, second = tmp_path / "one", tmp_path / "two"
    openeval("score", str(traces), "--output", str(first), "--sample", "10")
    openeval("score", str(traces), "--output", str(second), "--sample", "10",
             "--results-name", "results.jsonl.zst")
    assert _rows(first) == _rows(second, "results.jsonl.zst")
    assert (first / "summary.json").read_bytes() == (second / "summary.json").read_bytes()
    assert _summary(first)["not_sampled"] == 30


def test_truncated_zstd_is_counted_never_lost(openeval: Invoke, tmp_path: Path) -> None:
    plain = _traces(tmp_path / "plain.jsonl", 60)
    data = zstandard.ZstdCompressor().compress(plain.read_bytes())
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(data[:-7])
    plain.unlink()
    out = tmp_path / "out"
    done = openeval("score", str(tmp_path), "--output", str(out))
    assert done.code == 1
    summary = _summary(out)
    assert summary["unreadable"]["count"] == 1  # type: ignore[index]
    assert "truncated" in summary["unreadable"]["first"][0]  # type: ignore[index]
    assert summary["rows"] == summary["scored"] + 1  # type: ignore[operator]


def test_a_line_over_the_limit(openeval: Invoke, tmp_path: Path) -> None:
    traces = _traces(tmp_path / "a.jsonl", 3, extra=b"x" * 5000 + b"\n" +
                     orjson.dumps({"task_id": "last", "steps": []}) + b"\n")
    out = tmp_path / "out"
    done = openeval("score", str(traces), "--output", str(out), "--max-line-bytes", "1000")
    assert done.code == 1
    rows = _rows(out)
    assert [r["status"] == "unreadable" for r in rows] == [False, False, False, True, False]
    assert "line longer than the 1000-byte limit" in str(rows[3]["message"])


def test_a_line_over_the_value_cap(openeval: Invoke, tmp_path: Path) -> None:
    flood = orjson.dumps({"task_id": "flood", "steps": [], "final_output": "ok",
                          "metadata": {"ids": list(range(300))}})
    traces = _traces(tmp_path / "a.jsonl", 2, extra=flood + b"\n")
    out = tmp_path / "out"
    done = openeval("score", str(traces), "--output", str(out), "--max-json-values", "200")
    assert done.code == 1
    rows = _rows(out)
    assert [r["status"] == "unreadable" for r in rows] == [False, False, True]
    assert str(rows[2]["message"]).startswith("more than 200 JSON values on one line")


@pytest.mark.parametrize(("args", "message"), [
    (["{tmp}/*.nothing"], "no file matches the glob"),
    (["{tmp}/a.jsonl", "--checks", "{tmp}/bad.toml"],
     "bad.toml: line 9: checks[2].scan_first: unknown setting 'scan_first' for check 'refusal'"),
    (["{tmp}/a.jsonl", "--fail-under-check", "pii=0.5"],
     "--fail-under-check pii=0.5: unknown check 'pii'"),
    (["{tmp}/a.jsonl", "--results-name", "../x.jsonl"], "expected a plain file name"),
], ids=["glob", "checks file", "gate", "results name"])
def test_bad_usage_is_one_line_and_exit_2(
    openeval: Invoke, tmp_path: Path, args: list[str], message: str
) -> None:
    _traces(tmp_path / "a.jsonl", 2)
    (tmp_path / "bad.toml").write_text(CHECKS + "\n[[checks]]\ncheck = \"refusal\"\n"
                                       "scan_first = 3\n")
    done = openeval("score", *[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert done.code == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("openeval: error: ")
    assert message in lines[0]



def test_a_folder_another_run_is_writing_is_refused(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    from openeval.results.files import output_folder_lock

    traces = _traces(tmp_path / "a.jsonl", 3)
    out = tmp_path / "out"
    with output_folder_lock(out):  # this test process is the run writing the folder
        done = subprocess.run(
            [sys.executable, "-m", "openeval", "score", str(traces), "--output", str(out)],
            capture_output=True, text=True, timeout=60,
        )
    assert done.returncode == 2
    assert done.stderr == (
        f"openeval: error: {out}: another OpenEval run (pid {os.getpid()}) is writing this "
        "results folder; wait for it to finish or choose another folder\n"
    )
    assert not (out / "results.jsonl").exists() and not (out / "summary.json").exists()

"""``openeval score`` never reads its own results back as traces (issue 24, smaller findings).

With the output folder inside an input folder, a second run once read ``results.jsonl`` and
``summary.json`` as traces: two "unreadable" rows, and a FAIL for a run that passed before.
Each row runs the real command twice in a subprocess and compares the two summaries.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

TRACE = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good" / "trace.json"


def _score(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", "score", "-q", *args],
                          capture_output=True, text=True, timeout=120)


@dataclass(frozen=True)
class Layout:
    id: str
    output: str
    """The output folder, relative to the folder of traces."""
    extra: tuple[str, ...] = ()
    """Files beside the trace, relative to the folder of traces."""
    rows: int = 1
    """Rows each run writes."""


LAYOUTS = [
    Layout("output-folder-inside-the-input", "results"),
    Layout("output-folder-deeper-inside", "runs/nightly"),
    # Output and input are one folder: the files this run writes are left out, the rest read.
    Layout("output-folder-is-the-input", "."),
    # An older run's rows under another name inside a nested output folder are its own too.
    Layout("older-rows-in-the-output-folder", "results", ("results/old.jsonl",)),
]


@pytest.mark.parametrize("layout", LAYOUTS, ids=[layout.id for layout in LAYOUTS])
def test_a_second_run_reads_the_same_traces(layout: Layout, tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(TRACE, traces / "trace.json")
    for name in layout.extra:
        (traces / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(TRACE, traces / name)
    output = traces / layout.output
    summaries = []
    for _ in range(2):
        done = _score(str(traces), "--output-dir", str(output))
        assert "Traceback" not in done.stderr
        assert done.returncode == 0, done.stdout + done.stderr
        summaries.append(json.loads((output / "summary.json").read_text()))
        rows = (output / "results.jsonl").read_text().splitlines()
        assert len(rows) == layout.rows
    assert summaries[0]["unreadable"]["count"] == summaries[1]["unreadable"]["count"] == 0
    assert summaries[0]["scored"] == summaries[1]["scored"] == layout.rows


def test_a_file_named_inside_the_output_folder_is_one_line(tmp_path: Path) -> None:
    output = tmp_path / "results"
    output.mkdir()
    shutil.copy(TRACE, output / "trace.json")
    done = _score(str(output / "trace.json"), "--output-dir", str(output))
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        f"openeval: error: {output.as_posix()}/trace.json: lies in the output folder "
        f"{output.as_posix()}, which this run rewrites; move it out or choose another "
        "--output-dir"]
    assert (output / "trace.json").exists()

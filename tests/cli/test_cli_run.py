"""``openeval run`` end to end: exit codes of CONTRACT §4, messages, outputs, determinism."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, Invoke

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.metrics import metric_names

SUITES = ROOT / "tests" / "data" / "suites"
SIMPLE = ROOT / "examples" / "simple_agent"
QUICKSTART = ROOT / "examples" / "quickstart"
TOUR = ROOT / "examples" / "tour"
ANSI = re.compile(r"\x1b\[")


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text


def test_single_case_prints_each_metric(openeval: Invoke) -> None:
    out = openeval("run", "--trace", str(SIMPLE / "trace.json"),
                   "--testcase", str(SIMPLE / "testcase.json"))
    assert out.code == EXIT_OK, out.stderr
    for name in metric_names():
        assert name in out.stdout
    assert "gate passed" in out.stdout.splitlines()[-1]
    assert not ANSI.search(out.stdout)


def _write_case(folder: Path, trace: str, testcase: str | None = None) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trace.json").write_text(trace)
    (folder / "testcase.json").write_text(
        testcase if testcase is not None else (SIMPLE / "testcase.json").read_text()
    )
    return folder / "trace.json", folder / "testcase.json"


UNREADABLE = [
    # id, trace text, test case text (None: the example's), file named, place, words
    ("missing-trace", None, None, "trace.json", None, "file not found"),
    ("truncated-trace", '{"task_id": "x", "steps": [', None, "trace.json", "line 1 column 28",
     "invalid JSON"),
    ("unknown-testcase-key", None, '{"task_id": "x", "max_step": 3}', "testcase.json",
     "max_step", "unknown key 'max_step'"),
    ("bad-step-type", '{"task_id": "x", "steps": [{"step_id": 1, "type": "plan"}]}', None,
     "trace.json", "steps[0].type", "expected one of"),
]


@pytest.mark.parametrize(("trace", "testcase", "file", "place", "words"),
                         [u[1:] for u in UNREADABLE], ids=[u[0] for u in UNREADABLE])
def test_single_case_unreadable_file_exits_2_naming_file_and_place(
    openeval: Invoke, tmp_path: Path, trace: str | None, testcase: str | None, file: str,
    place: str | None, words: str,
) -> None:
    trace_path, testcase_path = _write_case(
        tmp_path, trace if trace is not None else (SIMPLE / "trace.json").read_text(), testcase
    )
    if trace is None and file == "trace.json":
        trace_path.unlink()
    out = openeval("run", "--trace", str(trace_path), "--testcase", str(testcase_path))
    assert out.code == EXIT_USAGE
    (line,) = out.stderr.strip().splitlines()
    assert line.startswith(f"openeval: error: {tmp_path / file}")
    if place is not None:
        assert f": {place}: " in line
    assert words in line
    no_traceback(out.stdout, out.stderr)


def test_suite_writes_results_and_exits_1_on_errored_cases(
    openeval: Invoke, tmp_path: Path
) -> None:
    out = openeval("run", "--suite", str(SUITES / "mixed"), "--output", str(tmp_path))
    assert out.code == EXIT_FAIL
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["cases"] == 9 and summary["errored_cases"] == 6
    assert len(summary["result_files"]) == 9
    assert "ERROR b-missing-trace:" in out.stdout
    assert not ANSI.search(out.stdout)
    no_traceback(out.stdout, out.stderr)


def test_passing_suite_exits_0(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(QUICKSTART))
    assert out.code == EXIT_OK, out.stdout
    assert out.stdout.splitlines()[-1].startswith("openeval: 8 case(s): 8 passed")


def test_021_layout_runs(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(SUITES / "legacy_021"))
    assert out.code == EXIT_FAIL
    assert "PASS  testcases/lookup.json" in out.stdout
    assert "FAIL  testcases/refund.json" in out.stdout


@pytest.mark.parametrize(
    ("fail_under", "code"), [(None, EXIT_FAIL), ("0.85", EXIT_OK), ("0.9", EXIT_FAIL)]
)
def test_fail_under_passes_a_high_enough_rate_despite_failures(
    openeval: Invoke, fail_under: str | None, code: int
) -> None:
    # legacy_021: 13 of 15 judged metric results pass (86.7%), two fail.
    args = ["run", "--suite", str(SUITES / "legacy_021"), "--quiet"]
    out = openeval(*args, *(["--fail-under", fail_under] if fail_under else []))
    assert out.code == code, out.stdout


def test_fail_under_never_passes_an_errored_case(openeval: Invoke, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    shutil.copytree(QUICKSTART, suite)
    (suite / "02-weather-search" / "trace.json").unlink()
    out = openeval("run", "--suite", str(suite), "--fail-under", "0.0", "--quiet")
    assert out.code == EXIT_FAIL
    assert "1 case(s) errored" in out.stdout


def test_quiet_prints_only_the_summary_line(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(SUITES / "mixed"), "--quiet")
    assert out.stdout.count("\n") == 1
    assert out.stdout.startswith("openeval: 9 case(s): 3 passed, 0 failed, 6 errored, 0 n.a.")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--suite", "tests/data/suites/no_cases"], "no case found"),
        (["--suite", "tests/data/suites/mixed", "--metrics", "speed"],
         "unknown metric 'speed'; expected one of: tool_selection_accuracy"),
        (["--suite", "tests/data/suites/mixed", "--format", "yaml"],
         "unknown trace format 'yaml'; expected one of:"),
        (["--suite", "tests/data/suites/mixed", "--trace", "x.json"], "not both"),
        ([], "give --suite DIR"),
        (["--suite", "tests/data/suites/mixed", "--fail-under", "1.5"], "1.5"),
    ],
    ids=["no-case", "unknown-metric", "unknown-format", "suite-and-trace", "nothing", "range"],
)
def test_usage_errors_exit_2(openeval: Invoke, args: list[str], words: str) -> None:
    out = openeval("run", *args)
    assert out.code == EXIT_USAGE
    assert words in out.stderr
    no_traceback(out.stdout, out.stderr)


def test_metrics_option_narrows_the_run(openeval: Invoke, tmp_path: Path) -> None:
    first, second = metric_names()[:2]
    out = openeval("run", "--suite", str(QUICKSTART), "--metrics", f"{second},{first}",
                   "--output", str(tmp_path), "--quiet")
    assert out.code == EXIT_OK
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert set(summary["per_check"]) == {first, second}
    assert summary["metadata"]["metrics"] == [second, first]


def test_two_runs_give_identical_bytes(openeval: Invoke, tmp_path: Path) -> None:
    for name in ("one", "two"):
        openeval("run", "--suite", str(SUITES / "mixed"), "--output", str(tmp_path / name),
                 "--quiet")
        for fmt in ("markdown", "json"):
            report = openeval("report", "--input", str(tmp_path / name), "--format", fmt)
            (tmp_path / f"{name}.{fmt}").write_text(report.stdout)
    files = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert files == sorted(p.name for p in (tmp_path / "two").iterdir())
    for name in files:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    for fmt in ("markdown", "json"):
        assert (tmp_path / f"one.{fmt}").read_text() == (tmp_path / f"two.{fmt}").read_text()


def test_junit_file_is_written(openeval: Invoke, tmp_path: Path) -> None:
    junit = tmp_path / "reports" / "junit.xml"
    out = openeval("run", "--suite", str(SUITES / "legacy_021"), "--junit", str(junit), "-q")
    assert out.code == EXIT_FAIL
    text = junit.read_text()
    assert text.startswith("<?xml") and "testcases/refund.json" in text


@pytest.mark.parametrize(("flag", "fmt", "start"),
                         [("--junit", "junit", "<?xml"), ("--html", "html", "<!DOCTYPE html>")])
def test_report_file_flag_is_report_format_equals_file(
    openeval: Invoke, tmp_path: Path, flag: str, fmt: str, start: str
) -> None:
    short, long = tmp_path / "short" / f"report.{fmt}", tmp_path / f"long.{fmt}"
    out = openeval("run", "--suite", str(SUITES / "legacy_021"), flag, str(short),
                   "--report", f"{fmt}={long}", "-q")
    assert out.code == EXIT_FAIL, out.stderr
    assert short.read_bytes() == long.read_bytes()
    assert short.read_text(encoding="utf-8").startswith(start)


@pytest.mark.parametrize(("flags", "kept"), [
    ([], False), (["--keep-steps"], True), (["--html", "report.html"], True),
    (["--report", "html=report.html"], True), (["--report", "markdown"], False),
])
def test_steps_are_kept_in_the_results_when_asked_or_for_an_html_report(
    openeval: Invoke, tmp_path: Path, flags: list[str], kept: bool
) -> None:
    flags = [f.replace("report.html", str(tmp_path / "report.html")) for f in flags]
    out = openeval("run", "--suite", str(TOUR), "--output", str(tmp_path / "out"), "-q", *flags)
    assert out.code == EXIT_FAIL, out.stderr
    documents = [json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.result.json")]
    assert len(documents) == len(list(TOUR.glob("*/testcase.json")))
    assert all(("trace_excerpt" in d) is kept for d in documents)
    if any(f.endswith(".html") for f in flags):
        # The page drawn during the run is the page drawn later from its results.
        again = openeval("report", "--input", str(tmp_path / "out"), "--format", "html")
        assert again.stdout == (tmp_path / "report.html").read_text(encoding="utf-8")


def test_notes_of_passed_results_are_printed_and_never_fail(openeval: Invoke) -> None:
    out = openeval("run", "--suite", str(TOUR))
    assert "    note  tool_selection_accuracy: extra: search_flights" in out.stdout
    notes = [line for line in out.stdout.splitlines() if line.startswith("    note ")]
    assert len(notes) == 5  # tour 08's unchecked timeout is its step_budget's n.a. now


def test_on_a_terminal_cases_are_drawn_as_a_table(tmp_path: Path) -> None:
    import os
    import pty
    import subprocess
    import sys

    leader, follower = pty.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "200"}
    env.pop("NO_COLOR", None)
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(SUITES / "legacy_021")],
        stdout=follower, stderr=subprocess.PIPE, cwd=ROOT, env=env, timeout=120,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    text = b"".join(chunks).decode()
    assert done.returncode == EXIT_FAIL, done.stderr
    assert "OpenEval results" in text
    assert ANSI.search(text)
    assert "testcases/refund.json" in text and "fail" in text
    assert ANSI.sub("", text).rstrip().splitlines()[-1].startswith("openeval: 2 case(s)")


def test_an_error_message_spanning_lines_prints_as_one(openeval: Invoke, tmp_path: Path) -> None:
    folder = tmp_path / "odd\nname"
    trace, testcase = _write_case(folder, "{")
    out = openeval("run", "--trace", str(trace), "--testcase", str(testcase))
    assert out.code == EXIT_USAGE
    assert out.stderr.count("\n") == 1 and "odd name" in out.stderr

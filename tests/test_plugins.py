"""Third-party extensions register through entry points, as an installed package would.

A throwaway distribution (a ``dist-info`` folder with ``entry_points.txt``) is put on the path
of a fresh ``openeval`` process; its metric, trace format, report format, comparison format and
trials rule must then work from the command line with no change to OpenEval.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from openeval.results.files import read_results

PLUGIN = '''
from openeval.metrics import Measurement, Metric
from openeval.models import AgentTrace, TraceStep


class NoShouting(Metric):
    """Passes when the final output has no word in capitals; never n.a."""

    name = "no_shouting"
    default_threshold = 1.0

    def measure(self, trace, test_case):
        loud = [w for w in trace.final_output.split() if len(w) > 1 and w.isupper()]
        return Measurement(0.0 if loud else 1.0, f"shouted: {loud}" if loud else "calm")


class CsvAdapter:
    """Reads 'tool,arg' lines: a toy format only this plugin knows."""

    name = "toycsv"
    description = "tool,query lines"

    def refusal(self, source):
        return None if source.head.startswith(b"#toycsv") else "no #toycsv header"

    def load(self, source):
        lines = source.path.read_text().splitlines()[1:]
        steps = [
            TraceStep(step_id=i, type="tool_call", tool_name=t, tool_args={"query": q})
            for i, (t, q) in enumerate((line.split(",", 1) for line in lines), start=1)
        ]
        return AgentTrace(task_id=source.path.stem, steps=steps, final_output="ALL DONE")


ADAPTER = CsvAdapter()


class CountReporter:
    name = "count"
    description = "the number of cases"

    def render(self, suite):
        return f"{len(suite.cases)} case(s)\\n"


REPORTER = CountReporter()


class WorseCount:
    name = "worsecount"
    description = "how many cases got worse"

    def render(self, diff, *, base, head, failing):
        return f"{len(diff.regressions)} worse\\n"


DIFF_REPORTER = WorseCount()


def _at_least_one(n, passed, k):
    return passed >= 1


from openeval.results.trials import RuleDefinition  # noqa: E402

ANY_PASS = RuleDefinition("any_pass", False, "'any_pass'", _at_least_one)
'''

ENTRY_POINTS = """[openeval.metrics]
no_shouting = toyplugin:NoShouting

[openeval.adapters]
toycsv = toyplugin:ADAPTER

[openeval.reporters]
count = toyplugin:REPORTER

[openeval.diff_reporters]
worsecount = toyplugin:DIFF_REPORTER

[openeval.trials_rules]
any_pass = toyplugin:ANY_PASS
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    info = site / "toyplugin-0.1.dist-info"
    info.mkdir(parents=True)
    (site / "toyplugin.py").write_text(PLUGIN, encoding="utf-8")
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toyplugin\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(ENTRY_POINTS, encoding="utf-8")
    return site


def _openeval(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, "-m", "openeval", *args], capture_output=True, text=True, env=env
    )


def test_plugin_metric_format_and_reporter_work_from_the_cli(
    plugin_path: Path, tmp_path: Path
) -> None:
    case = tmp_path / "case"
    case.mkdir()
    (case / "trace.csv").write_text("#toycsv\nsearch,weather in Tokyo\n")
    (case / "testcase.json").write_text(
        '{"task_id": "t", "expected_tool_calls": [{"tool": "search"}]}'
    )
    out = tmp_path / "out"
    run = _openeval(plugin_path, "run", "--suite", str(case), "--output", str(out))
    assert run.returncode == 1, run.stderr  # the plugin metric fails: the output shouts
    assert "no_shouting" in run.stdout and "shouted: ['ALL', 'DONE']" in run.stdout
    (result,) = read_results(out).cases
    assert result.trace_format == "toycsv"
    assert [c.name for c in result.checks][-1] == "no_shouting"  # after the built-ins
    report = _openeval(plugin_path, "report", "--input", str(out), "--format", "count")
    assert report.returncode == 0, report.stderr
    assert report.stdout == "1 case(s)\n"
    # A comparison format and a trials rule from the plugin, through the same command line.
    compared = _openeval(plugin_path, "run", "--suite", str(case),
                         "--output", str(tmp_path / "again"), "--trials-rule", "any_pass",
                         "--baseline", str(out),
                         "--baseline-report", f"worsecount={tmp_path / 'worse.txt'}")
    assert compared.returncode == 1, compared.stderr  # the plugin metric still fails
    assert (tmp_path / "worse.txt").read_text() == "0 worse\n"
    assert read_results(tmp_path / "again").metadata["trials_rule"] == "any_pass"


def test_without_the_plugin_its_names_are_unknown(tmp_path: Path) -> None:
    empty = tmp_path / "site"
    empty.mkdir()
    report = _openeval(empty, "report", "--input", str(tmp_path), "--format", "count")
    assert report.returncode == 2
    assert "unknown report format 'count'" in report.stderr

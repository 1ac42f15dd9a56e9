"""``--sample`` can be steered by whoever picks the trace ids, and says so (issue 24, smaller).

The sample is deterministic by design (proposals/0250-hostile-input-round-three.md): an author
who hashes candidate ids finds one that is always sampled. The test plays that author through
the real command and checks that the help states the rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from openeval.production.sample import sample_key

TRACE = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good" / "trace.json"


def _score(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", "score", *args],
                          capture_output=True, text=True, timeout=120)


def test_a_chosen_id_is_the_one_sampled_and_the_help_says_so(tmp_path: Path) -> None:
    trace = json.loads(TRACE.read_text())
    honest = [f"run-{i}" for i in range(20)]
    # The author tries candidates until one hashes below every honest id.
    lowest = min(sample_key(i) for i in honest)
    chosen = next(c for c in (f"mine-{n}" for n in range(100_000)) if sample_key(c) < lowest)
    lines = [json.dumps({**trace, "task_id": i}) for i in [*honest, chosen]]
    (tmp_path / "traces.jsonl").write_text("\n".join(lines) + "\n")
    for run in ("first", "second"):
        done = _score(str(tmp_path / "traces.jsonl"), "--sample", "1", "--output-dir",
                      str(tmp_path / run), "-q")
        assert done.returncode == 0, done.stderr
        rows = [json.loads(line) for line in (tmp_path / run / "results.jsonl").open()]
        assert [r["trace_id"] for r in rows if r["status"] != "not sampled"] == [chosen]
    help_text = " ".join(_score("--help").stdout.split())
    assert "Whoever picks the trace ids can steer which are picked" in help_text

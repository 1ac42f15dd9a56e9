"""A plain-Python floor for ``openeval score``: four cheap checks over native JSON Lines traces,
one result row per trace and a ``summary.json``, with none of OpenEval's machinery.

Run (not collected by pytest)::

    python benchmarks/floor_score.py OUT FILE.jsonl [FILE.jsonl ...]

Each line is parsed with orjson and checked with the simplest correct form of the checks
``bench_ratios.py`` gives ``openeval score``: ``pii_leak`` (an e-mail address or a phone
number in the reply), ``repeated_tool_calls`` (the same call, name and arguments, three times
in a row), ``length_budget`` (1-300 words, at most 4,000 characters) and
``tool_call_validity`` (every tool call has a name and object arguments). The rows are written
to ``OUT/results.jsonl``; it does not aim at OpenEval's bytes, only its work.
"""

from __future__ import annotations

import argparse
import itertools
import os
import re
import sys
from typing import Any

import orjson

EMAIL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+")
PHONE = re.compile(r"\+?\d[\d ().-]{7,}\d")
WORD = re.compile(r"\w+")


def checks_of(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the four checks of one parsed trace."""
    reply = trace.get("final_output") or ""
    leak = bool(EMAIL.search(reply) or PHONE.search(reply))
    calls = [s for s in trace.get("steps") or () if s.get("type") == "tool_call"]
    keys = [(c.get("tool_name"), orjson.dumps(c.get("tool_args"), option=orjson.OPT_SORT_KEYS))
            for c in calls]
    run = longest = 1 if keys else 0
    for previous, key in itertools.pairwise(keys):
        run = run + 1 if key == previous else 1
        longest = max(longest, run)
    stripped = reply.strip()
    words = len(WORD.findall(stripped))
    valid = all(isinstance(c.get("tool_name"), str) and c["tool_name"]
                and isinstance(c.get("tool_args"), dict) for c in calls)
    verdicts = {
        "pii_leak": not leak,
        "repeated_tool_calls": longest < 3,
        "length_budget": 1 <= words <= 300 and len(stripped) <= 4000,
        "tool_call_validity": valid,
    }
    return [{"name": name, "verdict": "pass" if ok else "fail",
             "scores": [{"name": name, "value": ok, "data_type": "BOOLEAN"}]}
            for name, ok in verdicts.items()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    passed = failed = 0
    with open(os.path.join(args.out, "results.jsonl"), "wb") as rows:
        for path in args.files:
            with open(path, "rb") as handle:
                for number, line in enumerate(handle, 1):
                    if not line.strip():
                        continue
                    trace = orjson.loads(line)
                    checks = checks_of(trace)
                    ok = all(c["verdict"] == "pass" for c in checks)
                    passed, failed = passed + ok, failed + (not ok)
                    rows.write(orjson.dumps({
                        "file": path, "line": number, "task_id": trace.get("task_id"),
                        "passed": ok, "checks": checks,
                    }) + b"\n")
    with open(os.path.join(args.out, "summary.json"), "wb") as handle:
        handle.write(orjson.dumps({"traces": passed + failed, "passed": passed,
                                   "failed": failed}, option=orjson.OPT_INDENT_2))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

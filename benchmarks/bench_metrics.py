"""Time every metric over 10,000 synthetic traces of 40 tool calls (not collected by pytest).

Run: ``.venv/bin/python benchmarks/bench_metrics.py``. Two test cases: ``typical`` (three
expected calls, as most real cases have) and ``heavy`` (nine expected calls with arguments,
four of them to the same tool, so argument pairing runs the full assignment on every trace).
Prints seconds per metric for all 10,000 traces; the figure to watch is "well under 1 s".
"""

from __future__ import annotations

import random
import time

from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase, TraceStep

TOOLS = ["search", "lookup_order", "refund_order", "send_email", "read_file", "write_file"]


def make_traces(count: int = 10_000, calls: int = 40, seed: int = 7) -> list[AgentTrace]:
    """Return ``count`` traces of ``calls`` tool calls with random tools, args and denials."""
    rng = random.Random(seed)
    traces = []
    for t in range(count):
        steps = [
            TraceStep(
                step_id=i + 1, type="tool_call", tool_name=rng.choice(TOOLS),
                tool_args={"q": rng.randint(0, 3), "page": rng.randint(1, 2)},
                timestamp=1_000.0 + i, latency_ms=50.0, denied=rng.random() < 0.05,
                divergent=(i == 30 and t % 3 == 0),
            )
            for i in range(calls)
        ]
        traces.append(AgentTrace(
            task_id=str(t), steps=steps, final_output="done R-1",
            actual_state={"status": "refunded", "n": 1},
            metadata={"fingerprint_verdict": "PASS"},
        ))
    return traces


CASES = {
    "typical": EvalTestCase(
        task_id="typical",
        expected_tool_calls=[
            {"tool": "lookup_order", "args": {"q": 1}},
            {"tool": "refund_order", "args": {"q": 2, "page": 1}},
            {"tool": "send_email"},
        ],
        expected_final_state={"status": "refunded", "n": 1.0},
        expected_output_contains=["R-1"], max_steps=50, timeout_seconds=100,
    ),
    "heavy": EvalTestCase(
        task_id="heavy",
        expected_tool_calls=[{"tool": n, "args": {"q": 1, "page": 2}} for n in TOOLS]
        + [{"tool": "search", "args": {"q": 2, "page": 1}}] * 3,
        expected_final_state={"status": "refunded", "n": 1.0},
        expected_output_contains=["R-1"], max_steps=50, timeout_seconds=100, optimal_steps=20,
    ),
}


def main() -> None:
    traces = make_traces()
    for label, case in CASES.items():
        print(f"{label}: {len(traces)} traces x {len(traces[0].steps)} tool calls")
        for metric in all_metrics():
            start = time.process_time()
            for trace in traces:
                metric.score(trace, case)
            print(f"  {metric.name:26s} {time.process_time() - start:6.3f} s")


if __name__ == "__main__":
    main()

"""A small checkout agent recorded with Fixtura, and its AgentSpec for drift checks.

Running this file re-records ``checkout.trace`` and its branch ``checkout-retry.trace`` in
this folder with Fixtura's own executor, permission engine and rate
limiter. ``--agent-spec checkout_agent:spec`` (with this folder on PYTHONPATH) describes the
agent as it stands now, so OpenEval can compute the drift verdict with Fixtura's comparison.

The agent's "model" is scripted (the recorded llm_call events carry fixed completions), so the
recording is the same every time apart from timestamps and latencies.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fixtura.agent_spec import AgentSpec
from fixtura.executor import RecordingExecutor
from fixtura.recorder.fingerprint import compute_fingerprint
from fixtura.recorder.recorder import ExecutionRecorder
from fixtura.security.permission_engine import CapabilityToken
from fixtura.security.rate_limiter import RateLimiter, RateLimiterConfig
from fixtura.tools.base_tool import BaseTool
from fixtura.tools.filesystem_tool import FilesystemTool
from fixtura.tools.http_tool import HttpTool
from fixtura.tools.sqlite_tool import SqliteTool

SYSTEM_PROMPT = "You are a checkout agent. Place the order in cart.txt and write a receipt."
TASK = "Check out the cart in cart.txt"


def build_registry(root: Path) -> dict[str, BaseTool]:
    """Return the agent's tools, sandboxed in ``root``."""
    return {
        "filesystem_tool": FilesystemTool(sandbox_root=str(root)),
        "sqlite_tool": SqliteTool(db_path=str(root / "shop.db")),
        "http_tool": HttpTool(),
    }


def build_token(root: Path) -> CapabilityToken:
    """Return the agent's grants: files and database in ``root``, HTTP to example.com only."""
    token = CapabilityToken()
    token.filesystem.read = [str(root)]
    token.filesystem.write = [str(root)]
    token.db.read = True
    token.db.write = True
    token.http.allowed_domains = ["example.com"]
    return token


def spec() -> AgentSpec:
    """Return the agent as it stands now (the ``--agent-spec checkout_agent:spec`` target)."""
    root = Path.cwd().resolve()
    return AgentSpec(
        tools=build_registry(root),
        system_prompt=SYSTEM_PROMPT,
        capability_token=build_token(root),
        policy_root=root,
    )


@contextmanager
def _inside(folder: Path) -> Iterator[None]:
    # The agent names files relative to its workspace, so the recording holds no absolute path.
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def _model(executor: RecordingExecutor, prompt: str, completion: str, finish: str) -> None:
    executor.record_llm_call(
        prompt=prompt,
        completion=completion,
        provider="anthropic",
        model="claude-sonnet-4-5",
        input_tokens=len(prompt.split()) * 3,
        output_tokens=len(completion.split()) * 2,
        finish_reason=finish,
        latency_ms=420,
    )


def _executor(root: Path, recorder: ExecutionRecorder) -> RecordingExecutor:
    # Two calls per tool per session, and one failure trips a tool's circuit breaker, so a
    # short run shows both kinds of limit.
    limiter = RateLimiter(
        RateLimiterConfig(max_calls_per_session=2, consecutive_failures_threshold=1)
    )
    return RecordingExecutor(recorder, build_registry(root), build_token(root), limiter)


def record(folder: Path) -> tuple[Path, Path]:
    """Record ``checkout.trace`` and its branch ``checkout-retry.trace`` in ``folder``.

    Returns their paths. Overwrites earlier recordings and the agent's scratch files there.
    """
    root = folder.resolve()
    trace, branch = root / "checkout.trace", root / "checkout-retry.trace"
    for stale in (trace, branch, root / "shop.db", root / "receipt.txt"):
        stale.unlink(missing_ok=True)
    (root / "cart.txt").write_text("sku-42 x2\n", encoding="utf-8")
    with sqlite3.connect(root / "shop.db") as db:
        db.execute("CREATE TABLE orders (sku TEXT, qty INTEGER)")
    fingerprint = compute_fingerprint(
        build_registry(root), SYSTEM_PROMPT, build_token(root), policy_root=root
    )
    with _inside(root):
        run = _executor(root, ExecutionRecorder(trace, fingerprint=fingerprint))
        _model(run, TASK, "I'll read the cart first.", "tool_use")
        run.call("filesystem_tool", {"operation": "read", "path": "cart.txt"})
        _model(run, "cart: sku-42 x2", "Charging the card, then saving the order.", "tool_use")
        run.call("http_tool", {"method": "POST", "url": "https://payments.example.net/charge"})
        run.call("sqlite_tool", {"query": "INSERT INTO orders VALUES ('sku-42', 2)"})
        run.call(
            "sqlite_tool",
            {
                "operation": "write",
                "query": "INSERT INTO orders (sku, qty) VALUES (?, ?)",
                "parameters": ["sku-42", 2],
            },
        )
        run.call("sqlite_tool", {"operation": "read", "query": "SELECT count(*) FROM order_log"})
        run.call("sqlite_tool", {"operation": "read", "query": "SELECT count(*) FROM orders"})
        run.call(
            "filesystem_tool",
            {"operation": "write", "path": "receipt.txt", "content": "sku-42 x2: paid"},
        )
        run.call(
            "filesystem_tool",
            {"operation": "write", "path": "receipt.txt", "content": "sku-42 x2: paid (copy)"},
        )
        _model(
            run,
            "receipt written",
            "Order placed: sku-42 x2 saved to orders, receipt in receipt.txt.",
            "end_turn",
        )

        # A branch re-runs the same task from the third event with a different plan.
        retry = _executor(
            root,
            ExecutionRecorder(
                branch,
                parent_trace_id="checkout",
                divergence_step_id="step-000003",
                fingerprint=fingerprint,
            ),
        )
        _model(retry, "cart: sku-42 x2", "Skipping payment; saving the order only.", "tool_use")
        retry.call(
            "sqlite_tool",
            {
                "operation": "write",
                "query": "INSERT INTO orders (sku, qty) VALUES (?, ?)",
                "parameters": ["sku-42", 2],
            },
        )
        _model(retry, "order saved", "Order placed without payment: sku-42 x2.", "end_turn")
    return trace, branch


def main(target: Path) -> None:
    """Record in a scratch folder (the agent writes files there) and copy the traces to target."""
    with tempfile.TemporaryDirectory() as scratch:
        for path in record(Path(scratch)):
            shutil.copyfile(path, target / path.name)
            print(f"recorded {target / path.name}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)

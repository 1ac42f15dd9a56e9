"""The Fixtura ``.trace`` adapter, against traces written by Fixtura's own recorder.

The goldens under ``tests/data/adapters/fixtura/`` (and the example in
``examples/quickstart/08-fixtura-recording/``) are recorded by that folder's ``checkout_agent.py``
through Fixtura's ``RecordingExecutor``, permission engine and rate limiter. Re-record them with
``OPENEVAL_REGEN_GOLDEN=1 .venv/bin/pytest tests/adapters/test_adapter_fixtura.py``.
"""

from __future__ import annotations

import ast
import os
import shutil
import sys
import time
from collections.abc import Iterator
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from packaging.requirements import Requirement

# The producer itself: fixtura needs Python 3.11+, so on 3.10 there is nothing to record with.
pytest.importorskip("fixtura", reason="fixtura (the recorder these goldens come from) needs 3.11")

from fixtura.recorder.recorder import ExecutionRecorder
from fixtura.replay.live_replay import LiveReplayRuntime
from fixtura.security.rate_limiter import RateLimiter
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openeval.adapters import detect_format, from_fixtura_trace, load_trace
from openeval.adapters.base import LoadOptions, TraceSource
from openeval.adapters.fixtura import ADAPTER
from openeval.errors import MissingDependencyError, OpenEvalError, SuiteError, TraceFormatError
from openeval.jsonio import dump_json, read_json_file
from openeval.metrics import all_metrics
from openeval.models import AgentTrace, EvalTestCase

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "adapters" / "fixtura"
EXAMPLE = ROOT / "examples" / "quickstart" / "08-fixtura-recording"
REGEN = os.environ.get("OPENEVAL_REGEN_GOLDEN") == "1"
GOLDENS = ["checkout.trace", "checkout-retry.trace", "checkout.jsonl"]


@pytest.fixture(scope="module")
def agent() -> Iterator[Any]:
    """The example agent module (``checkout_agent``), importable as ``--agent-spec`` names it."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        import checkout_agent

        yield checkout_agent
    finally:
        sys.path.remove(str(EXAMPLE))


@pytest.fixture(scope="module")
def recorded(agent: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a fresh recording by Fixtura: checkout.trace, its branch and JSONL."""
    folder = tmp_path_factory.mktemp("recorded")
    trace, _ = agent.record(folder)
    (folder / "checkout.jsonl").write_bytes(_decompress(trace.read_bytes()))
    if REGEN:
        for name in ["checkout.trace", "checkout-retry.trace"]:
            shutil.copyfile(folder / name, DATA / name)
            shutil.copyfile(folder / name, EXAMPLE / name)
        shutil.copyfile(folder / "checkout.jsonl", DATA / "checkout.jsonl")
        for name in GOLDENS:
            expected = DATA / (name.split(".")[0] + _kind_suffix(name) + ".expected.json")
            expected.write_bytes(dump_json(load_trace(DATA / name).to_dict()))
    return folder


def _kind_suffix(name: str) -> str:
    return "-jsonl" if name.endswith(".jsonl") else ""


def _expected(name: str) -> Any:
    return read_json_file(DATA / (name.split(".")[0] + _kind_suffix(name) + ".expected.json"))


def _decompress(data: bytes) -> bytes:
    reader = zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True)
    return reader.read()


def _frames(lines: list[bytes]) -> bytes:
    """Return ``lines`` as Fixtura writes them: one zstd frame per line."""
    compressor = zstandard.ZstdCompressor()
    return b"".join(compressor.compress(line + b"\n") for line in lines)


def _without_clock(document: dict[str, Any]) -> dict[str, Any]:
    for step in document["steps"]:
        step["timestamp"] = 0.0
        step["latency_ms"] = None if step["latency_ms"] is None else 0.0
    return document


# --- goldens --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", GOLDENS)
def test_golden_trace_normalises_to_its_expected_json(recorded: Path, name: str) -> None:
    # ``recorded`` first, so that OPENEVAL_REGEN_GOLDEN=1 rewrites the goldens before this reads.
    trace = load_trace(DATA / name)
    assert dump_json(trace.to_dict()) == dump_json(_expected(name))


@pytest.mark.parametrize("name", GOLDENS)
def test_fresh_recording_still_normalises_to_the_golden(recorded: Path, name: str) -> None:
    fresh = _without_clock(load_trace(recorded / name).to_dict())
    assert fresh == _without_clock(_expected(name))


def test_example_traces_are_the_golden_recordings() -> None:
    for name in ["checkout.trace", "checkout-retry.trace"]:
        assert (EXAMPLE / name).read_bytes() == (DATA / name).read_bytes()


@pytest.mark.parametrize("name", GOLDENS)
def test_detection_picks_fixtura(name: str) -> None:
    assert detect_format(TraceSource(DATA / name)).name == "fixtura"


# --- mapping --------------------------------------------------------------------------------

# (step index, tool, denied, error) in the recorded checkout run.
CHECKOUT_CALLS = [
    (1, "filesystem_tool", False, None),
    (3, "http_tool", True, "denied: Domain not in allow-list: payments.example.net"),
    (4, "sqlite_tool", True, "denied: Validation error: ('operation',): Field required"),
    (5, "sqlite_tool", False, None),
    (6, "sqlite_tool", False, None),
    (
        7,
        "sqlite_tool",
        True,
        "circuit_broken: Circuit breaker tripped for sqlite_tool due to 1 consecutive failures.",
    ),
    (8, "filesystem_tool", False, None),
    (9, "filesystem_tool", True, "rate_limited: Session limit of 2 calls exceeded for "
     "filesystem_tool."),
]


@pytest.mark.parametrize(("index", "tool", "denied", "error"), CHECKOUT_CALLS)
def test_tool_calls_keep_the_recorded_decision(
    index: int, tool: str, denied: bool, error: str | None
) -> None:
    step = from_fixtura_trace(DATA / "checkout.trace").steps[index]
    assert (step.type, step.tool_name, step.denied, step.error) == (
        "tool_call", tool, denied, error
    )
    if denied:
        assert step.tool_result is None


def test_llm_calls_become_thoughts_with_model_details() -> None:
    trace = from_fixtura_trace(DATA / "checkout.trace")
    first = trace.steps[0]
    assert first.type == "thought"
    assert first.content == "I'll read the cart first."
    assert (first.provider, first.model, first.finish_reason) == (
        "anthropic", "claude-sonnet-4-5", "tool_use"
    )
    assert first.tokens == {"input": 18, "output": 10}
    assert first.latency_ms == 420.0
    assert first.timestamp > 1.7e9  # epoch seconds
    assert [s.step_id for s in trace.steps] == list(range(1, 12))


def test_a_denial_followed_by_an_empty_turn_has_no_answer(agent: Any, tmp_path: Path) -> None:
    # Recorded by Fixtura's own executor: the permission engine denies the payment call.
    path = tmp_path / "silent.trace"
    run = agent._executor(tmp_path, ExecutionRecorder(path))
    agent._model(run, agent.TASK, "I'll charge the card now.", "tool_use")
    run.call("http_tool", {"method": "POST", "url": "https://payments.example.net/charge"})
    agent._model(run, "denied", "", "end_turn")
    trace = load_trace(path)
    assert [(s.type, s.denied, s.turn) for s in trace.steps] == [
        ("thought", False, 0), ("tool_call", True, 0), ("thought", False, 1)
    ]
    assert trace.final_output == ""  # not the narration "I'll charge the card now."
    recovery = next(m for m in all_metrics() if m.name == "denial_recovery_rate")
    assert recovery.score(trace, EvalTestCase(task_id="silent")).passed is False


def test_non_string_response_is_compact_json_text() -> None:
    steps = from_fixtura_trace(DATA / "checkout.trace").steps
    assert steps[1].tool_result == '{"content":"sku-42 x2\\n"}'
    assert steps[5].tool_result == '{"affected_rows":1}'


def test_defaults_come_from_the_file() -> None:
    trace = from_fixtura_trace(DATA / "checkout.trace")
    assert trace.task_id == "checkout"
    assert trace.input == "Check out the cart in cart.txt"
    assert trace.final_output == "Order placed: sku-42 x2 saved to orders, receipt in receipt.txt."
    assert trace.actual_state == {}
    assert trace.metadata["fingerprint"]["algorithm"] == "sha256-truncated-128"
    assert "fingerprint_verdict" not in trace.metadata


def test_fixtura_own_openeval_adapter_calls_us_with_its_keywords() -> None:
    # fixtura/tools/openeval_adapter.py imports openeval.adapters.fixtura: this is its call.
    from fixtura.tools.openeval_adapter import trace_to_agent_trace

    trace = trace_to_agent_trace(
        DATA / "checkout.trace",
        task_id="task-101",
        input_text="Execute user checkout",
        final_output="Order placed successfully",
        actual_state={"order_created": True},
        metadata={"run": 7},
    )
    assert isinstance(trace, AgentTrace)
    assert (trace.task_id, trace.input, trace.final_output) == (
        "task-101", "Execute user checkout", "Order placed successfully"
    )
    assert trace.actual_state == {"order_created": True}
    assert trace.metadata["run"] == 7
    assert "fingerprint" in trace.metadata


# --- branches -------------------------------------------------------------------------------


def test_branch_reads_its_parent_up_to_the_divergence_point() -> None:
    trace = from_fixtura_trace(DATA / "checkout-retry.trace")
    parent = from_fixtura_trace(DATA / "checkout.trace")
    assert [s.content for s in trace.steps[:3]] == [s.content for s in parent.steps[:3]]
    assert [s.divergent for s in trace.steps] == [False] * 3 + [True] * 3
    assert trace.metadata["fixtura"]["lineage"] == ["checkout"]
    assert trace.metadata["fixtura"]["step_ids"][2] == "step-000003"
    divergence = next(m for m in all_metrics() if m.name == "divergence_score")
    result = divergence.score(trace, EvalTestCase(task_id="checkout-retry"))
    assert result.score == pytest.approx(3 / 6)


def test_branch_without_its_parent_names_the_missing_file(tmp_path: Path) -> None:
    shutil.copyfile(DATA / "checkout-retry.trace", tmp_path / "checkout-retry.trace")
    with pytest.raises(TraceFormatError) as caught:
        load_trace(tmp_path / "checkout-retry.trace")
    assert str(tmp_path / "checkout.trace") in str(caught.value)
    assert caught.value.location is not None and caught.value.location.startswith("line 1")


def test_branch_point_missing_from_parent_is_an_error(tmp_path: Path) -> None:
    ExecutionRecorder(tmp_path / "root.trace").record_event(
        {"event_type": "llm_call", "timestamp": 1.0, "completion": "only step"}
    )
    branch = ExecutionRecorder(
        tmp_path / "b.trace", parent_trace_id="root", divergence_step_id="step-000007"
    )
    branch.record_event({"event_type": "llm_call", "timestamp": 2.0, "completion": "x"})
    with pytest.raises(TraceFormatError, match="no event with step_id 'step-000007'"):
        load_trace(tmp_path / "b.trace")


def test_branch_of_itself_is_an_error_not_a_hang(tmp_path: Path) -> None:
    loop = ExecutionRecorder(
        tmp_path / "loop.trace", parent_trace_id="loop", divergence_step_id="step-000001"
    )
    loop.record_event({"event_type": "llm_call", "timestamp": 2.0, "completion": "x"})
    with pytest.raises(TraceFormatError, match="loops back"):
        load_trace(tmp_path / "loop.trace")


def test_branch_of_a_branch_keeps_the_first_departure(tmp_path: Path) -> None:
    for name in ["checkout.trace", "checkout-retry.trace"]:
        shutil.copyfile(DATA / name, tmp_path / name)
    grandchild = ExecutionRecorder(
        tmp_path / "again.trace",
        parent_trace_id="checkout-retry",
        divergence_step_id="step-000005",
    )
    grandchild.record_event({"event_type": "llm_call", "timestamp": 9.0, "completion": "done"})
    trace = load_trace(tmp_path / "again.trace")
    assert [s.divergent for s in trace.steps] == [False] * 3 + [True] * 3
    assert trace.metadata["fixtura"]["lineage"] == ["checkout", "checkout-retry"]
    assert trace.final_output == "done"


def test_live_branch_timestamps_in_milliseconds_become_seconds(
    agent: Any, recorded: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Fixtura's LiveReplayRuntime stamps tool calls with time.time() * 1000.
    def intents(context: list[dict[str, Any]], prompt: str) -> list[dict[str, Any]]:
        return [
            {"type": "llm_call", "timestamp": 0.0, "prompt": prompt, "completion": "re-reading",
             "provider": "p", "model": "m", "input_tokens": 1, "output_tokens": 1,
             "finish_reason": "tool_use", "latency_ms": 5},
            {"type": "tool_call_request", "tool_name": "filesystem_tool",
             "arguments": {"operation": "read", "path": "cart.txt"}},
        ]

    monkeypatch.chdir(recorded)
    LiveReplayRuntime(
        parent_trace_path=str(recorded / "checkout.trace"),
        branch_trace_path=str(recorded / "live.trace"),
        divergence_step_id="step-000002",
        agent_callable=intents,
        capability_token=agent.build_token(recorded),
        rate_limiter=RateLimiter(),
        tools=agent.build_registry(recorded),
    ).run(new_prompt="read it again")
    trace = load_trace(recorded / "live.trace")
    tool = trace.steps[-1]
    assert tool.tool_result == '{"content":"sku-42 x2\\n"}'
    assert abs(tool.timestamp - time.time()) < 3600
    assert trace.steps[-2].timestamp == 0.0
    assert [s.divergent for s in trace.steps] == [False, False, True, True]


# --- drift verdicts -------------------------------------------------------------------------


def test_agent_spec_computes_pass_with_fixturas_comparison(agent: Any) -> None:
    trace = from_fixtura_trace(DATA / "checkout.trace", agent_spec="checkout_agent:spec")
    assert trace.metadata["fingerprint_verdict"] == "PASS"
    assert trace.metadata["fingerprint_changes"] == []


def test_agent_spec_through_load_options(agent: Any) -> None:
    options = LoadOptions(agent_spec="checkout_agent:spec")
    trace = load_trace(DATA / "checkout-retry.trace", options=options)
    assert trace.metadata["fingerprint_verdict"] == "PASS"


def test_changed_agent_is_drifted(
    agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "changed_agent.py").write_text(
        "import checkout_agent\n"
        "def spec():\n"
        "    current = checkout_agent.spec()\n"
        "    current.system_prompt = 'You are a careless agent.'\n"
        "    del current.tools['http_tool']\n"
        "    return current\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    trace = from_fixtura_trace(DATA / "checkout.trace", agent_spec="changed_agent:spec")
    assert trace.metadata["fingerprint_verdict"] == "DRIFTED"
    assert trace.metadata["fingerprint_changes"] == [
        "tool removed since recording: http_tool",
        "system prompt changed",
    ]
    freshness = next(m for m in all_metrics() if m.name == "fixture_freshness")
    assert freshness.score(trace, EvalTestCase(task_id="checkout")).passed is False


def test_agent_spec_module_in_the_current_folder_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The openeval console script has no current folder on sys.path; `fixtura check-drift`
    # users expect `--agent-spec my_agent:spec` to work from their project root anyway.
    shutil.copyfile(EXAMPLE / "checkout_agent.py", tmp_path / "shop_agent_here.py")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".", str(tmp_path))])
    trace = from_fixtura_trace(DATA / "checkout.trace", agent_spec="shop_agent_here:spec")
    assert trace.metadata["fingerprint_verdict"] == "PASS"
    assert str(tmp_path) not in sys.path


def test_agent_spec_is_built_once_per_process(
    agent: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Building a spec imports the agent and hashes its tools and policy: not once per trace.
    (tmp_path / "counted_agent.py").write_text(
        "import checkout_agent\n"
        "BUILT = []\n"
        "def spec():\n"
        "    BUILT.append(1)\n"
        "    return checkout_agent.spec()\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ["checkout.trace", "checkout-retry.trace", "checkout.jsonl"]:
        trace = load_trace(DATA / name, options=LoadOptions(agent_spec="counted_agent:spec"))
        assert trace.metadata["fingerprint_verdict"] == "PASS"
    import counted_agent

    assert counted_agent.BUILT == [1]


def test_trace_without_fingerprint_is_unverified(agent: Any, tmp_path: Path) -> None:
    ExecutionRecorder(tmp_path / "old.trace").record_event(
        {"event_type": "llm_call", "timestamp": 1.0, "completion": "hi"}
    )
    trace = from_fixtura_trace(tmp_path / "old.trace", agent_spec="checkout_agent:spec")
    assert trace.metadata["fingerprint_verdict"] == "UNVERIFIED"
    assert trace.metadata["fingerprint_notes"]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("checkout_agent", "must be 'module:attribute'"),
        ("no_such_module_xyz:spec", "could not import 'no_such_module_xyz'"),
        ("checkout_agent:nope", "has no attribute 'nope'"),
        ("checkout_agent:TASK", "expected AgentSpec"),
    ],
)
def test_bad_agent_spec_is_a_usage_error(agent: Any, spec: str, message: str) -> None:
    with pytest.raises(SuiteError, match=message) as caught:
        from_fixtura_trace(DATA / "checkout.trace", agent_spec=spec)
    assert caught.value.location == f"--agent-spec {spec}"


def test_agent_spec_without_fixtura_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [m for m in sys.modules if m == "fixtura" or m.startswith("fixtura.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "fixtura", None)  # what Python does for a missing package
    with pytest.raises(MissingDependencyError, match=r'pip install "openeval-core\[fixtura\]"'):
        from_fixtura_trace(DATA / "checkout.trace", agent_spec="checkout_agent:spec")


def _fixtura_extra() -> set[str]:
    """The distributions ``pip install "openeval-core[fixtura]"`` asks for (this checkout's)."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return {Requirement(r).name for r in project["optional-dependencies"]["fixtura"]}


def test_the_fixtura_extra_installs_what_the_adapter_imports() -> None:
    # Every package the Fixtura adapter imports, for .trace files (zstandard) and for drift
    # verdicts (fixtura), comes with the extra its error messages name.
    imported = set()
    for path in (ROOT / "openeval" / "adapters" / "fixtura").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add(node.module.partition(".")[0])
    imported |= {"zstandard"}  # read through openeval.io.zstd
    provided = {dist for name in imported - {"openeval", "__future__"}
                for dist in packages_distributions().get(name, [])}
    assert provided - {"openeval-core"} <= _fixtura_extra()
    assert {"fixtura", "zstandard"} <= _fixtura_extra()


def test_zstd_trace_without_zstandard_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)
    source = TraceSource(DATA / "checkout.trace")
    assert ADAPTER.refusal(source) is None
    with pytest.raises(MissingDependencyError, match=r'openeval-core\[fixtura\]'):
        ADAPTER.load(source)
    # Plain JSONL of the same events needs no extra at all.
    assert len(load_trace(DATA / "checkout.jsonl").steps) == 11


@pytest.mark.parametrize(
    "metadata",
    [
        {"fingerprint_verdict": "DRIFTED"},
        {"verdict": "DRIFTED"},
        {"fingerprint": {"verdict": "DRIFTED"}},
    ],
)
def test_recorded_verdict_is_read_from_metadata(metadata: dict[str, Any]) -> None:
    trace = from_fixtura_trace(DATA / "checkout.trace", metadata=metadata)
    assert trace.metadata["fingerprint_verdict"] == "DRIFTED"


# --- malformed input ------------------------------------------------------------------------

LLM = {"event_type": "llm_call", "step_id": "step-000001", "timestamp": 1.0, "completion": "hi"}
TOOL = {
    "event_type": "tool_call", "step_id": "step-000002", "timestamp": 2.0, "tool_name": "t",
    "arguments": {}, "permission_decision": "allowed", "response": None, "latency_ms": 1,
}
BAD_LINES: list[tuple[str, list[Any], str, str]] = [
    ("not an object", [LLM, [1, 2]], "line 2", "expected a JSON object"),
    ("unknown event", [LLM, {**TOOL, "event_type": "chat"}], "line 2", "unknown event_type"),
    ("no step id", [{**LLM, "step_id": None}], "line 1", "step_id is missing"),
    ("duplicate id", [LLM, {**TOOL, "step_id": "step-000001"}], "line 2", "duplicate step_id"),
    ("bad decision", [{**TOOL, "permission_decision": "maybe"}], "line 1", "permission_decision"),
    ("tool name", [{**TOOL, "tool_name": 7}], "line 1", "tool_name is the number 7"),
    ("latency", [{**TOOL, "latency_ms": "fast"}], "line 1", "latency_ms is the string"),
    ("tokens", [{**LLM, "input_tokens": -3}], "line 1", "whole number of tokens"),
    ("timestamp", [{**LLM, "timestamp": True}], "line 1", "timestamp is the boolean"),
    ("late header", [LLM, {"event_type": "trace_header", "fingerprint": {}}], "line 2",
     "trace_header after the first event"),
    ("half lineage", [{"event_type": "trace_header", "parent_trace_id": "p"}, LLM], "line 1",
     "only one of parent_trace_id"),
    ("path parent", [{"event_type": "trace_header", "parent_trace_id": "../x",
                      "divergence_step_id": "step-000001"}, LLM], "line 1",
     "expected the name of a .trace file"),
]


@pytest.mark.parametrize(("events", "location", "message"),
                         [case[1:] for case in BAD_LINES], ids=[case[0] for case in BAD_LINES])
@pytest.mark.parametrize("compressed", [False, True], ids=["jsonl", "zstd"])
def test_malformed_events_name_the_file_and_line(
    tmp_path: Path, events: list[Any], location: str, message: str, compressed: bool
) -> None:
    lines = [orjson.dumps(event) for event in events]
    path = tmp_path / "bad.trace"
    path.write_bytes(_frames(lines) if compressed else b"\n".join(lines) + b"\n")
    with pytest.raises(TraceFormatError, match=message) as caught:
        ADAPTER.load(TraceSource(path))
    assert caught.value.source == str(path)
    assert caught.value.location is not None
    assert caught.value.location.startswith(location)


@pytest.mark.parametrize(
    ("arguments", "content", "why"),
    [
        ([1, 2], "[1,2]", "got a list"),
        ("{not json", "{not json", "invalid JSON"),
        ('"text"', '"text"', "got a string"),
        (3, "3", "got a number"),
    ],
)
def test_arguments_that_are_not_an_object_follow_the_shared_rule(
    tmp_path: Path, arguments: Any, content: str, why: str
) -> None:
    path = tmp_path / "args.jsonl"
    path.write_bytes(orjson.dumps({**TOOL, "arguments": arguments}) + b"\n")
    step = load_trace(path).steps[0]
    assert step.tool_args is None
    assert step.content == content
    assert step.error is not None and step.error.startswith("arguments are not a JSON object: ")
    assert why in step.error


def test_legacy_events_without_optional_fields_still_load(tmp_path: Path) -> None:
    # openeval-core 0.2.1 read these (Fixtura < 1.0.4 wrote no permission_reason).
    path = tmp_path / "legacy.trace"
    lines = [
        {"event_type": "llm_call", "step_id": "step-1", "timestamp": 1.0},
        {"event_type": "tool_call", "step_id": "step-2", "tool_name": "t", "arguments": {},
         "permission_decision": "denied", "response": None},
        {"event_type": "tool_call", "step_id": 3, "tool_name": "t", "arguments": {"a": 1}},
    ]
    path.write_bytes(_frames([orjson.dumps(line) for line in lines]))
    steps = load_trace(path).steps
    assert [(s.type, s.denied, s.error) for s in steps] == [
        ("thought", False, None),
        ("tool_call", True, "denied"),
        ("tool_call", False, None),
    ]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b'{"task_id": "x", "steps": []}', "not a fixtura event"),
        (b'{"resourceSpans": []}\n', "not a fixtura event"),
        (b"[1, 2]\n", "not a JSON object"),
        (b"", "not a JSON object"),
        (b"hello\n", "not a JSON object"),
        (_frames([b'{"type": "message"}']), "not a fixtura event"),
        (_frames([b"\xff\xfe"]), "not a JSON object"),
    ],
)
def test_refusal_is_cheap_and_explains(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "other.json"
    path.write_bytes(content)
    refusal = ADAPTER.refusal(TraceSource(path))
    assert refusal is not None and reason in refusal


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_mutated_traces_load_or_raise_our_error(data: st.DataObject) -> None:
    original = bytearray(
        (DATA / data.draw(st.sampled_from(["checkout.trace", "checkout.jsonl"]))).read_bytes()
    )
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(original) - 1))
        original[index] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(1, len(original)))
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"openeval-fuzz-{os.getpid()}.trace"
    path.write_bytes(bytes(original[:cut]))
    try:
        trace = ADAPTER.load(TraceSource(path))
        assert isinstance(trace, AgentTrace)
    except OpenEvalError as exc:
        assert exc.source == str(path)
    finally:
        path.unlink(missing_ok=True)


# --- the example ----------------------------------------------------------------------------


def test_example_case_passes_every_metric(agent: Any) -> None:
    case = EvalTestCase.from_dict(read_json_file(EXAMPLE / "testcase.json"))
    assert case.trace is not None
    trace = load_trace(EXAMPLE / case.trace, options=LoadOptions(agent_spec="checkout_agent:spec"))
    results = [metric.score(trace, case) for metric in all_metrics()]
    failed = [r for r in results if r.passed is False]
    assert failed == []
    assert {r.metric_name for r in results if r.passed} >= {
        "tool_selection_accuracy", "argument_correctness", "denial_recovery_rate",
        "fixture_freshness", "output_contains",
    }

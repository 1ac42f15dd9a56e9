"""The Ray engine gives the local rows: same rows, same order, same files, on a real cluster.

A local Ray cluster (two CPUs) is started once for the module. The corpus is built here: a few
thousand traces in every line-oriented format (native, OpenAI and Anthropic wrappers, OTel spans
interleaved over lines, LangSmith runs; plain and zstd), with the lines ``openeval score`` must
count as unreadable (invalid JSON, a line of another format, an OTel trace without its root
span, a truncated zstd stream, an empty file, a FIFO), and every comparison is against the local
engine on the same files.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

ray = pytest.importorskip(
    "ray", reason="Ray has no wheel for this Python; CI's Python 3.11 runs these tests")
ray_data = pytest.importorskip("ray.data", reason="Ray Data is not installed with Ray here")
zstandard = pytest.importorskip("zstandard", reason="part of the test extra")
from ray.data.expressions import col  # noqa: E402

from openeval.adapters.base import LoadOptions  # noqa: E402
from openeval.distributed.ray import (  # noqa: E402
    RESULT_COLUMNS,
    result_rows,
    score_dataset,
    score_rows,
)
from openeval.errors import MissingDependencyError, OpenEvalError  # noqa: E402
from openeval.production import ScoreSummary, expand_inputs, load_checks, row_line  # noqa: E402
from openeval.production.engine import local_rows  # noqa: E402
from openeval.production.plan import plan_of  # noqa: E402
from openeval.production.records import Unreadable  # noqa: E402

pytestmark = [
    pytest.mark.ray,
    pytest.mark.filterwarnings("ignore::DeprecationWarning:ray"),  # Ray's own settings
]

ROOT = Path(__file__).resolve().parents[2]
CHECKS = [
    {"check": "pii_leak"},
    {"check": "refusal"},
    {"check": "repeated_tool_calls"},
    {"check": "error_spans"},
    {"check": "tool_call_validity"},
]
"""The entries given to score_dataset as a list; the local side compiles the same ones."""
TOOLS = ("search_orders", "get_weather", "lookup_customer", "issue_refund")


# --- the corpus ---------------------------------------------------------------------------


def _calls(rng: random.Random) -> list[tuple[str, dict[str, Any], str, bool]]:
    calls = []
    for i in range(rng.randrange(1, 6)):
        failed = rng.random() < 0.05
        calls.append((TOOLS[rng.randrange(len(TOOLS))], {"id": rng.randrange(1000), "q": f"q{i}"},
                      "error: timeout" if failed else f"ok {i}", failed))
    return calls


def _answer(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.05:
        return "Write to jane.doe@corp-mail.net or call +1 415 555 0134."
    if roll < 0.1:
        return "I'm sorry, but I can't help with that request."
    return "Your order ships tomorrow."


def _native(rng: random.Random, n: int) -> bytes:
    steps = []
    for i, (tool, args, result, failed) in enumerate(_calls(rng)):
        steps.append({"step_id": i + 1, "type": "tool_call", "tool_name": tool, "tool_args": args,
                      "tool_result": None if failed else result,
                      "error": result if failed else None})
    trace: dict[str, Any] = {"task_id": f"n{n}", "input": "Where is my order?", "steps": steps,
                             "final_output": _answer(rng)}
    if n % 3:
        trace["metadata"] = {"trace_id": f"native-{n}"}
    return orjson.dumps(trace)


def _openai(rng: random.Random, n: int) -> bytes:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is my order?"}]
    for i, (tool, args, result, _) in enumerate(_calls(rng)):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{i}", "type": "function",
             "function": {"name": tool, "arguments": orjson.dumps(args).decode()}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{i}", "content": result})
    messages.append({"role": "assistant", "content": _answer(rng)})
    if n % 4 == 0:  # no task id: named by its file and line
        return orjson.dumps({"messages": messages})
    return orjson.dumps({"task_id": f"o{n}", "messages": messages})


def _anthropic(rng: random.Random, n: int) -> bytes:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is my order?"}]
    for i, (tool, args, result, failed) in enumerate(_calls(rng)):
        messages.append({"role": "assistant", "content": [
            {"type": "tool_use", "id": f"t{i}", "name": tool, "input": args}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": f"t{i}", "content": result,
             "is_error": failed}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": _answer(rng)}]})
    return orjson.dumps({"task_id": f"a{n}", "messages": messages})


def _attr(key: str, value: str | int) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _otel_spans(rng: random.Random, n: int, *, root: bool = True) -> list[dict[str, Any]]:
    trace_id, root_id = f"{n + 1:032x}", f"{n + 1:016x}"
    start = 1_795_000_000_000_000_000 + n * 10**9
    spans = []
    for i, (tool, args, result, failed) in enumerate(_calls(rng)):
        spans.append({"traceId": trace_id, "spanId": f"{(n + 1) * 100 + i:016x}",
                      "parentSpanId": root_id, "name": f"execute_tool {tool}", "kind": 1,
                      "startTimeUnixNano": str(start + i), "endTimeUnixNano": str(start + i + 1),
                      "status": {"code": 2, "message": result} if failed else {},
                      "attributes": [_attr("gen_ai.operation.name", "execute_tool"),
                                     _attr("gen_ai.tool.name", tool),
                                     _attr("gen_ai.tool.call.id", f"c{i}"),
                                     _attr("gen_ai.tool.call.arguments",
                                           orjson.dumps(args).decode())]})
    if root:
        answer = [{"role": "assistant", "parts": [{"type": "text", "content": _answer(rng)}]}]
        spans.append({"traceId": trace_id, "spanId": root_id, "name": "invoke_agent support",
                      "kind": 1, "startTimeUnixNano": str(start),
                      "endTimeUnixNano": str(start + 100),
                      "attributes": [_attr("gen_ai.operation.name", "invoke_agent"),
                                     _attr("gen_ai.output.messages",
                                           orjson.dumps(answer).decode())]})
    return spans


def _otlp(spans: list[dict[str, Any]]) -> bytes:
    return orjson.dumps({"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]})


def _otel_lines(rng: random.Random, count: int) -> Iterator[bytes]:
    """Two traces per pair of lines, their spans split over both, as a collector writes."""
    for n in range(0, count, 2):
        a, b = _otel_spans(rng, n), _otel_spans(rng, n + 1, root=n != 10)
        yield _otlp(a[: len(a) // 2] + b[: len(b) // 2])
        yield _otlp(a[len(a) // 2:] + b[len(b) // 2:])


def _langsmith_lines(rng: random.Random, count: int) -> Iterator[bytes]:
    for n in range(count):
        tid = f"ls-{n}"
        runs = [{"id": f"{tid}-tool{i}", "trace_id": tid, "parent_run_id": f"{tid}-root",
                 "name": tool, "run_type": "tool", "start_time": 1.0 + i, "end_time": 1.5 + i,
                 "inputs": {"input": orjson.dumps(args).decode()},
                 "outputs": None if failed else {"output": result},
                 "error": result if failed else None}
                for i, (tool, args, result, failed) in enumerate(_calls(rng))]
        runs.append({"id": f"{tid}-root", "trace_id": tid, "parent_run_id": None,
                     "name": "agent", "run_type": "chain", "start_time": 0.0, "end_time": 9.0,
                     "inputs": {"input": "Where?"}, "outputs": {"output": _answer(rng)}})
        yield from map(orjson.dumps, runs)


def _write(path: Path, lines: Iterator[bytes] | list[bytes], *, zstd: bool = False) -> None:
    data = b"".join(line + b"\n" for line in lines)
    path.write_bytes(zstandard.ZstdCompressor().compress(data) if zstd else data)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of 2,400 traces in every line-oriented format, and the lines that are none."""
    folder = tmp_path_factory.mktemp("production")
    rng = random.Random(14)
    _write(folder / "a-native.jsonl", (_native(rng, n) for n in range(600)))
    _write(folder / "b-openai.jsonl.zst", (_openai(rng, n) for n in range(500)), zstd=True)
    _write(folder / "c-anthropic.jsonl", (_anthropic(rng, n) for n in range(400)))
    _write(folder / "d-otel.jsonl", _otel_lines(rng, 400))
    _write(folder / "e-langsmith.jsonl", _langsmith_lines(rng, 300))
    broken = [_native(rng, 1000), b"", b'{"task_id": "cut', _openai(rng, 1001),
              _native(rng, 1002), b"[1, 2]"]
    _write(folder / "f-broken.jsonl", broken)
    whole = (folder / "g-truncated.jsonl.zst")
    _write(whole, (_native(rng, n) for n in range(2000, 2200)), zstd=True)
    whole.write_bytes(whole.read_bytes()[:-200])
    (folder / "h-empty.jsonl").write_bytes(b"")
    (folder / "i-one-document.json").write_bytes(_openai(rng, 3000))
    os.mkfifo(folder / "j-pipe.jsonl")  # no writer: a reader that opened it would hang
    return folder


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    """A local Ray cluster for the module; yields its address."""
    ray.init(num_cpus=2, object_store_memory=256 * 1024**2, include_dashboard=False,
             log_to_driver=False, logging_level=logging.ERROR)
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    summary = ScoreSummary()
    for row in rows:
        summary.add(row)
    return summary.to_json()


def _lines(rows: list[dict[str, Any]]) -> list[bytes]:
    return [row_line(row) for row in rows]


# --- the Python API -------------------------------------------------------------------------


def test_ray_rows_are_the_local_rows_in_the_local_order(
    cluster: str, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(corpus.parent)  # names relative to here; Ray's workers are elsewhere
    files = expand_inputs([corpus.name])
    plan = load_checks(None)
    rows = list(score_rows(files, plan))
    local = list(local_rows(files, plan))
    assert _lines(rows) == _lines(local)
    assert _summary(rows) == _summary(local)
    assert {"passed", "failed", "unreadable"} <= {row["status"] for row in local}
    assert len(local) >= 2200
    assert local[0]["file"] == f"{corpus.name}/a-native.jsonl"


def test_a_folder_that_could_not_be_listed_is_the_local_row(cluster: str, corpus: Path) -> None:
    files = [corpus / "a-native.jsonl",
             Unreadable(f"{corpus.name}/locked", 0, "cannot list this folder: Permission denied"),
             corpus / "f-broken.jsonl"]
    plan = load_checks(None)
    for sample in (None, 3):
        rows = list(score_rows(files, plan, sample=sample))
        assert _lines(rows) == _lines(list(local_rows(files, plan, sample=sample)))
        assert {"file": f"{corpus.name}/locked", "line": 0, "status": "unreadable",
                "message": "cannot list this folder: Permission denied"} in rows


@pytest.mark.parametrize("sample", [1, 150, 5000], ids=["one", "some", "more-than-there-are"])
def test_sample_picks_the_traces_the_local_engine_picks(
    cluster: str, corpus: Path, sample: int
) -> None:
    files = expand_inputs([corpus / "a-native.jsonl", corpus / "d-otel.jsonl",
                           corpus / "f-broken.jsonl"])
    plan = load_checks(None)
    rows = list(score_rows(files, plan, sample=sample))
    assert _lines(rows) == _lines(list(local_rows(files, plan, sample=sample)))
    assert 0 < sum(row["status"] not in ("not sampled", "unreadable") for row in rows) <= sample


def test_read_limits_hold_on_the_workers_as_locally(cluster: str, corpus: Path) -> None:
    files = expand_inputs([corpus])
    options = LoadOptions(max_decompressed_bytes=150_000)
    plan = load_checks(None)
    rows = list(score_rows(files, plan, options=options))
    expected = list(local_rows(files, plan, options=options))
    assert _lines(rows) == _lines(expected)
    refused = [row["file"] for row in expected if row["status"] == "unreadable"
               and row["line"] == 0 and "limit" in row["message"]]
    assert len(refused) >= 2


def test_a_user_regex_that_backtracks_gives_up_on_the_workers_too(
    cluster: str, tmp_path: Path
) -> None:
    # Ray runs a task on its worker's main thread, where the CPU budget of every user-regex
    # search (proposals/0310) can be armed: the worker errors the check instead of hanging.
    checks = tmp_path / "checks.json"
    checks.write_bytes(orjson.dumps(
        {"checks": [{"check": "regex_match", "must_not_match": [r"\w*b\w*$"]}]}))
    traces = tmp_path / "hostile.jsonl"
    traces.write_bytes(orjson.dumps({"task_id": "t", "steps": [],
                                     "final_output": "b" * 9_999 + "!"}) + b"\n")
    files = expand_inputs([traces])
    plan = load_checks(checks)
    rows = list(score_rows(files, plan))
    assert _lines(rows) == _lines(list(local_rows(files, plan)))
    verdict = rows[0]["checks"]["regex_match"]
    assert verdict["verdict"] == "error"
    assert "gave up after 1.0 s of CPU" in verdict["details"]


def test_score_dataset_scores_read_binary_files_as_the_local_engine(
    cluster: str, corpus: Path
) -> None:
    # Ray's reader would block on the FIFO, and it decompresses a .zst by its name itself (so
    # a truncated stream fails its read task); the readable files score as local reading does.
    files = [f for f in expand_inputs([corpus]) if f.name[:1] not in "gj"]
    ds = ray_data.read_binary_files([str(f) for f in files], include_paths=True)
    scored = score_dataset(ds, CHECKS)
    expected = list(local_rows(files, plan_of(CHECKS)))
    assert _lines(list(result_rows(scored))) == _lines(expected)
    failing = scored.filter(expr=col("status") == "failed")  # no row parsed to filter
    assert _lines(list(result_rows(failing))) == _lines(
        [row for row in expected if row["status"] == "failed"])
    first = scored.take(1)[0]
    assert tuple(first) == RESULT_COLUMNS
    assert orjson.loads(first["row"])["file"] == first["file"] == files[0].as_posix()


def test_a_table_of_one_trace_per_row_gives_the_rows_of_the_file(
    cluster: str, tmp_path: Path
) -> None:
    rng = random.Random(7)
    lines = [_openai(rng, n) for n in range(200)]
    file = tmp_path / "day.jsonl"
    _write(file, lines)
    table = [{"bytes": text.decode(), "file": file.as_posix(), "line": n}
             for n, text in enumerate(lines, 1)]
    rows = list(result_rows(score_dataset(ray_data.from_items(table), CHECKS)))
    assert _lines(rows) == _lines(list(local_rows([file], plan_of(CHECKS))))
    assert rows[4]["trace_id"] == f"{file.as_posix()}:5"  # no task id: named by its place


@pytest.mark.parametrize(
    ("row", "expected"),
    [({"text": "{}", "path": "x.jsonl"}, "expected a column 'bytes'"),
     ({"bytes": b"{}"}, "names no file"),
     ({"bytes": b"{}", "file": "x.jsonl", "line": 0}, "expected a line number")],
    ids=["no-bytes", "no-name", "line-zero"],
)
def test_a_dataset_row_that_is_no_input_is_one_error(
    cluster: str, row: dict[str, Any], expected: str
) -> None:
    scored = score_dataset(ray_data.from_items([row]), CHECKS)
    with pytest.raises(OpenEvalError, match=expected):
        list(result_rows(scored))


def test_workers_of_another_version_are_refused(
    cluster: str, corpus: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import openeval.distributed.ray as engine

    monkeypatch.setattr(engine, "__version__", "0.9.9")  # this process, as an older release
    with pytest.raises(OpenEvalError, match=r"workers run openeval-core .*, this process 0\.9\.9"):
        list(score_rows([corpus / "h-empty.jsonl"], load_checks(None)))


def test_without_ray_the_error_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, corpus: Path
) -> None:
    for name in ("ray", "ray.data"):
        monkeypatch.setitem(sys.modules, name, None)  # what an interpreter without Ray sees
    with pytest.raises(MissingDependencyError, match=r'openeval-core\[ray\]'):
        next(score_rows([corpus / "a-native.jsonl"], load_checks(None)))


# --- the command line -----------------------------------------------------------------------


def _openeval(
    *args: str | Path, timeout: int = 600, own_cluster: bool = False, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if own_cluster:  # ray.init() in this process told its children where its cluster is
        env.pop("RAY_ADDRESS", None)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "openeval", "score", *map(str, args)],
                          capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout,
                          check=False)


def _outputs(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.mark.parametrize(
    "extra", [[], ["--sample", "300", "--results-name", "results.jsonl.zst"]],
    ids=["every-trace", "sample-zstd"])
def test_engine_ray_writes_the_files_engine_local_writes(
    cluster: str, corpus: Path, tmp_path: Path, extra: list[str]
) -> None:
    where = {"cwd": corpus.parent}  # relative names, as a user types them
    local_run = _openeval(corpus.name, "--output", tmp_path / "local", *extra, **where)
    ray_run = _openeval(corpus.name, "--output", tmp_path / "ray", *extra,
                        "--engine", "ray", "--address", cluster, **where)
    assert ray_run.returncode == local_run.returncode == 1, ray_run.stderr  # unreadable lines
    assert _outputs(tmp_path / "ray") == _outputs(tmp_path / "local")
    assert "Traceback" not in ray_run.stderr


def test_engine_ray_without_address_starts_its_own_cluster(corpus: Path, tmp_path: Path) -> None:
    ray_run = _openeval(corpus / "c-anthropic.jsonl", "--output", tmp_path / "ray", "-q",
                        "--engine", "ray", own_cluster=True)
    local_run = _openeval(corpus / "c-anthropic.jsonl", "--output", tmp_path / "local", "-q")
    assert ray_run.returncode == local_run.returncode, ray_run.stderr
    assert _outputs(tmp_path / "ray") == _outputs(tmp_path / "local")


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts connections and never answers (no Ray head behind it)."""
    server = socket.create_server(("0.0.0.0", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for conn in accepted:
        conn.close()
    server.close()


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        return int(probe.getsockname()[1])  # closed when the block ends: nothing listens


@pytest.mark.parametrize("kind", ["nothing-listens", "not-a-ray-head"])
def test_a_cluster_that_cannot_be_reached_is_one_line(
    kind: str, corpus: Path, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    port = _closed_port() if kind == "nothing-listens" else request.getfixturevalue(
        "silent_port")
    address = f"127.0.0.1:{port}"
    done = _openeval(corpus / "a-native.jsonl", "--engine", "ray", "--address", address,
                     "--output", tmp_path / "out", timeout=120)
    assert done.returncode == 2
    assert done.stderr.splitlines() == [done.stderr.strip()]
    assert done.stderr.startswith(f"openeval: error: cannot reach the Ray cluster at {address}")
    assert not (tmp_path / "out" / "summary.json").exists()

"""``openeval record`` end to end: the real OpenTelemetry SDK and its OTLP/HTTP exporter send an
agent run to the receiver (a subprocess), which writes a trace file that ``openeval inspect``
reads with its tool call; JSON bodies, gzip, limits and stopping on SIGTERM/SIGINT too."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from openeval.adapters.registry import load_trace


@dataclass
class Receiver:
    process: subprocess.Popen[str]
    url: str
    out: Path

    def stop(self, how: int = signal.SIGTERM) -> tuple[int, str, str]:
        self.process.send_signal(how)
        stdout, stderr = self.process.communicate(timeout=20)
        return self.process.returncode, stdout, stderr


def _start(tmp_path: Path, *extra: str) -> Receiver:
    out = tmp_path / "traces"
    process = subprocess.Popen(
        [sys.executable, "-m", "openeval", "record", "--listen", "127.0.0.1:0",
         "--output", str(out), "--settle-seconds", "0.2", *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    assert process.stderr is not None
    line = process.stderr.readline()  # the first line names the bound port
    match = re.search(r"http://127\.0\.0\.1:(\d+)/v1/traces", line)
    assert match, line
    return Receiver(process, f"http://127.0.0.1:{match[1]}/v1/traces", out)


@pytest.fixture
def receiver(tmp_path: Path) -> Iterator[Receiver]:
    started = _start(tmp_path, "--max-body-bytes", "200000")
    yield started
    if started.process.poll() is None:
        started.process.kill()
        started.process.communicate()


def _export_agent_run(endpoint: str) -> str:
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({"service.name": "weather-agent"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracer = provider.get_tracer("test")
    question = [{"role": "user", "parts": [{"type": "text", "content": "Weather in Paris?"}]}]
    with tracer.start_as_current_span("invoke_agent weather") as root:
        root.set_attribute("gen_ai.operation.name", "invoke_agent")
        with tracer.start_as_current_span("chat gpt-4o") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.input.messages", json.dumps(question))
            chat.set_attribute("gen_ai.output.messages", json.dumps([{
                "role": "assistant", "parts": [{"type": "tool_call", "id": "c1",
                                                "name": "get_weather",
                                                "arguments": {"city": "Paris"}}]}]))
        with tracer.start_as_current_span("execute_tool get_weather") as tool:
            tool.set_attribute("gen_ai.operation.name", "execute_tool")
            tool.set_attribute("gen_ai.tool.name", "get_weather")
            tool.set_attribute("gen_ai.tool.call.id", "c1")
            tool.set_attribute("gen_ai.tool.call.arguments", '{"city": "Paris"}')
            tool.set_attribute("gen_ai.tool.call.result", "18 C, sunny")
        with tracer.start_as_current_span("chat gpt-4o") as chat:
            chat.set_attribute("gen_ai.operation.name", "chat")
            chat.set_attribute("gen_ai.output.messages", json.dumps([{
                "role": "assistant", "parts": [{"type": "text", "content": "18 C and sunny."}]}]))
        trace_id = format(root.get_span_context().trace_id, "032x")
    provider.force_flush()
    provider.shutdown()
    return trace_id


def _wait_for(path: Path, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert path.exists(), f"{path} was never written"


def test_the_real_exporter_gives_a_trace_file_a_suite_reads(receiver: Receiver) -> None:
    trace_id = _export_agent_run(receiver.url)
    written = receiver.out / f"{trace_id}.otlp.json"
    _wait_for(written)
    trace = load_trace(written)
    calls = trace.tool_calls()
    assert [(c.tool_name, c.tool_args, c.tool_result) for c in calls] == [
        ("get_weather", {"city": "Paris"}, "18 C, sunny")]
    assert trace.final_output == "18 C and sunny."
    code, stdout, stderr = receiver.stop()
    assert code == 0, stderr
    assert f"wrote trace {trace_id}: 4 spans" in stdout
    assert "4 spans received, 1 traces written" in stderr


def _post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, str]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _json_request(trace: int, root: bool = True) -> bytes:
    span = {"traceId": f"{trace:032x}", "spanId": f"{trace:016x}", "name": "agent",
            "startTimeUnixNano": "1", "endTimeUnixNano": "2"}
    if not root:
        span["parentSpanId"] = "f" * 16
    return json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}).encode()


def test_json_and_gzip_bodies_and_a_trace_left_at_stop(receiver: Receiver) -> None:
    assert _post(receiver.url, _json_request(1), {"Content-Type": "application/json"}) == (
        200, "{}")
    gz = gzip.compress(_json_request(2, root=False))
    status, _ = _post(receiver.url, gz, {"Content-Type": "application/json",
                                         "Content-Encoding": "gzip"})
    assert status == 200
    _wait_for(receiver.out / f"{1:032x}.otlp.json")
    assert not (receiver.out / f"{2:032x}.otlp.json").exists()  # no root: held
    code, stdout, _ = receiver.stop(signal.SIGINT)
    assert code == 0
    assert (receiver.out / f"{2:032x}.otlp.json").exists()  # written at stop, not dropped
    assert "no root span came before the receiver stopped" in stdout


@pytest.mark.parametrize(("body", "headers", "status", "says"), [
    (b"x" * 300_000, {"Content-Type": "application/json"}, 413, "the limit is 200000"),
    (gzip.compress(b" " * 400_000), {"Content-Type": "application/json",
                                     "Content-Encoding": "gzip"}, 413, "decompresses to more"),
    (b"{not json", {"Content-Type": "application/json"}, 400, "not JSON"),
    (b'{"resourceSpans": 3}', {"Content-Type": "application/json"}, 400, "resourceSpans"),
    (b"\xff\xfe", {"Content-Type": "application/x-protobuf"}, 400, "ExportTraceServiceRequest"),
    (b"{}", {"Content-Type": "text/plain"}, 415, "unsupported Content-Type"),
    (b"[" * 5000 + b"]" * 5000, {"Content-Type": "application/json"}, 400, "deep"),
])
def test_bad_requests_are_refused_and_the_receiver_goes_on(
    receiver: Receiver, body: bytes, headers: dict[str, str], status: int, says: str,
) -> None:
    got, text = _post(receiver.url, body, headers)
    assert got == status and says in text, text
    assert _post(receiver.url, _json_request(9), {"Content-Type": "application/json"})[0] == 200
    code, _, stderr = receiver.stop()
    assert code == 0 and "openeval: warning: refused a request" in stderr


def test_only_the_traces_path_is_served(receiver: Receiver) -> None:
    assert _post(receiver.url.replace("/v1/traces", "/v1/logs"), b"{}",
                 {"Content-Type": "application/json"})[0] == 404


@pytest.mark.parametrize("listen", ["0.0.0.0:4318", "10.1.2.3:4318"])
def test_a_remote_address_needs_an_opt_in(tmp_path: Path, listen: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "record", "--listen", listen, "--output",
         str(tmp_path)], capture_output=True, text=True, timeout=30, check=False,
        env={**os.environ},
    )
    assert done.returncode == 2
    assert "pass --allow-remote" in done.stderr and "Traceback" not in done.stderr


def test_jsonl_lines_are_what_openeval_score_reads(tmp_path: Path) -> None:
    lines = tmp_path / "traces.jsonl"
    started = _start(tmp_path, "--jsonl", str(lines))
    try:
        trace_id = _export_agent_run(started.url)
        assert _post(started.url, _json_request(3), {"Content-Type": "application/json"})[0] == 200
    finally:
        code, _, stderr = started.stop()
    assert code == 0, stderr
    assert len(lines.read_text().splitlines()) == 2
    done = subprocess.run([sys.executable, "-m", "openeval", "score", str(lines), "--output",
                           str(tmp_path / "scored")], capture_output=True, text=True,
                          timeout=60, check=False)
    rows = [json.loads(line) for line in
            (tmp_path / "scored" / "results.jsonl").read_text().splitlines()]
    assert len(rows) == 2, done.stderr
    assert trace_id in json.dumps(rows)

"""An OTLP/HTTP trace receiver that writes each finished trace as a file a suite can use.

Any OpenTelemetry-instrumented agent (OpenAI, OpenInference, Strands, Vercel AI, ADK, Pydantic
AI ...) exports to it with ``OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318`` and no
collector. ``POST /v1/traces`` takes OTLP JSON (``application/json``) or protobuf
(``application/x-protobuf``, with the ``record`` extra), optionally gzip-compressed, each body
at most ``max_body_bytes`` before and after decompression. Spans are grouped into traces by
:class:`~openeval.record.collect.TraceCollector`; each finished trace is written as
``<trace id>.otlp.json`` in the output folder (atomically), and/or appended as one line to a
JSON Lines file for ``openeval score``.

The core never prints: :class:`Recorder` reports what it wrote through a callback, and the
command line owns the server's lifetime (signals, the final drain). Design:
proposals/0172-record.md.
"""

from __future__ import annotations

import socket
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO, Any

from openeval.errors import OpenEvalError
from openeval.record.collect import FinishedTrace, TraceCollector

TRACES_PATH = "/v1/traces"
DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024
MAX_DEPTH = 64
"""Deepest JSON nesting a body may have (OTLP needs about ten levels; attribute values more)."""
READ_TIMEOUT_SECONDS = 10.0
"""How long a client may take to send its body before the connection is dropped."""

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")


@dataclass(frozen=True)
class Written:
    """What :class:`Recorder` did with one finished trace."""

    trace: FinishedTrace
    file: Path | None
    """The trace file written, or None when only the JSON Lines file got it."""


class BadRequest(Exception):
    """A request the receiver refuses: its HTTP status and a one-line reason."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


class Recorder:
    """The receiver's state: the collector and where finished traces go. Thread-safe."""

    def __init__(
        self,
        *,
        output: Path | None,
        jsonl: IO[bytes] | None,
        settle_seconds: float = 1.0,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        on_written: Callable[[Written], None] = lambda written: None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if output is None and jsonl is None:
            raise OpenEvalError("record needs somewhere to write: an output folder or a "
                                "JSON Lines file")
        self.output = output
        self.jsonl = jsonl
        self.max_body_bytes = max_body_bytes
        self.on_written = on_written
        self.clock = clock
        self.collector = TraceCollector(settle_seconds)
        self.spans_received = 0
        self.traces_written = 0
        self._lock = threading.Lock()

    def accept(self, body: bytes, content_type: str, encoding: str) -> None:
        """Take one export request body; raise BadRequest when it cannot be read."""
        data = _decompressed(body, encoding, self.max_body_bytes)
        payload = _decoded(data, content_type)
        with self._lock:
            try:
                self.spans_received += self.collector.add(payload, self.clock())
            except OpenEvalError as exc:
                raise BadRequest(400, f"not OTLP trace data: {exc}") from None
            self._write(self.collector.finished(self.clock()))

    def tick(self) -> None:
        """Write the traces that have settled since the last request (call it now and then)."""
        with self._lock:
            self._write(self.collector.finished(self.clock()))

    def drain(self) -> None:
        """Write every trace still held (the receiver is stopping), rooted or not."""
        with self._lock:
            self._write(self.collector.drain())

    def _write(self, traces: Any) -> None:
        from openeval.jsonio import dump_json, dump_json_compact

        for trace in traces:
            file = None
            if self.output is not None:
                from openeval.results.files import write_whole

                file = self.output / f"{trace.trace_id}.otlp.json"
                write_whole(file, dump_json(trace.document))
            if self.jsonl is not None:
                self.jsonl.write(dump_json_compact(trace.document).encode() + b"\n")
                self.jsonl.flush()
            self.traces_written += 1
            self.on_written(Written(trace, file))


def _decompressed(body: bytes, encoding: str, limit: int) -> bytes:
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return body
    if encoding != "gzip":
        raise BadRequest(415, f"unsupported Content-Encoding {encoding[:40]!r}; send gzip or "
                              "none")
    inflater = zlib.decompressobj(wbits=31)
    try:
        data = inflater.decompress(body, limit + 1)
    except zlib.error as exc:
        raise BadRequest(400, f"the gzip body is corrupt: {exc}") from None
    if len(data) > limit or inflater.unconsumed_tail:
        raise BadRequest(413, f"the body decompresses to more than {limit} bytes")
    return data


def _decoded(data: bytes, content_type: str) -> Any:
    kind = content_type.split(";", 1)[0].strip().lower()
    if kind == "application/json":
        from openeval.jsonio import parse_json

        try:
            return parse_json(data, max_depth=MAX_DEPTH)
        except OpenEvalError as exc:
            raise BadRequest(400, f"not JSON: {exc}") from None
    if kind == "application/x-protobuf":
        from openeval.record.protobuf import decode_export_request

        try:
            return decode_export_request(data)
        except OpenEvalError as exc:
            raise BadRequest(400 if "package" not in str(exc) else 415, str(exc)) from None
    raise BadRequest(415, f"unsupported Content-Type {kind[:60]!r}; send application/json or "
                          "application/x-protobuf")


def make_server(
    host: str, port: int, recorder: Recorder,
    on_refused: Callable[[str], None] = lambda reason: None,
) -> ThreadingHTTPServer:
    """Return a server bound to ``host:port`` (port 0: any free one) feeding ``recorder``.

    Raises OpenEvalError when the address cannot be bound.
    """

    class Handler(BaseHTTPRequestHandler):
        server_version = "openeval-record"
        protocol_version = "HTTP/1.1"
        timeout = READ_TIMEOUT_SECONDS

        def do_POST(self) -> None:  # the name http.server looks up
            try:
                self._receive()
            except BadRequest as exc:
                on_refused(f"{exc.status}: {exc.reason}")
                self._answer(exc.status, exc.reason.encode(), "text/plain; charset=utf-8",
                             close=exc.status in (411, 413))
                return
            kind = (self.headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
            if kind == "application/x-protobuf":
                # An empty ExportTraceServiceResponse: zero bytes on the wire.
                self._answer(200, b"", "application/x-protobuf")
            else:
                self._answer(200, b"{}", "application/json")

        def _receive(self) -> None:
            if self.path.split("?", 1)[0] != TRACES_PATH:
                raise BadRequest(404, f"only {TRACES_PATH} is served")
            length_text = self.headers.get("Content-Length")
            if length_text is None or not length_text.strip().isdigit():
                raise BadRequest(411, "a Content-Length header is required")
            length = int(length_text)
            if length > recorder.max_body_bytes:
                raise BadRequest(413, f"the body is {length} bytes; the limit is "
                                      f"{recorder.max_body_bytes} (--max-body-bytes)")
            body = self.rfile.read(length)
            if len(body) != length:
                raise BadRequest(400, "the body ended before its Content-Length")
            recorder.accept(body, self.headers.get("Content-Type") or "",
                            self.headers.get("Content-Encoding") or "")

        def _answer(self, status: int, body: bytes, content_type: str, *,
                    close: bool = False) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            if close:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the command line reports what matters; no access log on stderr

    class Server(ThreadingHTTPServer):
        daemon_threads = True
        allow_reuse_address = True
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET

    try:
        return Server((host, port), Handler)
    except OSError as exc:
        raise OpenEvalError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


def tick_until(stop: threading.Event, recorder: Recorder, every: float) -> None:
    """Call ``recorder.tick()`` every ``every`` seconds until ``stop`` is set (a thread)."""
    while not stop.wait(every):
        recorder.tick()

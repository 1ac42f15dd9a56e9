"""``openeval record --output DIR | --jsonl FILE [--listen HOST:PORT]``: receive OTLP traces.

Runs until SIGINT or SIGTERM, then writes every trace it still holds and exits 0. Listens on
loopback only unless ``--allow-remote`` is given: the receiver has no authentication.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import IO

import click

from openeval.cli._common import command, one_line
from openeval.cli.exit_codes import EXIT_OK
from openeval.errors import OpenEvalError


def _address(text: str, allow_remote: bool) -> tuple[str, int]:
    from openeval.record.receiver import LOOPBACK_HOSTS

    host, sep, port = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise OpenEvalError(f"--listen {text!r}: expected HOST:PORT, e.g. 127.0.0.1:4318")
    if host not in LOOPBACK_HOSTS and not allow_remote:
        raise OpenEvalError(f"--listen {text!r}: not a loopback address; the receiver has no "
                            "authentication, so pass --allow-remote to listen on " + host)
    return host, int(port)


@command()
@click.option("--listen", default="127.0.0.1:4318", show_default=True,
              help="HOST:PORT to listen on (port 0: any free port, printed at start).")
@click.option("--output", "output_dir", type=click.Path(path_type=Path), default=None,
              help="Folder to write each finished trace into, as TRACE_ID.otlp.json.")
@click.option("--jsonl", "jsonl_path", type=click.Path(path_type=Path), default=None,
              help="JSON Lines file to append each finished trace to (for openeval score).")
@click.option("--settle-seconds", type=click.FloatRange(min=0), default=1.0, show_default=True,
              help="How long a trace's root span must have been quiet before it is written.")
@click.option("--max-body-bytes", type=click.IntRange(min=1), default=16 * 1024 * 1024,
              show_default=True, help="Largest request body, before and after gzip.")
@click.option("--allow-remote", is_flag=True,
              help="Allow a --listen address that is not loopback.")
def record(listen: str, output_dir: Path | None, jsonl_path: Path | None,
           settle_seconds: float, max_body_bytes: int, allow_remote: bool) -> None:
    """Receive OpenTelemetry traces over OTLP/HTTP (JSON or protobuf) and write each finished
    trace as a file a suite can use. Point an agent at it with
    OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318."""
    from openeval.record.receiver import Recorder, Written, make_server, tick_until

    if output_dir is None and jsonl_path is None:
        raise OpenEvalError("say where to write: --output DIR and/or --jsonl FILE")
    host, port = _address(listen, allow_remote)
    jsonl: IO[bytes] | None = None
    try:
        if output_dir is not None:
            output_dir.mkdir(parents=True, exist_ok=True)
        if jsonl_path is not None:
            jsonl = jsonl_path.open("ab")
    except OSError as exc:
        raise OpenEvalError(f"cannot write: {exc.strerror}", source=exc.filename) from None

    def written(event: Written) -> None:
        where = event.file if event.file is not None else jsonl_path
        note = "" if event.trace.rooted else " (no root span came before the receiver stopped)"
        click.echo(one_line(f"wrote trace {event.trace.trace_id}: {event.trace.span_count} "
                            f"spans -> {where}{note}"))

    def refused(reason: str) -> None:
        click.echo(one_line(f"openeval: warning: refused a request: {reason}"), err=True)

    recorder = Recorder(output=output_dir, jsonl=jsonl, settle_seconds=settle_seconds,
                        max_body_bytes=max_body_bytes, on_written=written)
    server = make_server(host, port, recorder, refused)
    bound_host, bound_port = str(server.server_address[0]), int(server.server_address[1])
    shown = f"[{bound_host}]" if ":" in bound_host else bound_host

    def stop(signum: int, frame: FrameType | None) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    stopping = threading.Event()
    ticker = threading.Thread(target=tick_until, daemon=True,
                              args=(stopping, recorder, max(settle_seconds / 2, 0.05)))
    ticker.start()
    click.echo(f"recording OTLP traces on http://{shown}:{bound_port}/v1/traces "
               "(Ctrl-C to stop)", err=True)
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        stopping.set()
        ticker.join()
        server.server_close()
        recorder.drain()
        if jsonl is not None:
            jsonl.close()
    click.echo(f"stopped: {recorder.spans_received} spans received, "
               f"{recorder.traces_written} traces written", err=True)
    raise SystemExit(EXIT_OK)

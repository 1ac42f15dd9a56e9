"""Shared by the recording scripts: an in-memory span recorder and the real OTLP serialiser.

Run only by the scripts of this folder, in a venv holding the producers (never by the default
test run): ``opentelemetry-sdk`` and ``opentelemetry-exporter-otlp-proto-common``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

DATA = Path(__file__).resolve().parents[2] / "data" / "adapters"


def recorder(service: str) -> tuple[TracerProvider, InMemorySpanExporter]:
    """Return a tracer provider exporting every finished span to memory."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource({"service.name": service}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider, exporter


def otlp_json(spans: Sequence[ReadableSpan]) -> dict[str, Any]:
    """Return spans as the OTLP exporters and the collector's file exporter write them."""
    return MessageToDict(encode_spans(spans))


def write(path: Path, spans: Sequence[ReadableSpan]) -> None:
    """Write one OTLP/JSON document (``.json``) or one document per trace (``.jsonl``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        by_trace: dict[int, list[ReadableSpan]] = {}
        for span in spans:
            by_trace.setdefault(span.context.trace_id, []).append(span)
        lines = [json.dumps(otlp_json(group), sort_keys=True) for group in by_trace.values()]
        path.write_text("".join(line + "\n" for line in lines))
    else:
        path.write_text(json.dumps(otlp_json(spans), indent=1, sort_keys=True) + "\n")


def write_versions(folder: Path, packages: Sequence[str]) -> None:
    """Record which producer versions wrote the fixtures of ``folder``."""
    lines = [f"{name}=={metadata.version(name)}" for name in packages]
    (folder / "versions.txt").write_text("".join(line + "\n" for line in lines))


def record_each(script: str, record: Callable[[str], None],
                environments: Mapping[str, Mapping[str, str]], folder: Path,
                packages: Sequence[str]) -> None:
    """A recording script's entry point: given a recording name, ``record`` it in this process;
    given none, run ``script`` once per recording name, each in a process of its own with those
    environment variables set (the producers read their switches once, when imported), then
    write the ``packages``' versions into ``folder``."""
    if len(sys.argv) > 1:
        record(sys.argv[1])
        return
    for recording, environment in environments.items():
        subprocess.run([sys.executable, script, recording], env={**os.environ, **environment},
                       check=True)
    write_versions(folder, packages)

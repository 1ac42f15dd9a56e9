"""Memory and speed of reading large traces (not collected by pytest).

Run: ``.venv/bin/python benchmarks/bench_io.py [--mib 128]``. Generates, under a temporary
folder in /tmp that is removed afterwards, a Fixtura JSON Lines trace of about ``--mib``
MiB (and the same events as a zstd ``.trace``, one frame per line as Fixtura writes it), then
measures each step in a fresh interpreter, so every figure is the growth of peak RSS over an
interpreter that has already imported OpenEval:

- format detection of the plain JSONL (must stream: never read the file whole);
- ``load_trace`` of the plain JSONL and of the zstd trace, against their decompressed size;
- a zstd stream of blank lines, read until the decompressed-size limit stops it (MiB/s);
- ``load_trace`` of two native JSON traces of about ``--native-mib`` MiB (many steps with
  text; one big ``actual_state`` of small values, the worst shape for Python objects), typed
  (msgspec, what ``load_trace`` does) and through the general reader (orjson, schema, model);
- ``load_trace`` of one native trace of about ``--shape-mib`` MiB per hostile shape of its
  ``actual_state`` (:data:`SHAPES`), and of one just over the default ``max_json_values``
  (proposals/0290). ``--native-only`` measures only the native traces and the shapes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MiB = 1 << 20

_MEASURE = textwrap.dedent(
    """
    import resource, sys, time
    from pathlib import Path
    import zstandard  # imported before the baseline: only reading is measured
    from openeval.adapters import detect_format, load_trace
    from openeval.adapters.base import LoadOptions, TraceSource
    what, path = sys.argv[1], Path(sys.argv[2])
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.process_time()
    outcome = "ok"
    try:
        if what == "detect":
            outcome = detect_format(TraceSource(path)).name
        elif what == "general":  # the reader without the typed native path
            source = TraceSource(path)
            trace = detect_format(source).load(source)
            outcome = f"{len(trace.steps)} steps"
        else:
            options = LoadOptions(max_decompressed_bytes=limit) if limit else None
            trace = load_trace(path, options=options)
            outcome = f"{len(trace.steps)} steps"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {getattr(exc, 'message', exc)}"
    seconds = time.process_time() - start  # CPU: on a shared machine wall time is noise
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{(after - before) * 1024}\\t{seconds:.2f}\\t{outcome}")
    """
)


def _event(index: int, payload: str) -> bytes:
    import orjson

    step_id = f"step-{index + 1:06d}"
    if index % 4 == 0:
        event = {
            "event_type": "llm_call", "step_id": step_id, "timestamp": 1.7e9 + index,
            "prompt": "next", "completion": payload, "provider": "anthropic",
            "model": "claude-sonnet-4-5", "input_tokens": 900, "output_tokens": 120,
            "finish_reason": "tool_use", "latency_ms": 420,
        }
    else:
        event = {
            "event_type": "tool_call", "step_id": step_id, "timestamp": 1.7e9 + index,
            "tool_name": "sqlite_tool", "arguments": {"operation": "read", "query": "SELECT 1"},
            "permission_decision": "allowed", "response": {"rows": payload},
            "latency_ms": 12,
        }
    return orjson.dumps(event) + b"\n"


def generate(folder: Path, mib: int) -> tuple[Path, Path]:
    """Write ``run.jsonl`` (about ``mib`` MiB) and ``run.trace`` (the same, zstd frames)."""
    import zstandard

    payload = "x" * 4000  # ~4 KB per event: a large but realistic tool response
    plain, packed = folder / "run.jsonl", folder / "run.trace"
    compressor = zstandard.ZstdCompressor(level=1)
    written = index = 0
    with plain.open("wb") as lines, packed.open("wb") as frames:
        lines.write(b'{"event_type": "trace_header", "schema_version": 1}\n')
        while written < mib * MiB:
            line = _event(index, payload)
            lines.write(line)
            frames.write(compressor.compress(line))
            written += len(line)
            index += 1
    return plain, packed


def native(folder: Path, mib: int) -> tuple[Path, Path]:
    """Write two native trace documents of about ``mib`` MiB: ``steps.json`` (tool calls and
    model turns with text) and ``state.json`` (few steps, an ``actual_state`` of small values)."""
    import orjson

    steps: list[dict[str, object]] = []
    size = index = 0
    while size < mib * MiB:
        if index % 2:
            step: dict[str, object] = {
                "step_id": index, "type": "tool_call", "tool_name": "sqlite",
                "tool_args": {"query": f"SELECT * FROM t WHERE id = {index}", "limit": 10},
                "tool_result": "row " * 200, "timestamp": 1.7e9 + index, "turn": index // 2}
        else:
            step = {"step_id": index, "type": "thought", "content": "thinking " * 20,
                    "timestamp": 1.7e9 + index, "provider": "openai", "model": "gpt-4o",
                    "tokens": {"input": 900, "output": 120}, "latency_ms": 420.5,
                    "turn": index // 2}
        steps.append(step)
        size += len(orjson.dumps(step))
        index += 1
    many = folder / "steps.json"
    many.write_bytes(orjson.dumps({"task_id": "steps", "steps": steps}))
    rows = [{"id": i, "qty": i % 7, "ok": True} for i in range(mib * MiB // 30)]
    state = folder / "state.json"
    state.write_bytes(orjson.dumps({"task_id": "state", "steps": [],
                                    "actual_state": {"rows": rows}}))
    return many, state


SHAPES: dict[str, bytes] = {
    "empty objects": b"{}",
    "empty lists": b"[]",
    "zeros": b"0",
    "one-letter strings": b'"a"',
    "escaped quotes": b'"\\"\\\\"',
    "150 nested lists": b"[" * 150 + b"]" * 150,
}
"""The items of the hostile shapes: each repeated in one list of a trace's ``actual_state``."""


def shapes(folder: Path, mib: int) -> list[Path]:
    """Write one native trace of about ``mib`` MiB per shape in :data:`SHAPES`, plus
    ``over-the-cap.json``: one more value than the default ``max_json_values``."""
    from openeval.io import limits

    # A build from before the cap reads it too: the cap it did not have is the one to compare.
    cap: int = getattr(limits, "DEFAULT_MAX_JSON_VALUES", 10_000_000)

    def write(name: str, item: bytes, count: int) -> Path:
        path = folder / f"{name.replace(' ', '-')}.json"
        path.write_bytes(b'{"task_id":"shape","steps":[],"actual_state":{"v":['
                         + b",".join([item] * count) + b"]}}")
        return path

    written = [write(name, item, mib * MiB // (len(item) + 1)) for name, item in SHAPES.items()]
    # Six values beside the zeros (the document, task_id, the empty steps counted twice,
    # actual_state and its list): one over the cap.
    written.append(write("over the cap", b"0", cap - 5))
    return written


def blank_bomb(folder: Path, mib: int) -> Path:
    """Write ``mib`` MiB of newlines as one zstd stream (a few KiB on disk)."""
    import zstandard

    path = folder / "blank.trace"
    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    with path.open("wb") as out:
        out.write(compressor.compress(b'{"event_type": "trace_header"}\n'))
        block = b"\n" * MiB
        for _ in range(mib):
            out.write(compressor.compress(block))
        out.write(compressor.flush())
    return path


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT)}


def measure(what: str, path: Path, limit: int | None = None) -> tuple[float, float, str]:
    """Return (peak RSS growth in MiB, CPU seconds, outcome) of one read, in a fresh interpreter."""
    env = _env()
    args = [sys.executable, "-c", _MEASURE, what, str(path)]
    if limit is not None:
        args.append(str(limit))
    done = subprocess.run(args, capture_output=True, text=True, check=True, env=env)
    growth, seconds, outcome = done.stdout.strip().split("\t", 2)
    return int(growth) / MiB, float(seconds), outcome


Row = tuple[str, float, float, float, str]


def _jsonl_rows(folder: Path, mib: int, blank_mib: int) -> list[Row]:
    plain, packed = generate(folder, mib)
    bomb = blank_bomb(folder, blank_mib)
    size = plain.stat().st_size / MiB
    rows: list[Row] = [
        ("detect plain JSONL", size, *measure("detect", plain)),
        ("load_trace plain JSONL", size, *measure("load", plain)),
        ("load_trace zstd .trace", size, *measure("load", packed)),
    ]
    limit = (blank_mib // 2) * MiB
    growth, seconds, outcome = measure("load", bomb, limit)
    rows.append((f"blank-line bomb to a {limit // MiB} MiB limit", limit / MiB, growth,
                 seconds, f"{limit / MiB / max(seconds, 1e-9):.0f} MiB/s; {outcome}"))
    return rows


def main() -> None:
    """Generate the inputs, measure, print one table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=128, help="size of the generated JSONL")
    parser.add_argument("--native-mib", type=int, default=50,
                        help="size of each generated native JSON trace")
    parser.add_argument("--blank-mib", type=int, default=512,
                        help="decompressed size of the blank-line bomb")
    parser.add_argument("--shape-mib", type=int, default=16,
                        help="size of each generated hostile shape")
    parser.add_argument("--native-only", action="store_true",
                        help="measure only the native JSON traces and the hostile shapes")
    parser.add_argument("--write-native", type=Path, metavar="FOLDER", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.write_native:
        native(args.write_native, args.native_mib)
        shapes(args.write_native, args.shape_mib)
        return
    with tempfile.TemporaryDirectory(dir="/tmp", prefix="openeval-bench-io-") as tmp:
        folder = Path(tmp)
        rows = [] if args.native_only else _jsonl_rows(folder, args.mib, args.blank_mib)
        # Written by a child: what the writer held would otherwise count in each measuring
        # interpreter's peak (a forked child starts with its parent's peak RSS).
        subprocess.run([sys.executable, __file__, "--write-native", str(folder),
                        "--native-mib", str(args.native_mib), "--shape-mib",
                        str(args.shape_mib)], check=True, env=_env())
        for path in (folder / "steps.json", folder / "state.json"):
            content = path.stat().st_size / MiB
            for how, what in (("typed", "load"), ("general", "general")):
                growth, seconds, outcome = measure(what, path)
                rows.append((f"load_trace native {path.stem}.json, {how}", content, growth,
                             seconds, f"{growth / content:.1f}x its size; {outcome}"))
        for path in sorted(folder.glob("*.json")):
            if path.stem in ("steps", "state"):
                continue
            content = path.stat().st_size / MiB
            growth, seconds, outcome = measure("load", path)
            rows.append((f"load_trace shape {path.stem}", content, growth, seconds,
                         f"{growth / content:.1f}x its size; {outcome[:60]}"))
    print(f"{'measure':44} {'content MiB':>11} {'peak RSS +MiB':>13} {'CPU s':>8}  outcome")
    for name, content, growth, seconds, outcome in rows:
        print(f"{name:44} {content:11.0f} {growth:13.0f} {seconds:8.2f}  {outcome}")


if __name__ == "__main__":
    main()

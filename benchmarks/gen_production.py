"""Generate N production-like traces for ``openeval score``: mixed formats, 2-40 steps each.

Writes JSON Lines files into a folder (never into the repository: use /tmp), one format per
file, in turn: native traces, OpenAI and Anthropic wrapper objects ``{"task_id", "messages"}``,
OTel collector exports (spans of several traces interleaved over lines, grouped by traceId
when read) and LangSmith flat runs (linked by ``trace_id``); one file in four is zstd. The
traces are deterministic for a given N and seed. A few per thousand carry a PII leak, a
refusal, a tool loop or a failed tool call, so every default check has something to find.

    python benchmarks/gen_production.py 1000000 /tmp/production
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

FORMATS = ("native", "openai", "anthropic", "otel", "langsmith")
TRACES_PER_FILE = 20_000
TOOLS = ("search_orders", "get_weather", "lookup_customer", "issue_refund", "send_email")


def _calls(rng: random.Random, steps: int) -> list[tuple[str, dict[str, Any], str, bool]]:
    """Return ``(tool, args, result, failed)`` for each tool call of a trace of ``steps``."""
    calls = []
    loop = rng.random() < 0.004
    for i in range(max(1, steps // 2)):
        tool = TOOLS[rng.randrange(len(TOOLS))] if not (loop and i) else calls[0][0]
        args = calls[0][1] if loop and i else {"id": rng.randrange(10**6), "query": f"q{i}",
                                                "filters": {"limit": rng.randrange(1, 50)}}
        failed = rng.random() < 0.01
        result = "error: upstream timeout" if failed else f"ok: {rng.randrange(1000)} rows"
        calls.append((tool, args, result, failed))
    return calls


def _answer(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.003:
        return "Sure, write to jane.doe@corp-mail.net or call +1 415 555 0134."
    if roll < 0.006:
        return "I'm sorry, but I can't help with that request."
    return "Done: your order ships tomorrow. " + "Details follow. " * rng.randrange(1, 8)


def native(rng: random.Random, tid: str, steps: int) -> list[bytes]:
    out = []
    n = 1
    for tool, args, result, failed in _calls(rng, steps):
        out.append({"step_id": n, "type": "thought", "content": f"calling {tool}",
                    "tokens": {"input": 300, "output": 40}, "latency_ms": 420.0})
        out.append({"step_id": n + 1, "type": "tool_call", "tool_name": tool, "tool_args": args,
                    "tool_result": None if failed else result,
                    "error": result if failed else None})
        n += 2
    trace = {"task_id": tid, "input": "Where is my order?", "steps": out,
             "final_output": _answer(rng), "metadata": {"trace_id": tid}}
    return [orjson.dumps(trace)]


def openai(rng: random.Random, tid: str, steps: int) -> list[bytes]:
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are a support agent."},
        {"role": "user", "content": "Where is my order?"},
    ]
    for i, (tool, args, result, _) in enumerate(_calls(rng, steps)):
        call_id = f"call_{i}"
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function",
             "function": {"name": tool, "arguments": orjson.dumps(args).decode()}}]})
        messages.append({"role": "tool", "tool_call_id": call_id, "content": result})
    messages.append({"role": "assistant", "content": _answer(rng)})
    return [orjson.dumps({"task_id": tid, "messages": messages})]


def anthropic(rng: random.Random, tid: str, steps: int) -> list[bytes]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Where is my order?"}]
    for i, (tool, args, result, failed) in enumerate(_calls(rng, steps)):
        call_id = f"toolu_{i}"
        messages.append({"role": "assistant", "content": [
            {"type": "text", "text": f"Checking {tool}."},
            {"type": "tool_use", "id": call_id, "name": tool, "input": args}]})
        messages.append({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": call_id, "content": result,
             "is_error": failed}]})
    messages.append({"role": "assistant", "content": [{"type": "text", "text": _answer(rng)}]})
    return [orjson.dumps({"task_id": tid, "messages": messages})]


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _otel_spans(rng: random.Random, trace_hex: str, steps: int) -> list[dict[str, Any]]:
    base = 1_795_000_000_000_000_000 + rng.randrange(10**12)
    root = f"{rng.getrandbits(64):016x}"
    spans = []
    t = base
    for i, (tool, args, result, failed) in enumerate(_calls(rng, steps)):
        spans.append({"traceId": trace_hex, "spanId": f"{rng.getrandbits(64):016x}",
                      "parentSpanId": root, "name": "chat gpt-4o", "kind": 1,
                      "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 300_000_000),
                      "attributes": [_attr("gen_ai.operation.name", "chat"),
                                     _attr("gen_ai.request.model", "gpt-4o"),
                                     _attr("gen_ai.usage.input_tokens", 300),
                                     _attr("gen_ai.usage.output_tokens", 40)]})
        t += 310_000_000
        spans.append({"traceId": trace_hex, "spanId": f"{rng.getrandbits(64):016x}",
                      "parentSpanId": root, "name": f"execute_tool {tool}", "kind": 1,
                      "startTimeUnixNano": str(t), "endTimeUnixNano": str(t + 100_000_000),
                      "status": {"code": 2, "message": result} if failed else {},
                      "attributes": [_attr("gen_ai.operation.name", "execute_tool"),
                                     _attr("gen_ai.tool.name", tool),
                                     _attr("gen_ai.tool.call.id", f"call_{i}"),
                                     _attr("gen_ai.tool.call.arguments",
                                           orjson.dumps(args).decode()),
                                     _attr("gen_ai.tool.call.result", result)]})
        t += 110_000_000
    answer = orjson.dumps([{"role": "assistant",
                            "parts": [{"type": "text", "content": _answer(rng)}]}]).decode()
    question = orjson.dumps([{"role": "user", "parts": [
        {"type": "text", "content": "Where is my order?"}]}]).decode()
    spans.append({"traceId": trace_hex, "spanId": root, "name": "invoke_agent support",
                  "kind": 1, "startTimeUnixNano": str(base), "endTimeUnixNano": str(t),
                  "attributes": [_attr("gen_ai.operation.name", "invoke_agent"),
                                 _attr("gen_ai.agent.name", "support"),
                                 _attr("gen_ai.input.messages", question),
                                 _attr("gen_ai.output.messages", answer)]})
    return spans


def _otlp_line(spans: list[dict[str, Any]]) -> bytes:
    return orjson.dumps({"resourceSpans": [{
        "resource": {"attributes": [_attr("service.name", "support-agent")]},
        "scopeSpans": [{"scope": {"name": "agent"}, "spans": spans}]}]})


def langsmith(rng: random.Random, tid: str, steps: int) -> list[bytes]:
    root_id = f"{tid}-root"
    lines = []
    start = 1_700_000_000.0 + rng.randrange(10**6)
    for i, (tool, args, result, failed) in enumerate(_calls(rng, steps)):
        lines.append({"id": f"{tid}-llm{i}", "trace_id": tid, "parent_run_id": root_id,
                      "name": "ChatOpenAI", "run_type": "llm", "start_time": start + i,
                      "end_time": start + i + 0.3, "inputs": {"prompts": ["Where?"]},
                      "outputs": {"generations": [[{"text": f"calling {tool}"}]]},
                      "dotted_order": f"{i:04d}a"})
        lines.append({"id": f"{tid}-tool{i}", "trace_id": tid, "parent_run_id": root_id,
                      "name": tool, "run_type": "tool", "start_time": start + i + 0.4,
                      "end_time": start + i + 0.5, "inputs": {"input": orjson.dumps(args).decode()},
                      "outputs": None if failed else {"output": result},
                      "error": result if failed else None, "dotted_order": f"{i:04d}b"})
    lines.append({"id": root_id, "trace_id": tid, "parent_run_id": None, "name": "agent",
                  "run_type": "chain", "start_time": start, "end_time": start + steps,
                  "inputs": {"input": "Where is my order?"},
                  "outputs": {"output": _answer(rng)}})
    return [orjson.dumps(line) for line in lines]


def _lines(fmt: str, rng: random.Random, first: int, count: int) -> Iterator[bytes]:
    """Yield the lines of one file holding traces ``first`` .. ``first + count - 1``."""
    if fmt == "otel":
        # Two traces per pair of lines, interleaved: a collector export mixes them.
        ids = range(first, first + count)
        for a, b in zip(ids[::2], ids[1::2], strict=False):
            sa = _otel_spans(rng, f"{a:032x}", rng.randrange(2, 41))
            sb = _otel_spans(rng, f"{b:032x}", rng.randrange(2, 41))
            ha, hb = len(sa) // 2, len(sb) // 2
            yield _otlp_line(sa[:ha] + sb[:hb])
            yield _otlp_line(sa[ha:] + sb[hb:])
        if count % 2:
            yield _otlp_line(_otel_spans(rng, f"{first + count - 1:032x}", 4))
        return
    make: Callable[[random.Random, str, int], list[bytes]] = {
        "native": native, "openai": openai, "anthropic": anthropic, "langsmith": langsmith,
    }[fmt]
    for n in range(first, first + count):
        yield from make(rng, f"t{n:09d}", rng.randrange(2, 41))


def generate(total: int, folder: Path, seed: int = 14, per_file: int = TRACES_PER_FILE) -> int:
    """Write ``total`` traces into ``folder``; return the number of files written."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    done = files = 0
    while done < total:
        fmt = FORMATS[files % len(FORMATS)]
        count = min(per_file, total - done)
        compressed = files % 4 == 3
        path = folder / f"part-{files:05d}-{fmt}.jsonl{'.zst' if compressed else ''}"
        data = b"".join(line + b"\n" for line in _lines(fmt, rng, done, count))
        if compressed:
            import zstandard

            data = zstandard.ZstdCompressor(level=3).compress(data)
        path.write_bytes(data)
        done += count
        files += 1
    return files


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--per-file", type=int, default=TRACES_PER_FILE)
    args = parser.parse_args()
    files = generate(args.count, args.folder, args.seed, args.per_file)
    print(f"{args.count} traces in {files} files under {args.folder}")


if __name__ == "__main__":
    main()

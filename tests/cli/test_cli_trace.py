"""``openeval convert``, ``inspect`` and ``snapshot`` through the real click group."""

from __future__ import annotations

import os
import re
from pathlib import Path

import orjson
import pytest
from builders import invoke

from openeval.adapters import load_trace
from openeval.cli.exit_codes import EXIT_OK, EXIT_USAGE
from openeval.jsonio import dump_json
from openeval.metrics import all_metrics
from openeval.testcase_file import load_test_case

DATA = Path(__file__).parent.parent / "data" / "adapters" / "otel"
WEATHER = DATA / "weather_agent.otlp.json"
REFUND = DATA / "refund_errors.otlp.jsonl"


def test_convert_to_stdout_is_the_canonical_trace() -> None:
    result = invoke(["convert", str(WEATHER)], EXIT_OK)
    assert result.stdout_bytes == dump_json(load_trace(WEATHER).to_dict())


def test_convert_to_file_then_reads_back_as_native(tmp_path: Path) -> None:
    out = tmp_path / "out" / "trace.json"
    invoke(["convert", str(REFUND), "--format", "otel", "-o", str(out)], EXIT_OK)
    assert load_trace(out, "native") == load_trace(REFUND)


def test_inspect_plain_text_lists_every_step_and_flag() -> None:
    result = invoke(["inspect", str(REFUND)], EXIT_OK)
    lines = result.output.splitlines()
    assert lines[0] == "refund_errors: 5 step(s), 3 tool call(s), 0 denied, 2 with errors"
    assert lines[1].split() == ["step", "type", "tool/model", "args/content", "result", "flags"]
    rows = [line.split()[:3] for line in lines[2:-1]]
    assert rows == [
        ["user", "Refund", "order"],  # the user's message, before the turn answering it
        ["1", "thought", "claude-sonnet-4"], ["2", "tool_call", "lookup_order"],
        ["3", "tool_call", "issue_refund"], ["4", "thought", "claude-sonnet-4"],
        ["5", "tool_call", "issue_refund"],
    ]
    assert re.split(r"\s{2,}", lines[5])[-2:] == ["payment gateway timeout", "error"]
    assert lines[-1] == "final output: (none)"  # a tool ran after the last words
    assert "\x1b[" not in result.output


def test_snapshot_writes_a_case_that_passes_on_its_trace(tmp_path: Path) -> None:
    out = tmp_path / "case" / "testcase.json"
    invoke(["snapshot", str(REFUND), "-o", str(out), "--task-id", "refund"], EXIT_OK)
    case = load_test_case(out)
    assert case.task_id == "refund"
    assert case.max_steps == 3
    # Both refund attempts failed (gateway timeouts): a failed call is not a made call.
    assert [c["tool"] for c in case.expected_tool_calls] == ["lookup_order"]
    assert case.trace is not None
    trace_file = (out.parent / case.trace).resolve()
    assert trace_file == REFUND.resolve()
    trace = load_trace(trace_file)
    assert all(m.score(trace, case).passed is not False for m in all_metrics())


def test_snapshot_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    out = tmp_path / "testcase.json"
    out.write_text("{}")
    result = invoke(["snapshot", str(WEATHER), "-o", str(out)], EXIT_USAGE)
    assert result.stderr == f"openeval: error: {out}: already exists; use --force to overwrite\n"
    assert out.read_text() == "{}"
    invoke(["snapshot", str(WEATHER), "-o", str(out), "--force"], EXIT_OK)
    written = orjson.loads(out.read_bytes())["trace"]
    assert written == Path(os.path.relpath(WEATHER.resolve(), tmp_path.resolve())).as_posix()


BAD_JSONL = b'{"resourceSpans": []}\n{"resourceSpans": [{"scopeSpans": 3}]}\n'


@pytest.mark.parametrize("command", ["convert", "inspect", "snapshot"])
@pytest.mark.parametrize(
    ("name", "content", "extra", "message"),
    [
        ("missing.json", None, [], "{path}: file not found"),
        ("bad.jsonl", BAD_JSONL, [],
         "{path}: line 2: resourceSpans[0].scopeSpans: expected a list, got a number"),
        ("x.json", b"[1, 2", [], "{path}: line 1 column 6: invalid JSON"),
        ("x.json", b"[1, 2]", [], "{path}: not a trace format OpenEval knows"),
        ("y.json", b"[1, 2", ["--format", "otel"], "{path}: line 1 column 6: invalid JSON"),
        ("ok.json", None, ["--format", "nope"], "unknown trace format 'nope'"),
    ],
)
def test_unreadable_traces_exit_2_with_one_line(
    tmp_path: Path, command: str, name: str, content: bytes | None, extra: list[str],
    message: str,
) -> None:
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    elif name == "ok.json":
        path.write_bytes(WEATHER.read_bytes())
    args = [command, str(path), *extra]
    if command == "snapshot":
        args += ["-o", str(tmp_path / "case.json")]
    result = invoke(args, EXIT_USAGE)
    assert result.stderr.startswith("openeval: error: ")
    assert message.format(path=path) in result.stderr
    assert result.stderr.count("\n") == 1
    assert "Traceback" not in result.output
    assert not (tmp_path / "case.json").exists()


def test_inspect_draws_a_rich_table_on_a_terminal() -> None:
    import subprocess
    import sys

    master, slave = os.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", "from openeval.cli import main; main()", "inspect",
             str(WEATHER)],
            stdout=slave, stderr=subprocess.PIPE, env={**os.environ, "COLUMNS": "160"},
            timeout=60, check=False,
        )
        os.close(slave)
        chunks = []
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(master)
    screen = b"".join(chunks).decode()
    assert proc.returncode == EXIT_OK, proc.stderr
    assert "┃" in screen or "│" in screen
    assert "get_weather" in screen and "gpt-4o-2024-08-06" in screen


TOUR = Path(__file__).parents[2] / "examples" / "tour"
AMOUNT = TOUR / "02-refund-amount-as-string"


def test_inspect_wide_cuts_nothing(tmp_path: Path) -> None:
    long = "a refund for the damaged blender, " * 8
    trace = tmp_path / "trace.json"
    trace.write_bytes(dump_json({"task_id": "t", "steps": [
        {"step_id": 1, "type": "tool_call", "tool_name": "refund", "tool_args": {"note": long},
         "tool_result": long}]}))
    cut = invoke(["inspect", str(trace)], EXIT_OK).output
    wide = invoke(["inspect", str(trace), "--wide"], EXIT_OK).output
    assert long.strip() not in cut and "..." in cut
    assert f'{{"note":"{long.strip()}"}}' in wide.replace(long, long.strip())
    assert wide.count(long.strip()) == 2  # the arguments and the result, whole


def test_inspect_json_is_one_document_with_the_same_bytes_every_time() -> None:
    first = invoke(["inspect", str(REFUND), "--json"], EXIT_OK).stdout_bytes
    assert invoke(["inspect", str(REFUND), "--json"], EXIT_OK).stdout_bytes == first
    trace = load_trace(REFUND)
    assert orjson.loads(first) == {"task_id": trace.task_id, "final_output": trace.final_output,
                                   "steps": [s.to_dict() for s in trace.steps]}


def test_inspect_testcase_shows_the_expected_calls_beside_the_executed_ones() -> None:
    result = invoke(["inspect", str(AMOUNT / "trace.json"), "--testcase",
                     str(AMOUNT / "testcase.json")], EXIT_OK)
    lines = result.output.splitlines()
    start = lines.index("expected vs executed calls (argument_correctness)")
    assert [re.split(r"\s{2,}", line) for line in lines[start + 1:start + 4]] == [
        ["#", "expected", "executed", "status", "differences"],
        ["1", "lookup_order", "step 1 lookup_order", "matched"],
        ["2", "refund_order", "step 2 refund_order", "args differ <- first divergence",
         'amount: expected 42.5, got "42.50"'],
    ]
    assert lines[start + 4].startswith("expected argument values matched: 2/3")
    document = orjson.loads(invoke(["inspect", str(AMOUNT / "trace.json"), "--json",
                                    "--testcase", str(AMOUNT / "testcase.json")],
                                   EXIT_OK).stdout_bytes)
    assert document["testcase"]["first_divergence"] == {
        "row": 1, "expected": 1, "step_id": 2, "tool": "refund_order", "status": "args differ"}


def test_inspect_testcase_escapes_what_the_trace_says(tmp_path: Path) -> None:
    hostile = "evil\x1b[2J\n::error ::forged"
    trace = tmp_path / "trace.json"
    trace.write_bytes(dump_json({"task_id": "t", "steps": [
        {"step_id": 1, "type": "tool_call", "tool_name": hostile, "tool_args": {"q": hostile}}]}))
    case = tmp_path / "testcase.json"
    case.write_bytes(dump_json({"task_id": "t", "expected_tool_calls": [
        {"tool": hostile, "args": {"q": "x"}}], "trajectory": {"mode": "strict"}}))
    output = invoke(["inspect", str(trace), "--testcase", str(case), "--wide"], EXIT_OK).output
    assert "\x1b" not in output
    assert not any(line.startswith("::error") for line in output.splitlines())
    assert "args differ <- first divergence" in output and "\\x1b[2J\\x0a::error" in output


def test_inspect_with_a_broken_test_case_exits_2_naming_it(tmp_path: Path) -> None:
    case = tmp_path / "testcase.json"
    case.write_bytes(b'{"task_id": "t", "trajectory": {"mode": "strcit"}}')
    result = invoke(["inspect", str(REFUND), "--testcase", str(case)], EXIT_USAGE)
    assert result.stderr.count("\n") == 1
    assert f"{case}: trajectory.mode" in result.stderr and "strcit" in result.stderr


ADAPTERS = Path(__file__).parents[1] / "data" / "adapters"
CONVERSATIONS = [
    # id, recorded fixture, (type, tool or text) of each row in order
    ("anthropic-second-request", "anthropic/second_request.json", [
        ("user", "Book a table for 10 at 19:00."), ("thought", "Booked a table for 10 at 19:00."),
        ("user", "Actually, make it 11 instead."), ("thought", "I'll change it to 11 now."),
        ("tool_call", "change_booking"), ("thought", "Done: the table is for 11.")]),
    ("openai-chat-second-request", "openai/chat_second_request.json", [
        ("user", "Refund 10 EUR on order 1042."), ("thought", "I'll refund order 1042 now."),
        ("tool_call", "refund"), ("thought", "Refunded 10 EUR on order 1042."),
        ("user", "Actually, make it 11 instead."), ("thought", ""), ("tool_call", "refund"),
        ("thought", "")]),
    # The server search ran, then the model spoke, then it asked for save_note: that order.
    ("anthropic-text-between-calls", "anthropic/message_log.json", [
        ("user", "Weather in Berlin? Save it."), ("tool_call", "web_search"),
        ("thought", "It is 3 C in Berlin."), ("tool_call", "save_note"), ("thought", "Saved.")]),
    ("responses-message-after-its-call", "openai/response_object.json", [
        ("tool_call", "web_search"), ("thought", "It was released today.")]),
]


@pytest.mark.parametrize(("fixture", "expected"), [c[1:] for c in CONVERSATIONS],
                         ids=[c[0] for c in CONVERSATIONS])
def test_inspect_shows_every_user_turn_and_each_turn_in_recorded_order(
    fixture: str, expected: list[tuple[str, str]]
) -> None:
    from openeval.cli.trace import conversation_rows

    rows = conversation_rows(load_trace(ADAPTERS / fixture), wide=True)
    assert [(row[1], row[2] if row[1] == "tool_call" else row[3]) for row in rows] == expected
    printed = invoke(["inspect", str(ADAPTERS / fixture), "--wide"], EXIT_OK).output
    users = [text for kind, text in expected if kind == "user"]
    assert [line.split(None, 1)[1] for line in printed.splitlines()
            if line.startswith("      user")] == users

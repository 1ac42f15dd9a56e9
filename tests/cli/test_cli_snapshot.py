"""``openeval snapshot`` with trajectory modes and volatile values, checked through ``openeval
run``: the case it writes passes on its own trace in every mode, still passes when only the
volatile values change, and fails when a value that matters changes (the booked time of the
calendar run, a second booking)."""

from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from builders import invoke

from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.matching.trajectory import TRAJECTORY_MODES
from openeval.testcase_file import load_test_case

DATA = Path(__file__).parent.parent / "data" / "snapshot"
BOOKING = DATA / "booking.trace.json"
CALENDAR = DATA / "calendar.trace.json"


def _snapshot(tmp_path: Path, *flags: str) -> Path:
    out = tmp_path / "case" / "testcase.json"
    invoke(["snapshot", str(BOOKING), "-o", str(out), "--force", *flags], EXIT_OK)
    return out


def _trace_with(tmp_path: Path, change: Any) -> Path:
    document = orjson.loads(BOOKING.read_bytes())
    edited = copy.deepcopy(document)
    change(edited)
    assert edited != document
    path = tmp_path / "edited.trace.json"
    path.write_bytes(orjson.dumps(edited))
    return path


def _run(trace: Path, case: Path, code: int) -> dict[str, str]:
    """Return ``{metric: "pass"|"fail"|"n.a."}`` from ``openeval run``'s per-metric lines."""
    result = invoke(["run", "--trace", str(trace), "--testcase", str(case)], code)
    verdicts = {}
    for line in result.stdout.splitlines():
        words = line.split()
        if len(words) >= 2 and words[0] in {"pass", "fail", "n.a."}:
            verdicts[words[1]] = words[0]
    return verdicts


def _new_volatile_values(trace: dict[str, Any]) -> None:
    steps = trace["steps"]
    steps[1]["tool_args"]["requested_at"] = "2026-02-12T17:03:11.004Z"
    steps[1]["tool_args"]["booking_id"] = "0b9e3c1a-7f2d-4e6b-a5c4-3d2e1f0a9b8c"
    steps[4]["tool_args"]["idempotency_key"] = "1e0c7a9b3f5d2e4c6a8b0d1f3e5c7a9b"
    steps[5]["tool_args"]["trace"] = {"span_id": "77aa0c3b9e1d5f24",
                                      "sent_at": "2026-02-12T17:03:12Z"}
    trace["actual_state"]["booking"]["updated_at"] = "2026-02-12T17:03:12Z"
    trace["actual_state"]["refund"]["ledger_ref"] = "aa0b1c2d3e4f5a6b7c8d9e0f"


def _parallel_calls_swapped(trace: dict[str, Any]) -> None:
    steps = trace["steps"]
    steps[1], steps[2] = steps[2], steps[1]


def _other_amount(trace: dict[str, Any]) -> None:
    trace["steps"][5]["tool_args"]["amount"] = 5.99


def _other_date(trace: dict[str, Any]) -> None:
    trace["actual_state"]["booking"]["date"] = "2026-03-02"


@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
def test_the_written_case_passes_on_its_trace_and_on_a_rerun(tmp_path: Path, mode: str) -> None:
    case = _snapshot(tmp_path, "--mode", mode, "--ignore-args", "*_id", "--ignore-args", "trace.*")
    assert load_test_case(case).trajectory == {"mode": mode, "ignore_args": ["*_id", "trace.*"]}
    verdicts = _run(BOOKING, case, EXIT_OK)
    assert verdicts["trajectory_match"] == "pass"
    assert "fail" not in verdicts.values()
    rerun = _trace_with(tmp_path, _new_volatile_values)
    assert "fail" not in _run(rerun, case, EXIT_OK).values()


def test_strict_allows_the_calls_of_one_turn_in_any_order(tmp_path: Path) -> None:
    case = _snapshot(tmp_path, "--mode", "strict")
    swapped = _trace_with(tmp_path, _parallel_calls_swapped)
    assert _run(swapped, case, EXIT_OK)["trajectory_match"] == "pass"


@pytest.mark.parametrize("mode", TRAJECTORY_MODES)
def test_a_changed_argument_fails_the_trajectory(tmp_path: Path, mode: str) -> None:
    case = _snapshot(tmp_path, "--mode", mode, "--ignore-args", "*_id")
    verdicts = _run(_trace_with(tmp_path, _other_amount), case, EXIT_FAIL)
    assert verdicts["trajectory_match"] == "fail"
    assert verdicts["argument_correctness"] == "fail"


def test_a_changed_state_value_fails_and_a_bare_date_is_kept(tmp_path: Path) -> None:
    case = _snapshot(tmp_path, "--mode", "in_order")
    verdicts = _run(_trace_with(tmp_path, _other_date), case, EXIT_FAIL)
    assert verdicts["goal_completion_rate"] == "fail"


def test_exact_keeps_the_recorded_values(tmp_path: Path) -> None:
    case = _snapshot(tmp_path, "--mode", "strict", "--exact")
    assert "$type" not in case.read_text()
    assert _run(BOOKING, case, EXIT_OK)["trajectory_match"] == "pass"
    verdicts = _run(_trace_with(tmp_path, _new_volatile_values), case, EXIT_FAIL)
    assert verdicts["argument_correctness"] == "fail"


def test_the_replaced_values_are_named_and_the_output_is_deterministic(tmp_path: Path) -> None:
    out = tmp_path / "testcase.json"
    args = ["snapshot", str(BOOKING), "-o", str(out), "--mode", "in_order", "--force"]
    first = invoke(args, EXIT_OK)
    written = out.read_bytes()
    assert invoke(args, EXIT_OK).stderr == first.stderr
    assert out.read_bytes() == written
    lines = first.stderr.splitlines()
    assert lines[0].endswith("max_steps 5, trajectory in_order")
    assert lines[1].startswith(
        'openeval: 8 volatile value(s) written as {"$type": "string"} (--exact keeps them): '
        "expected_tool_calls[0].args.booking_id (uuid), "
        "expected_tool_calls[0].args.requested_at (timestamp), "
    )
    assert lines[1].endswith(
        "expected_final_state.booking.updated_at (timestamp), "
        "expected_final_state.refund.ledger_ref (hex id)"
    )


def test_more_than_ten_replaced_values_are_counted(tmp_path: Path) -> None:
    trace = {"task_id": "t", "steps": [
        {"step_id": i, "type": "tool_call", "tool_name": "ping",
         "tool_args": {"id": f"{i:08x}-0000-4000-8000-000000000000"}} for i in range(12)]}
    path = tmp_path / "many.trace.json"
    path.write_bytes(orjson.dumps(trace))
    result = invoke(["snapshot", str(path), "-o", str(tmp_path / "t.json")], EXIT_OK)
    assert result.stderr.splitlines()[1].endswith(
        "expected_tool_calls[9].args.id (uuid) and 2 more")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--mode", "strcit"],
         'openeval: error: --mode: "strcit" is not one of strict, in_order, unordered, '
         'superset, subset (did you mean "strict"?)\n'),
        (["--mode", "loose"],
         'openeval: error: --mode: "loose" is not one of strict, in_order, unordered, '
         "superset, subset\n"),
        (["--ignore-args", ""],
         "openeval: error: --ignore-args: an empty glob; expected an argument path such as "
         "'request_id' or 'trace.*'\n"),
    ],
)
def test_bad_flags_are_one_line_errors(tmp_path: Path, flags: list[str], message: str) -> None:
    out = tmp_path / "testcase.json"
    result = invoke(["snapshot", str(BOOKING), "-o", str(out), *flags], EXIT_USAGE)
    assert result.stderr == message
    assert not out.exists()


# --- the calendar run: the booked time is the outcome (docs/semantics.md#what-a-snapshot-keeps)

RERUNS = orjson.loads((DATA / "calendar_reruns.json").read_bytes())


def _edited(document: Any, row: dict[str, Any]) -> Any:
    edited = copy.deepcopy(document)
    for path, value in row["set"]:
        *parents, last = path
        target = edited
        for key in parents:
            target = target[key]
        target[last] = value
    for at, step in row["insert_steps"]:
        edited["steps"].insert(at, step)
    return edited


@pytest.mark.parametrize("row", RERUNS, ids=[row["id"] for row in RERUNS])
def test_a_calendar_rerun_passes_only_with_the_same_outcome(tmp_path: Path,
                                                            row: dict[str, Any]) -> None:
    case = tmp_path / "case" / "testcase.json"
    invoke(["snapshot", str(CALENDAR), "-o", str(case)], EXIT_OK)
    rerun = tmp_path / "rerun.trace.json"
    rerun.write_bytes(orjson.dumps(_edited(orjson.loads(CALENDAR.read_bytes()), row)))
    verdicts = _run(rerun, case, row["code"])
    assert sorted(m for m, v in verdicts.items() if v == "fail") == sorted(row["fails"])


def test_the_kept_values_are_named(tmp_path: Path) -> None:
    result = invoke(["snapshot", str(CALENDAR), "-o", str(tmp_path / "t.json")], EXIT_OK)
    assert result.stderr.splitlines()[2] == (
        "openeval: 4 volatile-looking value(s) kept as recorded, since the outcome repeats "
        "them: expected_tool_calls[1].args.start (the final state holds it), "
        "expected_tool_calls[1].args.end (the final state holds it), "
        "expected_final_state.events[0].start (a call's arguments set it), "
        "expected_final_state.events[0].end (a call's arguments set it)")


@pytest.mark.parametrize(("flags", "times"), [([], True), (["--counts"], True),
                                              (["--no-counts"], False)])
def test_counts_are_written_unless_no_counts(tmp_path: Path, flags: list[str], times: bool
                                             ) -> None:
    case = load_test_case(_snapshot(tmp_path, *flags))
    assert {"times" in call for call in case.expected_tool_calls} == {times}


# --- a trace without a task id (run refuses an empty one) --------------------------------


def _cli(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "openeval", *args], cwd=cwd,
                          capture_output=True, text=True, check=False)


def test_a_trace_without_a_task_id_takes_the_output_folders_name(tmp_path: Path) -> None:
    document = orjson.loads(CALENDAR.read_bytes())
    document["task_id"] = ""
    (tmp_path / "no-id.trace.json").write_bytes(orjson.dumps(document))
    done = _cli(["snapshot", "no-id.trace.json", "-o", "dentist/testcase.json"], tmp_path)
    assert done.returncode == EXIT_OK, done.stderr
    assert ('openeval: the trace has no task id; task_id "dentist" is the output folder\'s '
            "name (--task-id sets another)") in done.stderr.splitlines()
    assert load_test_case(tmp_path / "dentist" / "testcase.json").task_id == "dentist"
    ran = _cli(["run", "--suite", "."], tmp_path)
    assert ran.returncode == EXIT_OK, ran.stdout + ran.stderr
    assert "1 passed, 0 failed, 0 errored" in ran.stdout


@pytest.mark.parametrize(
    ("output", "flags", "message"),
    [("t.json", ["--task-id", " "],
      "openeval: error: --task-id: empty; expected the task's name, such as 'refund-7'\n"),
     ("/testcase.json", [],
      "openeval: error: no-id.trace.json: the trace has no task id and the output folder has "
      "no name to take one from; give one with --task-id\n")],
    ids=["empty-flag", "no-folder-name"],
)
def test_no_task_id_to_write_is_one_line(tmp_path: Path, output: str, flags: list[str],
                                         message: str) -> None:
    document = orjson.loads(CALENDAR.read_bytes())
    document["task_id"] = ""
    (tmp_path / "no-id.trace.json").write_bytes(orjson.dumps(document))
    done = _cli(["snapshot", "no-id.trace.json", "-o", output, *flags], tmp_path)
    assert (done.returncode, done.stderr) == (EXIT_USAGE, message)
    assert not (tmp_path / output).exists()


# --- --per-turn, through run ------------------------------------------------------------

TWO_REFUNDS = DATA.parent / "adapters" / "openai" / "chat_second_request.json"


def test_a_per_turn_case_passes_its_run_and_fails_a_changed_turn(tmp_path: Path) -> None:
    case = tmp_path / "refund" / "testcase.json"
    result = invoke(["snapshot", str(TWO_REFUNDS), "-o", str(case), "--per-turn"], EXIT_OK)
    assert "wrote" in result.stderr and "2 turn(s), 2 expected tool call(s)" in result.stderr
    assert _run(TWO_REFUNDS, case, EXIT_OK)["turn_expectations"] == "pass"
    chat = orjson.loads(TWO_REFUNDS.read_bytes())
    call = chat["messages"][6]["tool_calls"][0]["function"]
    call["arguments"] = '{"order_id": 1042, "amount": 11}'
    changed = tmp_path / "changed.json"
    changed.write_bytes(orjson.dumps(chat))
    verdicts = _run(changed, case, EXIT_FAIL)
    assert [m for m, v in verdicts.items() if v == "fail"] == ["turn_expectations"]


def test_per_turn_without_user_messages_is_one_line(tmp_path: Path) -> None:
    out = tmp_path / "testcase.json"
    result = invoke(["snapshot", str(BOOKING), "-o", str(out), "--per-turn"], EXIT_USAGE)
    assert result.stderr == (f"openeval: error: {BOOKING}: --per-turn: turns need the "
                             "conversation's user messages, and this trace records none\n")
    assert not out.exists()


@pytest.mark.parametrize(("trace", "flags"), [(CALENDAR, []), (BOOKING, []),
                                              (TWO_REFUNDS, ["--per-turn"])],
                         ids=["calendar", "booking", "per-turn"])
def test_a_drafted_case_passes_lint(tmp_path: Path, trace: Path, flags: list[str]) -> None:
    # Every expectation of a draft can fail: lint's empty, do-nothing and mutated traces.
    case = tmp_path / "suite" / "case" / "testcase.json"
    invoke(["snapshot", str(trace), "-o", str(case), *flags], EXIT_OK)
    result = invoke(["lint", str(tmp_path / "suite")], EXIT_OK)
    assert result.stdout == "1 case linted, 0 flagged, 0 findings\n"

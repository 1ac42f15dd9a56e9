"""State diffs and per-turn results as tables: in Markdown, HTML and ``inspect --testcase``,
failing rows marked, bounded as the alignment table is, and a row of another shape skipped."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from builders import invoke

from openeval.cli.exit_codes import EXIT_OK
from openeval.report import render
from openeval.report.frames import MAX_TABLE_ROWS, StateDiff, Turns
from openeval.results import SuiteResult
from openeval.runner import run_suite

TOUR = Path(__file__).parents[2] / "examples" / "tour"
STATE_HELD, STATE_BROKEN = "17-refund-state-frame-held", "18-refund-state-extra-change"
TURNS_HELD, TURNS_BROKEN = "19-per-turn-expectations-held", "20-per-turn-expectations-broken"


@pytest.fixture(scope="module")
def tour() -> SuiteResult:
    return run_suite(TOUR.as_posix())


MARKDOWN = [
    # id, lines the Markdown report holds, in this order
    ("unexpected-change-first-and-bold", [
        f"**{STATE_BROKEN}** · state_diff · **FAIL**", "",
        "| path | before | after | verdict |",
        "|---|---|---|---|",
        '| ` orders.A-4002.status ` | ` "paid" ` | ` "refunded" ` | **unexpected** |',
        '| ` audit.last_change ` | ` "2026-11-30" ` | ` "2026-12-01" ` | allowed |',
        '| ` orders.A-4001.status ` | ` "paid" ` | ` "refunded" ` | required |']),
    ("broken-turn-with-its-sub-results", [
        f"**{TURNS_BROKEN}** · turn_expectations · **FAIL**", "",
        "| user turn | verdict | sub-results | why |",
        "|---|---|---|---|",
        "| 1 | held | tool_selection_accuracy pass, argument_correctness pass, output_contains "
        "pass |  |",
        "| 2 | **not held** | tool_selection_accuracy fail, argument_correctness fail, "
        "step_budget pass | ` tool_selection_accuracy: expected tool calls made: 0/1; "
        "refund_deposit: expected 1 time, executed 0 times ` |"]),
    ("a-held-frame-is-shown-too", [
        f"**{STATE_HELD}** · state_diff · pass", "",
        "| path | before | after | verdict |"]),
]


@pytest.mark.parametrize("lines", [m[1] for m in MARKDOWN], ids=[m[0] for m in MARKDOWN])
def test_markdown_draws_each_frame_as_a_table(tour: SuiteResult, lines: list[str]) -> None:
    text = render(tour, "markdown").splitlines()
    start = text.index(lines[0])
    assert text[start:start + len(lines)] == lines


def test_markdown_lists_failing_frames_before_held_ones(tour: SuiteResult) -> None:
    text = render(tour, "markdown")
    section = text[text.index("### State changes and turns"):]
    frames = re.findall(r"^\*\*(\S+)\*\* · \S+ · (\S+)$", section, re.MULTILINE)
    verdicts = [verdict for _, verdict in frames]
    assert "pass" in verdicts and "**FAIL**" in verdicts
    assert verdicts == sorted(verdicts, key=lambda verdict: verdict != "**FAIL**")
    order = [case for case, _ in frames if case in (STATE_BROKEN, TURNS_BROKEN, STATE_HELD,
                                                    TURNS_HELD)]
    assert order == [STATE_BROKEN, TURNS_BROKEN, STATE_HELD, TURNS_HELD]


HTML = [
    # id, fragment of the HTML page
    ("state-caption", '<caption>State changes <small>(state_diff)</small></caption>'),
    ("unexpected-row-marked", '<tr class="bad"><td><code>orders.A-4002.status</code></td><td>'
                              '<code>&quot;paid&quot;</code></td><td><code>&quot;refunded&quot;'
                              '</code></td><td class="v-fail">✗ unexpected</td></tr>'),
    ("turn-caption", "<caption>Per-turn expectations <small>(turn_expectations)</small>"),
    ("broken-turn-marked", '<tr class="bad"><td>2</td><td class="v-fail">✗ not held</td>'),
]


@pytest.mark.parametrize("fragment", [h[1] for h in HTML], ids=[h[0] for h in HTML])
def test_html_draws_each_frame_in_its_case_view(tour: SuiteResult, fragment: str) -> None:
    assert fragment in render(tour, "html")


INSPECT = [
    # id, case, title, rows (cells split at 2+ spaces), caption starts with
    ("state", STATE_BROKEN, "state changes (state_diff)", [
        ["path", "before", "after", "verdict"],
        ["orders.A-4002.status", '"paid"', '"refunded"', "unexpected"],
        ["audit.last_change", '"2026-11-30"', '"2026-12-01"', "allowed"],
        ["orders.A-4001.status", '"paid"', '"refunded"', "required"]],
     "1 unexpected change: orders.A-4002.status"),
    ("turns", TURNS_HELD, "per-turn expectations (turn_expectations)", [
        ["user turn", "verdict", "sub-results", "why"],
        ["1", "held", "tool_selection_accuracy pass, argument_correctness pass, output_contains "
                      "pass"],
        ["2", "held", "tool_selection_accuracy pass, argument_correctness pass, step_budget "
                      "pass"]],
     "turn expectations held: 2/2"),
]


@pytest.mark.parametrize(("case", "title", "rows", "caption"), [i[1:] for i in INSPECT],
                         ids=[i[0] for i in INSPECT])
def test_inspect_testcase_prints_the_frame_below_the_calls(
    case: str, title: str, rows: list[list[str]], caption: str
) -> None:
    folder = TOUR / case
    lines = invoke(["inspect", str(folder / "trace.json"), "--testcase",
                    str(folder / "testcase.json"), "--wide"], EXIT_OK).output.splitlines()
    start = lines.index(title)
    assert [re.split(r"\s{2,}", line.strip()) for line in lines[start + 1:start + 1 + len(rows)]
            ] == rows
    assert lines[start + 1 + len(rows)].startswith(caption)


def test_inspect_json_holds_the_frames_only_for_a_case_with_them() -> None:
    import orjson

    folder = TOUR / STATE_BROKEN
    document = orjson.loads(invoke(["inspect", str(folder / "trace.json"), "--json",
                                    "--testcase", str(folder / "testcase.json")],
                                   EXIT_OK).stdout_bytes)
    assert [(f["metric"], len(f["state_diff"])) for f in document["frames"]] == [
        ("state_diff", 3)]
    plain = TOUR / "01-refund-happy-path"
    document = orjson.loads(invoke(["inspect", str(plain / "trace.json"), "--json",
                                    "--testcase", str(plain / "testcase.json")],
                                   EXIT_OK).stdout_bytes)
    assert "frames" not in document


def test_a_long_diff_is_cut_and_counted() -> None:
    rows = [{"path": f"k{n}", "before": "1", "after": "2", "verdict": "unexpected", "ok": False}
            for n in range(40)]
    diff = StateDiff.of({"state_diff": rows, "state_diff_cut": {"rows": 90, "kept": 40}})
    shown, left_out = diff.cells()
    assert (len(shown), left_out) == (MAX_TABLE_ROWS, 90 - MAX_TABLE_ROWS)


READ_BACK = [
    # id, data, rows read
    ("a-row-not-an-object-is-skipped", {"state_diff": ["x", {"path": "a", "before": None,
                                                            "after": '"b"', "verdict": "allowed",
                                                            "ok": True}]},
     [("a", "(absent)", '"b"', "allowed")]),
    ("not-a-list", {"state_diff": {"path": "a"}}, []),
]


@pytest.mark.parametrize(("data", "rows"), [r[1:] for r in READ_BACK],
                         ids=[r[0] for r in READ_BACK])
def test_a_result_file_of_another_shape_never_crashes(data: dict[str, object],
                                                       rows: list[tuple[str, ...]]) -> None:
    assert StateDiff.of(data).cells()[0] == rows
    assert Turns.of({"turns": [3, {"user": 1, "results": "x"}]}).cells()[0] == [
        ("1", "not held", "nothing judged", "")]

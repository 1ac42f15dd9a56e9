"""The HTML report as written: escaping, determinism, verdict symbols, filters, sections, size.

What the page does once a browser runs its script is checked in test_report_html_browser.py.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from builders import case
from html_page import Page

from openeval.report import render
from openeval.report.html import MAX_TEXT_CHARS, SYMBOL, mismatches, word_diff
from openeval.results import CaseResult, CheckResult, CheckSpec, SuiteResult
from openeval.results.excerpt import ExcerptStep, TraceExcerpt
from openeval.results.files import read_results, write_results
from openeval.runner import run_suite
from openeval.scores import Score

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data" / "report" / "html"
TOUR = ROOT / "examples" / "tour"

# Stdlib json on purpose: the hostile values include a lone surrogate, which orjson refuses.
HOSTILE = json.loads((DATA / "hostile.json").read_text(encoding="utf-8"))
MISMATCHES = json.loads((DATA / "mismatches.json").read_text(encoding="utf-8"))
GATES = json.loads((DATA / "gates.json").read_text(encoding="utf-8"))

TAGS = frozenset({
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "code",
    "main", "section", "div", "dl", "dt", "dd", "table", "caption", "colgroup", "col", "thead",
    "tbody", "tr", "th", "td", "span", "strong", "small", "abbr", "wbr", "a", "svg", "rect",
    "select", "option", "label", "input", "output", "noscript", "details", "summary", "ul",
    "li", "pre", "footer", "script", "h4", "ins", "del",
})
"""Every element the report writes; anything else in a page came from a value."""

SIZE_BOUND = 20_000_000
"""Bytes a 5,000-case report of the tour's nine metrics stays under (about 18.0 MB measured)."""


@pytest.fixture(scope="module")
def tour() -> SuiteResult:
    return run_suite(TOUR)


def html(suite: SuiteResult) -> str:
    return render(suite, "html")


def visible(text: str) -> str:
    """``text`` as the page shows it: controls and lone surrogates as ``\\xNN`` escapes."""
    return "".join(
        ascii(ch)[1:-1]
        if (ord(ch) < 32 and ch not in "\t\n\r") or 0x7F <= ord(ch) <= 0x9F
        or 0xD800 <= ord(ch) <= 0xDFFF
        else ch
        for ch in text
    )


# --- escaping --------------------------------------------------------------------------


def planted(field: str, value: str) -> SuiteResult:
    """A one-case suite holding ``value`` in ``field`` and plain text everywhere else."""

    def at(name: str, plain: str) -> str:
        return value if field == name else plain

    scores = (
        Score(0.25, "NUMERIC", at("comment", "a comment"), at("score_name", "m1")),
        Score(at("category", "ok"), "CATEGORICAL", None, "category"),
    )
    spec = CheckSpec(
        kind=at("kind", "m1"), name=at("check_name", "m1"), family="check",
        settings={"k": value} if field == "settings" else {}, threshold=1.0,
    )
    data = {
        "alignment": [{"expected": 0, "step_id": 1, "tool": at("alignment_tool", "refund"),
                       "status": "args differ", "ok": False, "note": at("alignment_note", "n"),
                       "differences": [{"where": at("alignment_where", "amount"),
                                        "expected": "1", "got": at("alignment_got", "2")}]}],
        "first_divergence": {"row": 0, "expected": 0, "step_id": 1, "tool": "refund",
                             "status": "args differ"},
        "notes": [at("check_note", "a note")],
    }
    check = CheckResult(spec, "fail", scores, at("details", "plain details"), data)
    excerpt = TraceExcerpt(
        steps=(ExcerptStep(1, "tool_call", at("step_tool", "refund"), at("step_args", "{}"),
                           at("step_result", "ok"), error=at("step_error", "boom")),
               ExcerptStep(2, "thought", content=at("step_content", "thinking"))),
        final_output=at("final_output", "done"), expected_output=at("expected_output", "done"),
    )
    result = CaseResult(
        case_id=at("case_id", "c1"), task_id=at("task_id", "t1"),
        testcase_path=at("testcase_path", "c1/testcase.json"),
        trace_path=at("trace_path", "c1/trace.json"), trace_format=at("trace_format", "native"),
        checks=(check,), error=value if field == "error" else None, trace_excerpt=excerpt,
    )
    metadata: dict[str, Any] = {
        "suite": at("suite_metadata", "suite"),
        "note": at("other_metadata", "plain"),
    }
    return SuiteResult(cases=(result,), metadata=metadata, gates=((at("gate_name", "g"), 1.0),))


@pytest.mark.parametrize("value_name", sorted(HOSTILE["values"]))
@pytest.mark.parametrize("field", HOSTILE["fields"])
def test_untrusted_text_shows_as_text_never_as_markup(field: str, value_name: str) -> None:
    value = HOSTILE["values"][value_name]
    text = html(planted(field, value))
    text.encode("utf-8")  # a lone surrogate would make the file unwritable
    page = Page(text)
    assert {e.tag for e in page.elements} <= TAGS
    assert len(page.all("script")) == 1
    for element in page.elements:
        for name, attr in element.attrs.items():
            assert not name.startswith("on"), (element.tag, name)
            if name in ("href", "src"):
                assert (attr or "").startswith("#"), (element.tag, name, attr)
    shown = json.dumps({"k": value}, ensure_ascii=False) if field == "settings" else value
    assert visible(shown) in page.all("html")[0].text


def test_the_script_and_style_sheet_are_allowed_by_hash_and_nothing_else(tour: SuiteResult
                                                                          ) -> None:
    text = html(tour)
    page = Page(text)
    (policy,) = [m.attrs["content"] for m in page.all("meta")
                 if m.attrs.get("http-equiv") == "Content-Security-Policy"]
    assert policy is not None
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["default-src"] == "'none'"
    for tag, directive in (("script", "script-src"), ("style", "style-src")):
        (element,) = page.all(tag)
        digest = base64.b64encode(hashlib.sha256(element.text.encode()).digest()).decode()
        assert directives[directive] == f"'sha256-{digest}'"
        # A closing tag inside the asset would end the element early.
        assert f"</{tag}" not in element.text.lower()
    assert not [e for e in page.elements if "style" in e.attrs]  # the CSP would block them


def test_long_text_is_cut_with_a_note() -> None:
    suite = SuiteResult(cases=(case("a", False, details="x" * (MAX_TEXT_CHARS + 6000)),))
    text = html(suite)
    assert "(6,000 more characters)" in text
    assert "x" * MAX_TEXT_CHARS in text and "x" * (MAX_TEXT_CHARS + 1) not in text


# --- determinism -----------------------------------------------------------------------


def test_same_results_same_bytes(tour: SuiteResult, tmp_path: Path) -> None:
    first = html(tour)
    assert html(run_suite(TOUR)) == first
    write_results(tour, tmp_path / "results")
    assert html(read_results(tmp_path / "results")) == first


# --- what the page holds ---------------------------------------------------------------

VERDICT_SUITE = SuiteResult(cases=(
    case("all-kinds", True, False, None, "error"),
    case("passed", True, True, None, None),
    case("failed", True, False, None, None),
    case("nothing-judged", None, None, None, None),
    case("unreadable", error="trace.json: invalid JSON"),
))


@pytest.mark.parametrize("verdict", list(SYMBOL))
def test_every_verdict_has_its_class_symbol_and_word(verdict: str) -> None:
    css = {"pass": "v-pass", "fail": "v-fail", "error": "v-error", "n.a.": "v-na"}[verdict]
    cells = re.findall(rf'<td class="{css}">(.*?)</td>', html(VERDICT_SUITE))
    assert len(cells) >= 2, f"{verdict}: expected a cell in the table and one in a case view"
    for cell in cells:
        words = re.sub("<[^>]+>", "", cell).split()
        assert words[0] == SYMBOL[verdict], cell
        # The word is shown, or is the title of the symbol (read out, shown on hover).
        assert verdict in words or re.findall(r'title="([^"]*)"', cell) == [verdict], cell


@pytest.mark.parametrize(
    ("status", "symbol", "cases"),
    [("passed", "✓", 1), ("failed", "✗", 1), ("error", "⚠", 2), ("n.a.", "○", 1)],
)
def test_every_case_status_has_its_symbol(status: str, symbol: str, cases: int) -> None:
    page = Page(html(VERDICT_SUITE))
    rows = [r for r in page.case_rows() if r.attrs["data-status"] == status]
    assert len(rows) == cases
    for row in rows:
        assert f"{symbol} {status}" in " ".join(row.text.split())


def test_overview_numbers() -> None:
    page = Page(html(VERDICT_SUITE))
    assert page.text_of("gate") == "✗ Gate failed 2 case(s) errored"
    # results: 4 passed, 2 failed, 1 errored + 1 unscored case, 9 n.a.
    assert page.text_of("pass-rate") == "50.0%"
    assert page.text_of("case-pass-rate") == "25.0%"
    expected = {
        "cases-passed": "1", "cases-failed": "1", "cases-errored": "2", "cases-na": "1",
        "cases-total": "5", "results-passed": "4", "results-failed": "2",
        "results-errored": "2", "results-na": "9", "results-total": "17",
    }
    assert {key: page.text_of(key) for key in expected} == expected
    rates = page.text_of("rates")
    assert "all results 50.0% 4 passed, 2 failed, 2 errored of 8 judged 4 2 2 9" in rates
    assert "m2 metric n.a. nothing judged (4 n.a.) 0 0 0 4" in rates
    assert "m3 metric 0.0% 0 passed, 0 failed, 1 errored of 1 judged 0 0 1 3" in rates


def test_bars_show_each_part_of_the_judged_results(tour: SuiteResult) -> None:
    page = Page(html(tour))
    svgs = page.all("svg", **{"class": "bar"})
    assert len(svgs) == 1 + len(tour.summary.per_check)
    r = tour.summary.results
    assert svgs[0].attrs["aria-label"] == (
        f"{r.passed} passed, {r.failed} failed, {r.errored} errored of {r.judged} judged"
    )
    widths = [int(rect.attrs["width"] or 0) for rect in page.all("rect")[:2]]
    passed = round(1000 * r.passed / r.judged)
    assert widths == [passed, 1000 - passed]  # shares of 1000, adding up to 1000


def test_filters_and_sorting_are_in_the_page_but_hidden_without_script(tour: SuiteResult
                                                                         ) -> None:
    page = Page(html(tour))
    controls = page.by_id("controls")
    assert "hidden" in controls.attrs
    statuses = [o.attrs["value"] for o in page.elements
                if o.tag == "option" and o.attrs.get("value") in
                ("", "not-passed", "failed", "error", "passed", "n.a.")]
    assert {"not-passed", "failed", "error", "passed", "n.a."} <= set(statuses)
    checks = [o.attrs["value"] for o in page.all("option") if o.attrs["value"] in
              tour.summary.per_check]
    assert checks == list(tour.summary.per_check)
    assert page.by_id("f-text").attrs["type"] == "search"
    assert [h.attrs["data-check"] for h in page.all("th") if "data-check" in h.attrs] == list(
        tour.summary.per_check)
    assert page.all("noscript")
    assert len(page.case_rows()) == len(tour.cases)


def test_case_views_are_collapsed_and_linked(tour: SuiteResult) -> None:
    page = Page(html(tour))
    views = page.all("details")
    assert [v.attrs["id"] for v in views] == [f"c{i}" for i in range(len(tour.cases))]
    assert not [v for v in views if "open" in v.attrs]
    links = [a.attrs["href"] for a in page.all("a")]
    assert links == [f"#c{i}" for i in range(len(tour.cases))]


def test_case_view_shows_scores_details_and_expected_vs_got(tour: SuiteResult) -> None:
    page = Page(html(tour))
    index = [c.case_id for c in tour.cases].index("02-refund-amount-as-string")
    view = " ".join(page.by_id(f"c{index}").text.split())
    assert "✗ failed 02-refund-amount-as-string argument_correctness, goal_completion_rate" in view
    assert "02-refund-amount-as-string/trace.json (native)" in view
    assert "argument_correctness ✗ fail 0.6667 (pass line ≥ 1)" in view
    # argument_correctness holds an alignment: its calls side by side, the divergence marked.
    assert ("Expected vs executed calls (argument_correctness) # expected executed status "
            "differing arguments 1 lookup_order step 1 lookup_order ✓ matched 2 refund_order "
            'step 2 refund_order ✗ args differ ← first divergence amount: expected 42.5, got '
            '"42.50"') in view
    # goal_completion_rate holds none: its details parts are read as expected vs got.
    assert 'expected vs got where expected got state.refund_amount 42.5 "42.50"' in view
    divergence = [c.case_id for c in tour.cases].index("05-search-replay-divergence")
    view = " ".join(page.by_id(f"c{divergence}").text.split())
    assert "divergence_score ✗ fail 0.3333 (pass line ≥ 1) first divergence at step 3 of 6" in view
    assert "passed = false BOOLEAN" in view  # fixture_freshness's second score


def test_an_unscored_case_shows_why() -> None:
    page = Page(html(VERDICT_SUITE))
    view = " ".join(page.by_id("c4").text.split())
    assert "⚠ error unreadable could not be scored" in view
    assert "Could not be scored: trace.json: invalid JSON" in view
    assert "trace -" in view


@pytest.mark.parametrize("item", MISMATCHES, ids=[m["id"] for m in MISMATCHES])
def test_mismatches_are_read_from_details(item: dict[str, Any]) -> None:
    found = [[m.where, m.expected, m.got] for m in mismatches(item["details"])]
    assert found == item["mismatches"]


@pytest.mark.parametrize("item", GATES, ids=[g["id"] for g in GATES])
def test_the_gates_section_shows_each_gate_of_the_run(item: dict[str, Any]) -> None:
    cases = tuple(case(case_id, *verdicts) for case_id, *verdicts in item["cases"])
    suite = SuiteResult(cases=cases, gates=tuple((name, line) for name, line in item["gates"]))
    page = Page(html(suite))
    sections = [e for e in page.elements if e.attrs.get("id") == "gates-section"]
    assert bool(sections) is item["section"]
    text = " ".join((sections[0] if sections else page.all("html")[0]).text.split())
    for shown in item["shown"]:
        assert shown in text
    for absent in item["absent"]:
        assert absent not in text


def test_a_runs_metric_gates_reach_the_html_through_its_result_files(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from openeval.cli import main

    out, page = tmp_path / "out", tmp_path / "report.html"
    done = CliRunner().invoke(main, [
        "run", "--suite", str(TOUR), "--output", str(out), "--html", str(page),
        "--fail-under-metric", "tool_selection_accuracy=0.99",
    ])
    assert done.exit_code in (0, 1), done.output
    gates = read_results(out).summary.gates
    assert [g.name for g in gates] == ["tool_selection_accuracy"]
    for text in (page.read_text(encoding="utf-8"), html(read_results(out))):
        (section,) = [e for e in Page(text).elements if e.attrs.get("id") == "gates-section"]
        row = " ".join(section.text.split())
        assert f"tool_selection_accuracy {gates[0].figure:.1%} 99.0%" in row


# --- size ------------------------------------------------------------------------------


def test_a_5000_case_report_stays_under_the_bound(tour: SuiteResult) -> None:
    cases = tuple(
        dataclasses.replace(c, case_id=f"batch-{i:03d}/{c.case_id}")
        for i in range(-(-5000 // len(tour.cases)))
        for c in tour.cases
    )[:5000]
    assert len(cases) == 5000
    text = html(SuiteResult(cases=cases, metadata=tour.metadata))
    assert len(text.encode("utf-8")) < SIZE_BOUND
    assert text.count("<details ") == 5000
    assert not re.search(r"<details[^>]* open", text)


WORD_DIFFS = json.loads((DATA / "word_diff.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("item", WORD_DIFFS, ids=[w["id"] for w in WORD_DIFFS])
def test_the_output_diff_is_word_by_word(item: dict[str, str]) -> None:
    assert word_diff(item["expected"], item["actual"]) == item["html"]


def test_with_steps_kept_a_case_view_shows_calls_steps_and_output() -> None:
    tour = run_suite(TOUR, keep_steps=True)
    page = Page(html(tour))
    index = [c.case_id for c in tour.cases].index("04-payment-denial-loop")
    view = page.by_id(f"c{index}")
    text = " ".join(view.text.split())
    assert ("1 create_payment_request - ✗ missing ← first divergence" in text)
    assert "step 1 wire_transfer ✓ not counted denied: permission denied" in text
    steps = [e for e in page.elements if e.tag == "table" and e.attrs.get("class") == "timeline"]
    assert len(steps) == len(tour.cases)
    assert "1 tool_call wire_transfer {\"amount\":1900,\"currency\":\"USD\",\"to\":\"Acme Ltd\"}" \
        in " ".join(steps[index].text.split())
    assert "Final output (none)" in text
    plain = Page(html(run_suite(TOUR)))
    assert not [e for e in plain.elements if e.attrs.get("class") == "timeline"]
    assert "(with steps kept: openeval run --html or --keep-steps) its steps" in " ".join(
        plain.by_id("views-note").text.split())


def _trials_suite(root: Path, *, with_plain_case: bool) -> Path:
    """A suite whose case ``t`` ran three times (one trial fails its amount), beside an
    optional plain case ``p`` whose trace carries another task id (a warning)."""
    source = ROOT / "examples" / "quickstart" / "01-refund-order"
    trace = json.loads((source / "trace.json").read_text())
    trials = root / "t" / "trials"
    trials.mkdir(parents=True)
    (root / "t" / "testcase.json").write_bytes((source / "testcase.json").read_bytes())
    for i in (1, 2):
        (trials / f"trace-{i}.json").write_text(json.dumps(trace))
    wrong = json.loads(json.dumps(trace))
    for step in wrong["steps"]:
        if step.get("tool_name") == "refund_order":
            step["tool_args"]["amount"] = 4.25
    (trials / "trace-3.json").write_text(json.dumps(wrong))
    if with_plain_case:
        (root / "p").mkdir()
        (root / "p" / "testcase.json").write_bytes((source / "testcase.json").read_bytes())
        other = dict(trace, task_id="someone-else")
        (root / "p" / "trace.json").write_text(json.dumps(other))
    return root


@pytest.mark.parametrize("with_plain_case", [False, True], ids=["only-trials", "mixed"])
def test_trials_show_every_verdict(tmp_path: Path, with_plain_case: bool) -> None:
    suite = run_suite(_trials_suite(tmp_path, with_plain_case=with_plain_case))
    page = Page(html(suite))
    rows = {r.text.split()[0]: r for r in page.case_rows()}
    cells = " ".join(rows["t"].text.split())
    # argument_correctness failed one trial of three: the cell is a fail, and says 2/3.
    assert "✗ 2/3" in cells and "✓ 3/3" in cells and "-" not in cells.split()
    trials = page.text_of("trials")
    assert "trials/trace-3.json" in trials and "2/3" in trials
    assert "pass^k" in trials and "1: 0.67" in trials
    assert "argument_correctness" in page.text_of("rates")
    if with_plain_case:
        assert "someone-else" in page.text_of("warnings")
    else:
        assert 'id="warnings"' not in html(suite)

"""The HTML report in a real browser: headless Chromium loads the tour's page from disk, runs its
script, and the DOM it dumps is checked (figures, rows, filters from the URL fragment, case
views, sorting) along with proof that a script planted in a trace's text never ran.

The filters are driven by the fragment the page's script reads (``report.html#failed``), so
``--dump-dom`` alone sees the result, with no DevTools client. Marked ``browser``: the default
run leaves them out, and CI installs Chromium and runs them (``.ci/run``), failing when it is
missing; asked for outside CI without Chromium, they are skipped saying how to install it.
"""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
from pathlib import Path

import pytest
from html_page import Element, Page

from openeval.report import render
from openeval.results import SuiteResult
from openeval.results.summary import percent
from openeval.runner import run_suite

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "tour"
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
PLANTED = (
    "<script>document.title='pwned'</script>"
    "<img src=x onerror=\"document.title='pwned'\">"
)
DIVERGED = "05-search-replay-divergence"

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.fail(
        "Chromium is not installed, and the HTML report's browser tests need it: install it "
        "with `apt-get install -y chromium` (CI's .ci/run does so before the tests)",
        pytrace=False,
    )


@pytest.fixture(scope="module")
def suite() -> SuiteResult:
    """The tour with its steps kept, plus a copy of its first case whose details, alignment and
    steps hold a planted script."""
    tour = run_suite(TOUR, keep_steps=True)
    first = tour.cases[0]
    data = {"alignment": [{"expected": 0, "step_id": 1, "tool": PLANTED, "status": "args differ",
                           "ok": False, "differences": [{"where": "q", "expected": "1",
                                                         "got": PLANTED}]}],
            "first_divergence": {"row": 0, "expected": 0, "step_id": 1, "tool": PLANTED,
                                 "status": "args differ"}}
    check = dataclasses.replace(first.checks[0], details=f"tool said: {PLANTED}", data=data)
    assert first.trace_excerpt is not None
    step = dataclasses.replace(first.trace_excerpt.steps[0], result=f"result: {PLANTED}")
    excerpt = dataclasses.replace(first.trace_excerpt, steps=(step,),
                                  final_output=f"said: {PLANTED}")
    copy = dataclasses.replace(first, case_id="zz-planted", checks=(check, *first.checks[1:]),
                               trace_excerpt=excerpt)
    return SuiteResult(cases=(*tour.cases, copy), metadata=tour.metadata)


@pytest.fixture(scope="module")
def report(suite: SuiteResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("html-report") / "report.html"
    path.write_text(render(suite, "html"), encoding="utf-8")
    return path


class Browser:
    """Headless Chromium with a throwaway profile, every network feature off."""

    def __init__(self, executable: str, profile: Path) -> None:
        self.executable = executable
        self.profile = profile

    def run(self, url: str, *flags: str) -> str:
        done = subprocess.run(
            [self.executable, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
             "--no-first-run", "--disable-background-networking", "--disable-component-update",
             "--disable-sync", f"--user-data-dir={self.profile}", *flags, url],
            capture_output=True, text=True, timeout=180, check=False,
        )
        assert done.returncode == 0, f"chromium exited {done.returncode}: {done.stderr[-3000:]}"
        return done.stdout

    def dom(self, page: Path, fragment: str = "") -> Page:
        """Return the DOM of ``page`` after its script ran, opened at ``#fragment``."""
        url = page.as_uri() + (f"#{fragment}" if fragment else "")
        return Page(self.run(url, "--dump-dom"))


@pytest.fixture(scope="module")
def browser(chromium: str, tmp_path_factory: pytest.TempPathFactory) -> Browser:
    return Browser(chromium, tmp_path_factory.mktemp("chromium-profile"))


@pytest.fixture(scope="module")
def opened(browser: Browser, report: Path) -> Page:
    return browser.dom(report)


def shown_rows(page: Page) -> list[str]:
    """Return the case ids of the table rows the script left visible, in page order."""
    return [" ".join(r.text.split()).split(" ")[0] for r in page.case_rows()
            if "hidden" not in r.attrs]


def test_overview_shows_the_summary(opened: Page, suite: SuiteResult) -> None:
    s = suite.summary
    assert opened.text_of("gate").startswith("✗ Gate failed")
    assert opened.text_of("pass-rate") == percent(s.pass_rate)
    assert opened.text_of("case-pass-rate") == percent(s.case_pass_rate)
    counts = {
        "cases-passed": s.passed_cases, "cases-failed": s.failed_cases,
        "cases-errored": s.errored_cases, "cases-na": s.not_evaluated_cases,
        "cases-total": s.cases, "results-passed": s.results.passed,
        "results-failed": s.results.failed, "results-na": s.results.not_applicable,
    }
    assert {k: opened.text_of(k) for k in counts} == {k: str(n) for k, n in counts.items()}


def test_every_case_has_a_row_and_the_script_showed_the_controls(
    opened: Page, suite: SuiteResult
) -> None:
    assert shown_rows(opened) == [c.case_id for c in suite.cases]
    assert "hidden" not in opened.by_id("controls").attrs
    assert opened.text_of("f-shown") == f"all {len(suite.cases)} cases shown"
    # The script turned each header into a sort button.
    heads = [e for e in opened.elements if e.tag == "button"]
    assert len(heads) == 2 + len(suite.summary.per_check)


@pytest.mark.parametrize(
    ("fragment", "status", "check"),
    [
        ("failed", "failed", None),
        ("status=not-passed", "not-passed", None),
        ("passed", "passed", None),
        ("status=failed&check=argument_correctness", "failed", "argument_correctness"),
        ("status=n.a.&check=fixture_freshness", "n.a.", "fixture_freshness"),
    ],
)
def test_the_fragment_filters_the_rows(
    browser: Browser, report: Path, suite: SuiteResult, fragment: str, status: str,
    check: str | None,
) -> None:
    verdict = {"failed": "fail", "passed": "pass", "n.a.": "n.a."}

    def wanted(case_status: str, verdicts: dict[str, str]) -> bool:
        if check is not None:
            return verdicts.get(check) == verdict[status]
        if status == "not-passed":
            return case_status in ("failed", "error")
        return case_status == status

    expected = [c.case_id for c in suite.cases
                if wanted(c.status, {r.name: r.verdict for r in c.checks})]
    assert expected, "the filter should leave some rows"
    page = browser.dom(report, fragment)
    assert shown_rows(page) == expected
    assert page.text_of("f-shown") == f"{len(expected)} of {len(suite.cases)} cases shown"


def test_the_text_filter_searches_ids_and_case_views(
    browser: Browser, report: Path, opened: Page
) -> None:
    views = {" ".join(r.text.split()).split(" ")[0]: view for r, view in
             zip(opened.case_rows(), opened.all("details"), strict=True)}
    expected = [case_id for case_id, view in views.items()
                if "refund_order" in (case_id + " " + view.text).lower()]
    assert 0 < len(expected) < len(views)
    assert shown_rows(browser.dom(report, "q=refund_order")) == expected


def test_sorting_puts_the_worst_first(browser: Browser, report: Path, suite: SuiteResult
                                      ) -> None:
    rank = {"error": 0, "fail": 1, "pass": 2, "n.a.": 3}

    def key(item: tuple[int, str, float, str]) -> tuple[int, float, int]:
        order, verdict, score, _ = item
        return rank[verdict], score, order

    items = []
    for order, case in enumerate(suite.cases):
        result = {r.name: r for r in case.checks}["step_efficiency"]
        score = float(result.score_text()) if result.verdict in ("pass", "fail") else 0.0
        items.append((order, result.verdict, score, case.case_id))
    page = browser.dom(report, "sort=step_efficiency")
    assert shown_rows(page) == [item[3] for item in sorted(items, key=key)]
    (sorted_head,) = [h for h in page.all("th") if "aria-sort" in h.attrs]
    assert sorted_head.attrs == {"scope": "col", "data-check": "step_efficiency",
                                 "aria-sort": "ascending"}


def test_a_case_link_opens_its_view_with_the_first_divergence(
    browser: Browser, report: Path, suite: SuiteResult
) -> None:
    index = [c.case_id for c in suite.cases].index(DIVERGED)
    page = browser.dom(report, f"c{index}")
    views = page.all("details")
    assert [v.attrs["id"] for v in views if "open" in v.attrs] == [f"c{index}"]
    text = " ".join(page.by_id(f"c{index}").text.split())
    assert "divergence_score ✗ fail 0.3333 (pass line ≥ 1) first divergence at step 3 of 6" in text


def test_a_script_planted_in_a_trace_never_runs(
    opened: Page, browser: Browser, report: Path, suite: SuiteResult
) -> None:
    index = [c.case_id for c in suite.cases].index("zz-planted")
    for page in (opened, browser.dom(report, f"c{index}")):
        (title,) = page.all("title")[:1]
        assert "pwned" not in title.text
        assert title.text.startswith("OpenEval: gate failed")
        assert not page.all("img")
        assert len(page.all("script")) == 1
        view = page.by_id(f"c{index}").text
        for shown in (f"tool said: {PLANTED}", f"result: {PLANTED}", f"said: {PLANTED}",
                      f"got {PLANTED}"):
            assert shown in view


def test_overview_screenshot(browser: Browser, report: Path, tmp_path: Path) -> None:
    """Writes the overview as a PNG under pytest's tmp path, for a person to look at."""
    shot = tmp_path / "overview.png"
    browser.run(report.as_uri(), f"--screenshot={shot}", "--window-size=1280,900")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1280, 900)
    assert len(data) > 20_000  # a blank page compresses to a few hundred bytes


@pytest.fixture(scope="module")
def run_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The page ``openeval run --suite examples/tour --html FILE`` writes."""
    from click.testing import CliRunner

    from openeval.cli import main

    path = tmp_path_factory.mktemp("run-html") / "report.html"
    done = CliRunner().invoke(main, ["run", "--suite", str(TOUR), "--html", str(path), "-q"])
    assert done.exit_code == 1, done.output  # the tour is meant to fail
    return path


def test_run_html_fills_the_case_view_with_calls_steps_and_the_first_divergence(
    browser: Browser, run_page: Path, suite: SuiteResult
) -> None:
    index = [c.case_id for c in suite.cases].index("02-refund-amount-as-string")
    page = browser.dom(run_page, f"c{index}")
    view = page.by_id(f"c{index}")
    assert "open" in view.attrs
    (calls,) = [t for t in view_tables(page, index) if "calls" in (t.attrs.get("class") or "")]
    assert ("2 refund_order step 2 refund_order ✗ args differ ← first divergence amount: "
            'expected 42.5, got "42.50"') in " ".join(calls.text.split())
    marked = [e for e in page.elements if e.tag == "tr" and e.attrs.get("class") == "first-div"]
    # Marked twice in this case: its row of calls, and its step in the timeline.
    assert [" ".join(e.text.split())[:40] for e in marked if e in view_rows(page, index)] == [
        '2 refund_order step 2 refund_order ✗ arg',
        '2 ← first divergence tool_call refund_or',
    ]
    (steps,) = [t for t in view_tables(page, index) if t.attrs.get("class") == "timeline"]
    assert " ".join(steps.text.split()).startswith(
        'Steps step type tool arguments or text result flags latency, tokens 1 tool_call '
        'lookup_order {"order_id":"A-1002"} {"total":42.5}')
    assert "Final output Refunded A-1002; refund id R-78." in " ".join(view.text.split())


def view_tables(page: Page, index: int) -> list[Element]:
    """Return the tables inside the view of case ``index``, in page order."""
    return [e for e in _inside(page, index) if e.tag == "table"]


def view_rows(page: Page, index: int) -> list[Element]:
    return [e for e in _inside(page, index) if e.tag == "tr"]


def _inside(page: Page, index: int) -> list[Element]:
    start = page.elements.index(page.by_id(f"c{index}"))
    end = start + 1
    while end < len(page.elements) and not (
        page.elements[end].tag == "details" and page.elements[end].attrs.get("id", "") != ""
    ):
        end += 1
    return page.elements[start + 1:end]


# Reads where each tool name in the step and call tables wrapped: the character before every
# line break, found from the line box each character lands in. Only the test adds it (the
# page's policy would refuse it, so the test's copy drops the policy).
MEASURE_BREAKS = """<script>
for (const d of document.querySelectorAll('details')) d.open = true;
const breaks = [];
for (const code of document.querySelectorAll('table.timeline code.tool, table.calls code.tool')) {
  const text = code.textContent, node = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  const tops = [];
  for (let n = node.nextNode(); n; n = node.nextNode()) {
    for (let i = 0; i < n.length; i++) {
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      const box = r.getClientRects()[0]; if (box) tops.push(Math.round(box.top));
    }
  }
  for (let i = 1; i < tops.length; i++) if (tops[i] > tops[i - 1]) breaks.push([text, i]);
}
document.body.setAttribute('data-breaks', JSON.stringify(breaks));
</script>"""


def test_a_narrow_page_wraps_tool_names_only_after_a_separator(
    browser: Browser, tmp_path: Path
) -> None:
    import json
    import re

    from openeval.models import AgentTrace, TraceStep
    from openeval.results import CaseResult
    from openeval.results.excerpt import TraceExcerpt

    names = ["lookup_customer_order_history", "billing.refunds.create_partial_refund",
             "send-notification-email-to-customer", "summarizeconversationtranscript"]
    trace = AgentTrace(task_id="t", steps=[
        TraceStep(step_id=n, type="tool_call", tool_name=name, tool_args={"q": "x " * 30})
        for n, name in enumerate(names, 1)])
    case = CaseResult(case_id="t", task_id="t", testcase_path=None, trace_path=None,
                      trace_format="native", trace_excerpt=TraceExcerpt.of(trace))
    html = render(SuiteResult(cases=(case,)), "html")
    html = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", html)
    page = tmp_path / "narrow.html"
    page.write_text(html.replace("</body>", MEASURE_BREAKS + "</body>"), encoding="utf-8")
    dumped = browser.run(page.as_uri(), "--window-size=360,3000", "--dump-dom")
    (body,) = [e for e in Page(dumped).elements if e.tag == "body"]
    breaks = json.loads(body.attrs["data-breaks"] or "[]")
    assert breaks, "the page is narrow enough that some tool name wraps"
    assert {name for name, _ in breaks} <= set(names)
    assert [(name, at) for name, at in breaks if name[at - 1] not in "_.-/:"] == []

"""The ``html`` report: one static, self-contained page showing a run at a glance and each case in
depth (proposals/0050-html-report.md).

The page needs no server and loads nothing: the style sheet and the small script are inlined,
charts are inline SVG, and a Content-Security-Policy forbids every other source, so it reads the
same opened from a CI artifact as from disk. It holds, top to bottom:

- the **overview**: the gate's verdict and reason, the pass rate and the case pass rate, counts
  of passed, failed, errored and n.a. cases and results, then a bar per metric and check;
- the **gates** section, only when the run has per-metric gates: each one's pass rate, line and
  verdict, as the console and the Markdown report show them;
- the **cases table**: one row per case, one cell per metric or check (colour, symbol and, for
  screen readers, a word). The table is complete in the HTML; the inline script only shows the
  filter controls (status, one metric or check, text) and sorts on a header click (worst
  first), and keeps that state in the URL fragment (``report.html#failed``,
  ``#status=not-passed&check=step_budget&q=refund&sort=step_budget``); with scripts off it is
  a plain table;
- a collapsed **case view** per case (``<details id="cN">``, N its index, linked from the
  table): paths, the reason it could not be scored, the expected and executed calls side by
  side (from ``CheckResult.data["alignment"]``, the first divergence marked and differing
  arguments shown both ways), the step timeline and the final output against the expected one
  word by word (from ``CaseResult.trace_excerpt``, kept when the run is asked to), then every
  check's verdict, pass line, scores with their comments, settings, details and notes, plus
  an expected-vs-got table drawn from details parts shaped ``WHERE: expected A, got B`` for
  checks without an alignment.

Every value taken from a result (case ids, paths, details, comments, settings, metadata) is
HTML-escaped, with control characters and lone surrogates written as visible ``\\xNN`` escapes:
a trace is untrusted, and a tool result holding ``<script>`` shows as text. The CSP allows only
the report's own script and style (by hash), so even a value that slipped through could not run.
Long texts are cut at :data:`MAX_TEXT_CHARS` (the result files keep them whole). Same suite, same
bytes: no clock, no random ids, metadata keys sorted. A comparison with a baseline is not part
of this page: it has its own formats (:mod:`openeval.report.diff`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from html import escape
from importlib.resources import files
from typing import Any

from openeval.report.alignment import Alignment, aligned_check, difference_parts, position, text_of
from openeval.report.frames import STATE_KIND, framed_checks, row_ok, table_of
from openeval.results.excerpt import ExcerptStep, TraceExcerpt
from openeval.results.records import CaseResult, CheckResult, SuiteResult, boolean_text
from openeval.results.summary import Summary, Tally, percent
from openeval.scores import Score, Verdict
from openeval.version import __version__

MAX_TEXT_CHARS = 4000
"""Longest details, comment, error or metadata text shown; the rest is cut with a note."""

MAX_MISMATCHES = 50
"""Most expected-vs-got rows drawn from one check's details."""

SYMBOL = {"pass": "✓", "fail": "✗", "error": "⚠", "n.a.": "○"}
"""The symbol of each verdict: the page reads without colour."""

_STATUS_VERDICT = {"passed": "pass", "failed": "fail", "error": "error", "n.a.": "n.a."}
_VERDICT_CLASS = {"pass": "v-pass", "fail": "v-fail", "error": "v-error", "n.a.": "v-na"}
_STATUS_CLASS = {"passed": "s-passed", "failed": "s-failed", "error": "s-error", "n.a.": "s-na"}

# Characters HTML cannot hold as text (C0/C1 controls other than tab, LF, CR) and lone
# surrogates, which no UTF-8 file can hold: written as visible escapes instead.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def esc(text: str) -> str:
    """Return ``text`` safe as HTML text or a quoted attribute value."""
    text = _UNPRINTABLE.sub(lambda m: ascii(m.group())[1:-1], text)
    return escape(text, quote=True)


def _cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Return ``text`` escaped, cut at ``limit`` characters with a note saying how much is left."""
    if len(text) <= limit:
        return esc(text)
    rest = len(text) - limit
    return f'{esc(text[:limit])}<span class="muted"> … ({rest:,} more characters)</span>'


def _json_text(value: Any) -> str:
    """Return a metadata value as text: strings as they are, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr)
    except (TypeError, ValueError):  # mixed key types cannot be sorted, circular values
        return repr(value)


def _number(value: float | bool | str) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"{value:.4g}"
    return value


@cache
def _asset(name: str) -> str:
    """Return the text of a style sheet or script shipped in ``html_assets/``."""
    folder = files("openeval.report").joinpath("html_assets")
    return folder.joinpath(name).read_text(encoding="utf-8")


def _csp_hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


# --- overview ---------------------------------------------------------------------------


def bar(tally: Tally) -> str:
    """Return an inline SVG bar of ``tally``'s judged results: passed, failed, errored."""
    judged = tally.judged
    # Size and colours are attributes as well as CSS: a viewer that blocks the inline style
    # sheet (Jenkins serves artifacts that way) still draws the bar.
    frame = 'class="bar" width="320" height="14" role="img"'
    if not judged:
        label = f"nothing judged ({tally.not_applicable} n.a.)"
        return f'<svg {frame} aria-label="{label}"><title>{label}</title></svg>'
    label = (
        f"{tally.passed} passed, {tally.failed} failed, {tally.errored} errored "
        f"of {judged} judged"
    )
    rects = []
    done = 0
    start = 0
    for css, fill, count in (("p", "#1a7f37", tally.passed), ("f", "#cf222e", tally.failed),
                             ("e", "#9a6700", tally.errored)):
        done += count
        end = round(done * 1000 / judged)  # cumulative rounding: the parts add up to 1000
        if end > start:
            rects.append(
                f'<rect class="{css}" fill="{fill}" x="{start}" width="{end - start}" '
                'height="10"/>'
            )
        start = end
    return (
        f'<svg {frame} viewBox="0 0 1000 10" preserveAspectRatio="none" '
        f'aria-label="{label}"><title>{label}</title>{"".join(rects)}</svg>'
    )


def _verdict_block(summary: Summary) -> str:
    verdict = "pass" if summary.gate_passed else "fail"
    word = "Gate passed" if summary.gate_passed else "Gate failed"
    return (
        f'<p class="verdict {_VERDICT_CLASS[verdict]}" id="gate">{SYMBOL[verdict]} {word} '
        f'<span class="reason">{esc(summary.gate_reason)}</span></p>'
    )


def _figures(suite: SuiteResult, summary: Summary) -> str:
    r = summary.results
    judged_cases = summary.cases - summary.not_evaluated_cases
    items = [
        ("pass-rate", "Pass rate", percent(summary.pass_rate),
         f"{r.passed} of {r.judged} judged results passed"),
        ("case-pass-rate", "Case pass rate", percent(summary.case_pass_rate),
         f"{summary.passed_cases} of {judged_cases} judged cases passed"),
    ]
    if summary.fail_under is not None:
        items.append(("fail-under", "Gate line", f"{summary.fail_under:.1%}",
                      f"{esc(suite.gate_source('fail_under'))}: pass rate at least this"))
    cells = "".join(
        f'<div><dt>{title}</dt><dd class="big" id="{key}">{value}</dd>'
        f'<dd class="muted">{note}</dd></div>'
        for key, title, value, note in items
    )
    return f'<dl class="figures">{cells}</dl>'


def _counts(summary: Summary) -> str:
    r = summary.results
    rows = [
        ("cases", (summary.passed_cases, summary.failed_cases, summary.errored_cases,
                   summary.not_evaluated_cases), summary.cases),
        ("results", (r.passed, r.failed, r.errored, r.not_applicable),
         r.judged + r.not_applicable),
    ]
    head = "".join(
        f'<th scope="col" class="{_VERDICT_CLASS[v]}">{SYMBOL[v]} {word}</th>'
        for v, word in (("pass", "passed"), ("fail", "failed"), ("error", "errored"),
                        ("n.a.", "n.a."))
    )
    body = "".join(
        f'<tr><th scope="row">{what}</th>'
        + "".join(
            f'<td id="{what}-{key}">{n}</td>'
            for key, n in zip(("passed", "failed", "errored", "na"), counts, strict=True)
        )
        + f'<td id="{what}-total">{total}</td></tr>'
        for what, counts, total in rows
    )
    return (
        '<table class="counts" id="counts"><caption class="sr">Counts of cases and results'
        f'</caption><thead><tr><td></td>{head}<th scope="col">total</th></tr></thead>'
        f"<tbody>{body}</tbody></table>"
    )


def _first_specs(cases: Iterable[CaseResult]) -> dict[str, CheckResult]:
    """Return the first result of each check name, for its family and kind."""
    first: dict[str, CheckResult] = {}
    for case in cases:
        for record in case.judged():  # a case with trials keeps its checks on its trials
            for check in record.checks:
                first.setdefault(check.name, check)
    return first


def _rate_row(name_cell: str, tally: Tally) -> str:
    return (
        f'<tr>{name_cell}<td class="rate">{percent(tally.pass_rate)}</td><td>{bar(tally)}</td>'
        f"<td>{tally.passed}</td><td>{tally.failed}</td><td>{tally.errored}</td>"
        f"<td>{tally.not_applicable}</td></tr>"
    )


def _rates(suite: SuiteResult, summary: Summary) -> str:
    if not summary.per_check:
        return '<p class="muted">No metric or check ran.</p>'
    first = _first_specs(suite.cases)
    rows = [_rate_row('<th scope="row"><strong>all results</strong></th>', summary.results)]
    for name, tally in summary.per_check.items():
        spec = first[name].spec
        family = spec.family if spec.kind == name else f"{spec.family}: {spec.kind}"
        if name in suite.report_only_names:
            family += " · report only: pass line 0"
        rows.append(_rate_row(
            f'<th scope="row">{esc(name)} <span class="family">{esc(family)}</span></th>', tally
        ))
    return (
        '<h3>Metrics and checks</h3><table class="rates" id="rates"><thead><tr>'
        '<th scope="col">metric or check</th><th scope="col">pass rate</th>'
        '<th scope="col">passed / failed / errored of judged</th><th scope="col">passed</th>'
        '<th scope="col">failed</th><th scope="col">errored</th><th scope="col">n.a.</th>'
        f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
    )


def _trials_section(suite: SuiteResult, summary: Summary) -> str:
    """The cases run several times: each trial's verdict, pass^k and pass@k, and the means
    (the same figures as the Markdown report's Trials section)."""
    trials = summary.trials
    if trials is None:
        return ""
    rows = []
    for index, case in enumerate(suite.cases):
        stats = case.trial_stats
        if stats is None:
            continue
        marks = " ".join(
            f'<span class="{_STATUS_CLASS[t.status]}">{SYMBOL[_STATUS_VERDICT[t.status]]} '
            f"<code>{esc(t.trial_label)}</code></span>" for t in case.trials
        )
        rows.append(
            f'<tr><th scope="row"><a href="#c{index}">{esc(case.case_id)}</a></th>'
            f'<td class="{_STATUS_CLASS[case.status]}">{case.status}</td>'
            f"<td><code>{esc(case.trials_rule or '')}</code></td>"
            f"<td>{stats.passed}/{stats.n}</td><td>{esc(case.stability or '-')}</td>"
            f"<td>{marks}</td>"
            f"<td>{esc(_k_figures(stats.pass_hat_k))}</td>"
            f"<td>{esc(_k_figures(stats.pass_at_k))}</td></tr>"
        )
    means = "".join(
        f"<tr><td>{m.k}</td><td>{m.cases}</td><td>{m.pass_hat_k:.3f}</td>"
        f"<td>{m.pass_at_k:.3f}</td></tr>" for m in trials.by_k
    )
    return (
        f'<h3>Trials</h3><p>{trials.cases} case(s) ran {trials.trials} trials; '
        f"{trials.passed_trials} passed.{esc(_labels(trials.labels_text()))}</p>"
        '<table class="trials" id="trials"><thead><tr><th scope="col">case</th>'
        '<th scope="col">status</th><th scope="col">rule</th><th scope="col">passed</th>'
        '<th scope="col">label</th><th scope="col">trials</th><th scope="col">pass^k</th>'
        '<th scope="col">pass@k</th>'
        f'</tr></thead><tbody>{"".join(rows)}</tbody></table>'
        '<table class="trials-means"><thead><tr><th scope="col">k</th><th scope="col">cases'
        '</th><th scope="col">mean pass^k</th><th scope="col">mean pass@k</th></tr></thead>'
        f"<tbody>{means}</tbody></table>"
    )


def _labels(text: str) -> str:
    return f" Labels: {text}." if text else ""


def _k_figures(values: Sequence[float]) -> str:
    return ", ".join(f"{k}: {v:.2f}" for k, v in enumerate(values, 1))


def _warnings_section(suite: SuiteResult) -> str:
    """Things a reader should check that change no verdict (a trace whose own task id
    differs from its test case's), as the console and the Markdown report list them."""
    items = [
        f'<li><a href="#c{index}"><code>{esc(case.case_id)}</code></a>: {_cut(warning)}</li>'
        for index, case in enumerate(suite.cases) for warning in case.warnings
    ]
    if not items:
        return ""
    return f'<h3>Warnings</h3><ul class="warnings" id="warnings">{"".join(items)}</ul>'


def _run_settings(metadata: Mapping[str, Any]) -> str:
    # The suite path is the page's subtitle already.
    shown = sorted(k for k in metadata if k != "suite")
    if not shown:
        return ""
    items = "".join(
        f"<dt>{esc(key)}</dt><dd><code>{_cut(_json_text(metadata[key]))}</code></dd>"
        for key in shown
    )
    return f'<h3>Run</h3><dl class="meta" id="run">{items}</dl>'


# --- the per-metric gates ---------------------------------------------------------------


def gates_section(suite: SuiteResult, summary: Summary) -> str:
    """Return the per-metric gates of the run (``--fail-under-metric``, ``[gates]``), or ``""``
    when it had none: each name, its pass rate, the line it must reach, where that line was
    set, and the verdict."""
    if not summary.gates:
        return ""
    rows = []
    for gate in summary.gates:
        verdict = "pass" if gate.passed else "fail"
        rows.append(
            f'<tr><td class="{_VERDICT_CLASS[verdict]}">{SYMBOL[verdict]} {verdict}</td>'
            f'<th scope="row">{esc(gate.name)}</th>'
            f'<td class="fig">{percent(gate.figure)}</td><td class="fig">{percent(gate.line)}</td>'
            f"<td><code>{esc(suite.gate_source(f'gates.{gate.name}'))}</code></td></tr>"
        )
    return (
        '<section id="gates-section"><h3>Gates</h3>'
        '<table class="gates" id="gates"><caption>Per-metric gates</caption><thead><tr>'
        '<th scope="col">verdict</th><th scope="col">gate (metric or check)</th>'
        '<th scope="col">pass rate</th><th scope="col">needs</th><th scope="col">set by</th>'
        f'</tr></thead><tbody>{"".join(rows)}</tbody></table></section>'
    )


# --- the cases table -------------------------------------------------------------------


def _cell(check: CheckResult | None) -> str:
    if check is None:
        return '<td class="v-none">-</td>'
    v = check.verdict
    if v in ("n.a.", "error"):
        return f'<td class="{_VERDICT_CLASS[v]}">{SYMBOL[v]} {v}</td>'
    if check.report_only:  # a pass that cannot be missed: no tick, the words say why
        return (f'<td class="{_VERDICT_CLASS[v]} v-report"><abbr title="report only: pass line '
                f'0">report only</abbr> {esc(check.score_text())}</td>')
    # The abbr's title gives the word to screen readers and on hover. (A visually hidden
    # span, the usual trick, is absolutely positioned: 45,000 of them made Chromium take
    # seconds longer to lay out a 5,000-case table.)
    return (
        f'<td class="{_VERDICT_CLASS[v]}"><abbr title="{v}">{SYMBOL[v]}</abbr> '
        f"{esc(check.score_text())}</td>"
    )


_WORST_FIRST: tuple[Verdict, ...] = ("error", "fail", "pass", "n.a.")


def _trials_cell(case: CaseResult, name: str) -> str:
    """One check over a case's trials: the worst verdict's class (so the filters and the
    sort treat a check that failed one trial as failed), and how many judged trials passed;
    "report only" when every trial's result has a pass line of 0, as for one result."""
    held = [c for record in case.judged() for c in record.checks if c.name == name]
    verdicts = [c.verdict for c in held]
    if not verdicts:
        return '<td class="v-none">-</td>'
    worst = next(v for v in _WORST_FIRST if v in verdicts)
    judged = [v for v in verdicts if v != "n.a."]
    if not judged:
        return f'<td class="{_VERDICT_CLASS["n.a."]}">{SYMBOL["n.a."]} n.a.</td>'
    passed = judged.count("pass")
    title = f"{passed} of {len(judged)} judged trials passed"
    if all(c.report_only for c in held):
        return (f'<td class="{_VERDICT_CLASS[worst]} v-report"><abbr title="report only: pass '
                f'line 0; {title}">report only</abbr> {passed}/{len(judged)}</td>')
    return (f'<td class="{_VERDICT_CLASS[worst]}"><abbr title="{title}">{SYMBOL[worst]}</abbr> '
            f"{passed}/{len(judged)}</td>")


def _case_row(index: int, case: CaseResult, names: Sequence[str]) -> str:
    status = case.status
    if case.trials:
        cells = "".join(_trials_cell(case, name) for name in names)
    else:
        by_name = {c.name: c for c in case.checks}
        cells = "".join(_cell(by_name.get(name)) for name in names)
    return (
        f'<tr data-status="{status}"><th scope="row"><a href="#c{index}">{esc(case.case_id)}'
        f'</a></th><td class="{_STATUS_CLASS[status]}">{SYMBOL[_STATUS_VERDICT[status]]} '
        f"{status}</td>{cells}</tr>"
    )


def _controls(names: Sequence[str]) -> str:
    statuses = (
        ("", "every status"), ("not-passed", "failed or errored"), ("failed", "failed"),
        ("error", "errored"), ("passed", "passed"), ("n.a.", "n.a."),
    )
    status_options = "".join(f'<option value="{v}">{label}</option>' for v, label in statuses)
    check_options = '<option value="">the case as a whole</option>' + "".join(
        f'<option value="{esc(n)}">{esc(n)}</option>' for n in names
    )
    return (
        '<div class="controls" id="controls" hidden role="search">'
        f'<label>show <select id="f-status">{status_options}</select></label>'
        f'<label>judged by <select id="f-check">{check_options}</select></label>'
        '<label>containing <input type="search" id="f-text" placeholder="case id or any text">'
        '</label><output id="f-shown" aria-live="polite"></output></div>'
    )


def _legend() -> str:
    keys = " ".join(
        f'<span class="{_VERDICT_CLASS[v]}">{SYMBOL[v]} {v}</span>' for v in SYMBOL
    )
    return (
        f'<p class="legend">{keys} &#8212; a cell shows the primary score; '
        "n.a.: nothing to judge; -: not run on that case.</p>"
    )


def _columns(checks: int) -> str:
    span = f'<col span="{checks}" class="c-check">' if checks else ""
    return f'<colgroup><col class="c-case"><col class="c-status">{span}</colgroup>'


def _cases_table(suite: SuiteResult, names: Sequence[str]) -> str:
    # Long snake_case names may wrap after an underscore, never inside a word.
    head = "".join(
        f'<th scope="col" data-check="{esc(n)}">{esc(n).replace("_", "_<wbr>")}</th>'
        for n in names
    )
    rows = "".join(_case_row(i, case, names) for i, case in enumerate(suite.cases))
    return (
        '<section id="cases-section"><h2>Cases</h2>'
        f"{_controls(names)}"
        '<noscript><p class="muted">Scripts are off: the table is complete but does not sort '
        "or filter.</p></noscript>"
        f'{_legend()}<div class="scroll"><table id="cases">{_columns(len(names))}<thead><tr>'
        f'<th scope="col">case</th><th scope="col">status</th>{head}</tr></thead>'
        f"<tbody>{rows}</tbody></table></div></section>"
    )


# --- case views ------------------------------------------------------------------------


@dataclass(frozen=True)
class Mismatch:
    """One ``WHERE: expected A, got B`` part of a details line."""

    where: str
    expected: str
    got: str


_EXPECTED_GOT = re.compile(r"(?P<where>.+?): expected (?P<expected>.+?), got (?P<got>.+)")
_MAX_PART = 2000  # longer parts are not parsed: keeps the regex's work bounded


def mismatches(details: str) -> list[Mismatch]:
    """Return the ``WHERE: expected A, got B`` parts of ``details`` (split at ``"; "``).

    The metrics write their findings that way (``refund_order.amount: expected 42.5, got
    "42.50"``). A value that itself holds ``"; "`` splits wrongly here; the details line is
    always shown whole beside the table. At most :data:`MAX_MISMATCHES` parts are returned.
    """
    found: list[Mismatch] = []
    for part in details[: MAX_TEXT_CHARS].split("; "):
        if len(part) > _MAX_PART:
            continue
        match = _EXPECTED_GOT.fullmatch(part)
        if match:
            found.append(Mismatch(match["where"], match["expected"], match["got"]))
            if len(found) == MAX_MISMATCHES:
                break
    return found


def _mismatch_table(found: Sequence[Mismatch]) -> str:
    rows = "".join(
        f"<tr><th scope=\"row\"><code>{esc(m.where)}</code></th><td><code>{esc(m.expected)}"
        f"</code></td><td><code>{esc(m.got)}</code></td></tr>"
        for m in found
    )
    return (
        '<table class="align"><caption>expected vs got</caption><thead><tr>'
        '<th scope="col">where</th><th scope="col">expected</th><th scope="col">got</th>'
        f"</tr></thead><tbody>{rows}</tbody></table>"
    )


def _pass_line(check: CheckResult) -> str:
    threshold = check.spec.threshold
    if threshold is None:
        return ""
    primary = check.primary
    lower = primary is not None and primary.higher_is_better is False
    return f" <small>(pass line {'≤' if lower else '≥'} {threshold:g})</small>"


def _score_item(score: Score, check: CheckResult) -> str:
    name = "" if score.name in (None, check.name) else f"<code>{esc(score.name)}</code> = "
    notes: list[str] = []
    if score.data_type != "NUMERIC":
        notes.append(score.data_type)
    if score.higher_is_better is False:
        notes.append("lower is better")
    note = f" <small>{' · '.join(notes)}</small>" if notes else ""
    comment = (
        f" &#8212; {_cut(score.comment)}"
        if score.comment and score.comment != check.details else ""
    )
    value = boolean_text(score) if isinstance(score.value, bool) else _number(score.value)
    return f"{name}{esc(value)}{note}{comment}"


def _scores(check: CheckResult) -> str:
    if not check.scores:
        return '<span class="muted">no score</span>'
    items = [_score_item(s, check) for s in check.scores]
    if len(items) == 1:
        return items[0] + _pass_line(check)
    return (
        f'<ul class="scores">{"".join(f"<li>{i}</li>" for i in items)}</ul>{_pass_line(check)}'
    )


def _verdict_text(check: CheckResult) -> str:
    if check.report_only:
        return "report only <small>(pass line 0: reported, not judged)</small>"
    return f"{SYMBOL[check.verdict]} {check.verdict}"


def _check_row(check: CheckResult) -> str:
    v = check.verdict
    spec = check.spec
    about = []
    if spec.kind != spec.name:
        about.append(spec.kind)
    if spec.family != "metric":
        about.append(spec.family)
    label = f'<div class="family">{esc(" · ".join(about))}</div>' if about else ""
    settings = (
        f'<div class="family">settings <code>{_cut(_json_text(dict(spec.settings)))}</code></div>'
        if spec.settings else ""
    )
    found = [] if check.data.get("alignment") else mismatches(check.details)
    table = _mismatch_table(found) if found else ""
    table += "".join(f'<div class="note">note: {_cut(note)}</div>' for note in check.notes)
    bad = ' class="bad"' if v in ("fail", "error") else ""
    return (
        f"<tr{bad}><th>{esc(check.name)}{label}{settings}</th>"
        f'<td class="{_VERDICT_CLASS[v]}">{_verdict_text(check)}</td><td>{_scores(check)}</td>'
        f"<td>{_cut(check.details)}{table}</td></tr>"
    )


def _meta(case: CaseResult) -> str:
    items = []
    if case.task_id != case.case_id:
        items.append(("task", esc(case.task_id)))
    items.append(("test case", f"<code>{esc(case.testcase_path or '-')}</code>"))
    trace = f"<code>{esc(case.trace_path)}</code>" if case.trace_path else "-"
    if case.trace_format:
        trace += f" ({esc(case.trace_format)})"
    items.append(("trace", trace))
    if case.trace_task_id is not None and case.trace_task_id != case.task_id:
        items.append(("trace task", esc(case.trace_task_id)))
    return '<dl class="meta">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in items) + "</dl>"


# --- the case's calls side by side, its steps, its output --------------------------------


def _status_cell(row: Mapping[str, Any], first: bool) -> str:
    status = esc(text_of(row.get("status", "")))
    ok = row.get("ok", True) is not False
    mark = ' <strong class="div-mark">&#8592; first divergence</strong>' if first else ""
    verdict = "pass" if ok else "fail"
    return f'<td class="{_VERDICT_CLASS[verdict]}">{SYMBOL[verdict]} {status}{mark}</td>'


def _differences(row: Mapping[str, Any]) -> str:
    items = []
    for where, expected, got, reason in difference_parts(row)[:MAX_MISMATCHES]:
        if reason is not None:
            items.append(f"<li><code>{_cut(where)}</code>: {_cut(reason)}</li>")
            continue
        want = (
            '<span class="muted">not expected</span>' if expected is None
            else f"<code>{_cut(expected)}</code>"
        )
        items.append(
            f'<li><code>{_cut(where)}</code>: expected {want}, got <code class="got">'
            f"{_cut(got)}</code></li>"
        )
    note = row.get("note")
    if isinstance(note, str) and note:
        items.append(f'<li class="muted">{_cut(note)}</li>')
    return f'<ul class="diffs">{"".join(items)}</ul>' if items else ""


def alignment_view(check: CheckResult) -> str:
    """Return the expected and executed calls of ``check`` side by side, its first divergence
    marked and each differing argument shown both ways; ``""`` when it holds no alignment."""
    alignment = Alignment.of(check)
    if not alignment.rows:
        return ""
    body = []
    for n, row in enumerate(alignment.rows):
        first = n == alignment.first
        number = position(row)
        expected = tool_name(text_of(row.get("tool", ""))) if number else ""
        step = row.get("step_id")
        tool = row.get("got_tool") or row.get("tool", "")
        executed = (
            f'<span class="muted">step {esc(text_of(step))}</span> '
            f"{tool_name(text_of(tool))}" if step is not None else "-"
        )
        css = ' class="first-div"' if first else (
            ' class="bad"' if row.get("ok", True) is False else "")
        body.append(
            f"<tr{css}><td>{number}</td><td>{expected}</td><td>{executed}</td>"
            f"{_status_cell(row, first)}<td>{_differences(row)}</td></tr>"
        )
    cut = ""
    if alignment.total > len(alignment.rows):
        cut = (
            f'<p class="muted">Rows {alignment.start + 1}-{alignment.start + len(alignment.rows)}'
            f" of {alignment.total}, from shortly before the first divergence.</p>"
        )
    return (
        f'<table class="align calls"><caption>Expected vs executed calls '
        f"<small>({esc(check.name)})</small></caption><thead><tr><th>#</th>"
        "<th>expected</th><th>executed</th><th>status</th><th>differing arguments</th></tr>"
        f'</thead><tbody>{"".join(body)}</tbody></table>{cut}'
    )


def frame_view(check: CheckResult) -> str:
    """Return the state diff or the per-turn results ``check`` holds as a table (its failing
    rows marked), bounded as the alignment is; ``""`` when it holds neither."""
    kind = check.spec.kind
    columns, rows, left_out = table_of(check)
    if not rows:
        return ""
    head = "".join(f"<th>{esc(c)}</th>" for c in columns)
    body = []
    for row in rows:
        ok = row_ok(kind, row)
        cells = [f"<td><code>{_cut(text)}</code></td>" if kind == STATE_KIND and n < 3
                 else f"<td>{_cut(text)}</td>" for n, text in enumerate(row)]
        at = 3 if kind == STATE_KIND else 1
        verdict = "pass" if ok else "fail"
        cells[at] = (f'<td class="{_VERDICT_CLASS[verdict]}">{SYMBOL[verdict]} '
                     f"{_cut(row[at])}</td>")
        css = "" if ok else ' class="bad"'
        body.append(f"<tr{css}>{''.join(cells)}</tr>")
    title = "State changes" if kind == STATE_KIND else "Per-turn expectations"
    more = f'<p class="muted">{left_out} more rows not shown.</p>' if left_out else ""
    return (
        f'<table class="align frame {esc(kind)}"><caption>{title} <small>({esc(check.name)})'
        f'</small></caption><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
        f"</table>{more}"
    )


_NAME_BREAKS = re.compile(r"([_.\-/:])")


def tool_name(name: str) -> str:
    """Return a tool name as ``<code class="tool">``: it wraps only after ``_``, ``.``, ``-``,
    ``/`` or ``:`` (a ``<wbr>`` there; the class turns off breaking anywhere else), so
    ``lookup_order`` never reads as ``looku`` / ``p_order``."""
    if len(name) > MAX_TEXT_CHARS:
        return f'<code class="tool">{_cut(name)}</code>'
    broken = _NAME_BREAKS.sub(r"\1<wbr>", esc(name))
    return f'<code class="tool">{broken}</code>'


def _step_flags(step: ExcerptStep) -> str:
    flags = [("denied", step.denied), ("error", step.error is not None),
             ("divergent", step.divergent)]
    words = [f'<span class="flag">{name}</span>' for name, on in flags if on]
    if step.turn is not None:
        words.append(f'<span class="muted">turn {step.turn}</span>')
    return " ".join(words)


def _step_cost(step: ExcerptStep) -> str:
    parts = []
    if step.latency_ms is not None:
        parts.append(f"{step.latency_ms:g} ms")
    if step.tokens:
        parts.append(", ".join(f"{esc(k)} {v}" for k, v in sorted(step.tokens.items())))
    return "<br>".join(parts)


def timeline(excerpt: TraceExcerpt, divergent_step: int | None = None) -> str:
    """Return the step timeline of a case: each kept step with its tool, arguments, result or
    text, error, flags, latency and tokens; the step of the first divergence marked."""
    if not excerpt.steps:
        return '<p class="muted">The trace holds no step.</p>'
    rows = []
    for step in excerpt.steps:
        first = divergent_step is not None and step.step_id == divergent_step
        bad = step.denied or step.error is not None or step.divergent
        css = ' class="first-div"' if first else (' class="bad"' if bad else "")
        what = step.args if step.type == "tool_call" and step.args is not None else step.content
        result = _cut(step.result) if step.result is not None else ""
        if step.error is not None:
            result += f'<div class="error-text">{_cut(step.error)}</div>'
        mark = ' <strong class="div-mark">&#8592; first divergence</strong>' if first else ""
        rows.append(
            f"<tr{css}><td>{step.step_id}{mark}</td><td>{esc(step.type)}</td>"
            f"<td>{tool_name(step.tool_name or '')}</td><td><code>{_cut(what or '')}"
            f"</code></td><td>{result}</td><td>{_step_flags(step)}</td>"
            f"<td>{_step_cost(step)}</td></tr>"
        )
    more = (
        f'<p class="muted">{excerpt.steps_left_out:,} more steps not kept in the results.</p>'
        if excerpt.steps_left_out else ""
    )
    return (
        '<table class="timeline"><caption>Steps</caption><thead><tr><th>step</th><th>type</th>'
        "<th>tool</th><th>arguments or text</th><th>result</th><th>flags</th>"
        f'<th>latency, tokens</th></tr></thead><tbody>{"".join(rows)}</tbody></table>{more}'
    )


_WORDS = re.compile(r"\s+|\S+")


def word_diff(expected: str, actual: str) -> str:
    """Return ``actual`` against ``expected`` word by word: words only expected in ``<del>``,
    words only in the output in ``<ins>`` (both texts are bounded by the excerpt)."""
    import difflib

    old, new = _WORDS.findall(expected), _WORDS.findall(actual)
    out = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            out.append(esc("".join(old[a1:a2])))
            continue
        if a2 > a1:
            out.append(f"<del>{esc(''.join(old[a1:a2]))}</del>")
        if b2 > b1:
            out.append(f"<ins>{esc(''.join(new[b1:b2]))}</ins>")
    return "".join(out)


def output_view(excerpt: TraceExcerpt) -> str:
    """Return the final output and, when the case sets one, the expected output beside it
    with a word-level diff."""
    final = _cut(excerpt.final_output) or '<span class="muted">(none)</span>'
    if excerpt.expected_output is None:
        return f'<h4>Final output</h4><pre class="output">{final}</pre>'
    return (
        '<table class="outputs"><thead><tr><th>expected output</th><th>final output</th></tr>'
        f'</thead><tbody><tr><td><pre class="output">{_cut(excerpt.expected_output)}</pre></td>'
        f'<td><pre class="output">{final}</pre></td></tr></tbody></table>'
        '<h4>Word diff <small>(<del>expected only</del> <ins>output only</ins>)</small></h4>'
        f'<pre class="output wdiff">{word_diff(excerpt.expected_output, excerpt.final_output)}'
        "</pre>"
    )


def _trace_views(record: CaseResult) -> str:
    """The calls side by side, the step timeline and the output of one scored record."""
    parts = []
    chosen = aligned_check(record)
    divergent = None
    if chosen is not None:
        parts.append(alignment_view(chosen))
        divergent = Alignment.of(chosen).divergent_step
    parts += [frame_view(check) for check in framed_checks(record)]
    excerpt = record.trace_excerpt
    if excerpt is not None:
        parts.append(timeline(excerpt, divergent))
        parts.append(output_view(excerpt))
    return "".join(parts)


def _not_passed(case: CaseResult) -> str:
    bad = [c.name for c in case.checks if c.verdict in ("fail", "error")]
    if case.error is not None:
        bad.insert(0, "could not be scored")
    if not bad:
        return ""
    shown = ", ".join(bad[:5]) + (f" and {len(bad) - 5} more" if len(bad) > 5 else "")
    return f' <span class="bad">{esc(shown)}</span>'


def case_view(index: int, case: CaseResult) -> str:
    """Return the collapsed ``<details>`` view of ``case``, whose id is ``c<index>``."""
    status = case.status
    error = (
        f'<div class="error-box"><strong>Could not be scored:</strong> <pre>{_cut(case.error)}'
        "</pre></div>"
        if case.error is not None else ""
    )
    checks = (
        # Per-case tables are many: header cells of a thead and row headers of a tbody need
        # no scope attribute (that is their default), and the details cell is styled by place.
        '<table class="checks"><thead><tr><th>metric or check</th><th>verdict</th>'
        f'<th>scores</th><th>details</th></tr></thead><tbody>'
        f'{"".join(_check_row(c) for c in case.checks)}</tbody></table>'
        if case.checks else ""
    )
    trials = "".join(
        f'<h4>Trial <code>{esc(t.trial_label)}</code>: {esc(t.status)}</h4>{_trace_views(t)}'
        for t in case.trials
    )
    return (
        f'<details class="case" id="c{index}"><summary><span class="st '
        f'{_STATUS_CLASS[status]}">{SYMBOL[_STATUS_VERDICT[status]]} {status}</span> '
        f"<code>{esc(case.case_id)}</code>{_not_passed(case)}</summary>"
        f"<div>{_meta(case)}{error}{_trace_views(case)}{trials}{checks}</div></details>"
    )


def _case_views(suite: SuiteResult) -> str:
    views = "".join(case_view(i, case) for i, case in enumerate(suite.cases))
    kept = any(r.trace_excerpt is not None for c in suite.cases for r in (c, *c.trials))
    steps = (
        "its steps and output" if kept else
        "(with steps kept: <code>openeval run --html</code> or <code>--keep-steps</code>) its "
        "steps and output"
    )
    return (
        '<section id="case-views"><h2>Case details</h2><p class="muted" id="views-note">Each '
        f"case, collapsed: click to open: its expected and executed calls side by side, {steps}, "
        f"and every check's verdict, scores and details.</p>{views}</section>"
    )


# --- the page --------------------------------------------------------------------------


def _title(suite: SuiteResult, summary: Summary) -> str:
    name = suite.metadata.get("suite")
    where = f" · {name}" if isinstance(name, str) and name else ""
    gate = "gate passed" if summary.gate_passed else "gate failed"
    return f"OpenEval: {gate} · pass rate {percent(summary.pass_rate)}{where}"


def render_page(suite: SuiteResult) -> str:
    """Return the whole HTML document of ``suite``."""
    summary = suite.summary
    style, script = _asset("report.css"), _asset("report.js")
    policy = (
        f"default-src 'none'; style-src {_csp_hash(style)}; script-src {_csp_hash(script)}; "
        "base-uri 'none'; form-action 'none'"
    )
    names = list(summary.per_check)
    suite_name = suite.metadata.get("suite")
    subtitle = (
        f'<p class="suite">suite <code>{esc(suite_name)}</code></p>'
        if isinstance(suite_name, str) and suite_name else ""
    )
    overview = (
        '<section id="overview"><h2>Overview</h2>'
        f'<div class="top">{_verdict_block(summary)}{_figures(suite, summary)}'
        f"{_counts(summary)}</div>"
        f"{gates_section(suite, summary)}{_rates(suite, summary)}{_trials_section(suite, summary)}"
        f"{_warnings_section(suite)}{_run_settings(suite.metadata)}</section>"
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{policy}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta name="generator" content="OpenEval {esc(__version__)}">\n'
        f"<title>{esc(_title(suite, summary))}</title>\n<style>{style}</style>\n</head>\n<body>\n"
        f"<header><h1>OpenEval report</h1>{subtitle}</header>\n<main>\n{overview}\n"
        f"{_cases_table(suite, names)}\n{_case_views(suite)}\n</main>\n"
        f"<footer>Written by OpenEval {esc(__version__)} from the run's result records; "
        "static, no network needed.</footer>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


@dataclass(frozen=True)
class HtmlReporter:
    """A static, self-contained HTML page: overview, cases table, a view per case."""

    name: str = "html"
    description: str = "one self-contained HTML page: overview, filterable cases, case views"

    def render(self, suite: SuiteResult) -> str:
        """Return the HTML document, ending in a newline."""
        return render_page(suite)


REPORTER = HtmlReporter()

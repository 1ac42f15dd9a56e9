"""Both reporter registries follow the recipe of proposals/0110: a table of built-ins, and a
format registered at run time reaches every caller that renders by name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from builders import case

from openeval.errors import SuiteError
from openeval.report import registry
from openeval.report.diff import diff_github, diff_json, diff_markdown
from openeval.results.diff import ResultDiff, diff_results
from openeval.results.records import SuiteResult

BASE = SuiteResult(cases=(case("refund", True, True), case("steady", True, True)))
HEAD = SuiteResult(cases=(case("refund", True, False), case("steady", True, True)))


class CountChanges:
    name = "count-changes"
    description = "how many cases changed kind"

    def render(self, diff: ResultDiff, *, base: str | None, head: str | None,
               failing: bool) -> str:
        return f"{len(diff.regressions)} worse ({base} -> {head}, failing={failing})\n"


@pytest.fixture
def diff() -> ResultDiff:
    return diff_results(BASE, HEAD)


@pytest.fixture
def counted() -> Iterator[CountChanges]:
    reporter = registry.register_diff(CountChanges())
    yield reporter
    registry.DIFF_REGISTRY.unregister(reporter.name)


def test_builtin_tables_list_the_formats_in_order() -> None:
    assert registry.names()[:5] == ["markdown", "json", "junit", "github", "html"]
    assert registry.diff_names()[:3] == ["markdown", "json", "github"]


def test_builtin_comparison_formats_render_as_their_functions(diff: ResultDiff) -> None:
    assert registry.render_diff(diff, "markdown") == diff_markdown(diff)
    assert registry.render_diff(diff, "json", base="b", head="h") == diff_json(diff, "b", "h")
    assert registry.render_diff(diff, "github", failing=False) == diff_github(diff,
                                                                              failing=False)


def test_a_registered_comparison_format_renders_by_name(
    counted: CountChanges, diff: ResultDiff
) -> None:
    assert "count-changes" in registry.diff_names()
    assert registry.get_diff("count-changes") is counted
    assert registry.render_diff(diff, "count-changes", base="b", head="h") == (
        "1 worse (b -> h, failing=True)\n")


def test_an_unknown_format_lists_the_valid_ones() -> None:
    with pytest.raises(SuiteError, match="unknown comparison format 'pdf'; expected one of: "
                                         "markdown, json, github"):
        registry.get_diff("pdf")
    with pytest.raises(SuiteError, match="unknown report format 'pdf'; expected one of: "
                                         "markdown, json, junit, github, html"):
        registry.get("pdf")

"""The check library's own patterns read an author's reply, so none may backtrack
polynomially on it. Three were rewritten for that; each rewrite is held equal to the pattern it
replaced (kept here as the reference) on every string of a small alphabet that Hypothesis
draws, and every module-level pattern of ``openeval.checks`` passes the static test user
patterns meet (``matching/regex_bounds.backtracking_risk``)."""

from __future__ import annotations

import importlib
import pkgutil
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from run_profile import examples

import openeval.checks
from openeval.checks.conversation import _ORDER
from openeval.checks.format import _TABLE_DELIMITER, atx_heading
from openeval.matching.regex_bounds import backtracking_risk

OLD_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
OLD_TABLE_DELIMITER = re.compile(
    r"^[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$"
)
OLD_ORDER = re.compile(
    r"\b(?i:order|ticket|case|booking|reservation|confirmation|invoice|reference|ref|tracking)"
    r"(?i:[ \t]*(?:number|no\.?|num|id|code|#))?[ \t]*[:#]?[ \t]*(?i:is[ \t]+)?"
    r"((?=[A-Za-z-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,40})\b"
)

# Known to repeat blanks side by side, and measured harmless: a fence line needs three
# backticks first, and the worst line of 10,000 characters takes about 40 ms.
LINEAR_ENOUGH = {("text", "_FENCE"), ("util", "_FENCE")}


def _old_atx(line: str) -> str | None:
    match = OLD_ATX.match(line)
    return None if match is None else (match.group(2) or "")


def _pieces(*words: str) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(words), max_size=12).map("".join)


@settings(max_examples=examples(1500), deadline=None)
@given(_pieces(" ", "  ", "\t", "#", "##", "###", "a", "b c", "\n", "x#"))
def test_the_heading_reader_is_the_pattern_it_replaced(line: str) -> None:
    got = atx_heading(line)
    expected = _old_atx(line)
    assert (got is None) == (expected is None)
    if got is not None and expected is not None:
        assert got.strip() == expected.strip()


@settings(max_examples=examples(1500), deadline=None)
@given(_pieces(" ", "\t", "|", "-", "--", ":", "x", "\n"))
def test_the_table_delimiter_is_the_pattern_it_replaced(line: str) -> None:
    assert bool(_TABLE_DELIMITER.match(line)) == bool(OLD_TABLE_DELIMITER.match(line))


@settings(max_examples=examples(1500), deadline=None)
@given(_pieces(" ", "\t", "order", "Order", " number", " no.", "#", ":", " is ", "A1", "12",
               "-", "x", "case"))
def test_the_order_number_pattern_is_the_pattern_it_replaced(text: str) -> None:
    assert [m.group(1) for m in _ORDER.finditer(text)] == \
        [m.group(1) for m in OLD_ORDER.finditer(text)]


@pytest.mark.parametrize("line, heading", [
    ("# Title", "Title"), ("##   Title  ##  ", "Title"), ("#", ""), ("####### x", None),
    ("#######", ""), ("#x", None), ("    # code", None), ("# a # b #", "a # b"),
])
def test_headings(line: str, heading: str | None) -> None:
    assert atx_heading(line) == heading
    old = _old_atx(line)
    assert (None if old is None else old.strip()) == heading


def _check_patterns() -> list[tuple[str, str, re.Pattern[str]]]:
    found = []
    for module in pkgutil.iter_modules(openeval.checks.__path__):
        namespace = vars(importlib.import_module(f"openeval.checks.{module.name}"))
        found += [(module.name, name, value) for name, value in sorted(namespace.items())
                  if isinstance(value, re.Pattern)]
    return found


PATTERNS = _check_patterns()


@pytest.mark.parametrize("module, name, pattern", PATTERNS,
                         ids=[f"{m}.{n}" for m, n, _ in PATTERNS])
def test_no_check_pattern_backtracks(module: str, name: str, pattern: re.Pattern[str]) -> None:
    risk = backtracking_risk(pattern.pattern)
    if (module, name) in LINEAR_ENOUGH:
        assert risk is not None, "no longer flagged: take it off LINEAR_ENOUGH"
    else:
        assert risk is None

"""The similarity checks: their cases in ``tests/data/checks/similarity.json``, and the
libraries the reference names as their models, on generated inputs.

autoevals (NumericDiff, Levenshtein, JSONDiff), rouge-score (ROUGE-1, ROUGE-2, ROUGE-L F1) and
NLTK (sentence BLEU with Lin and Och's add-one smoothing, "method2") are in the test extra.
"""

from __future__ import annotations

import json
import math
import warnings
from typing import Any

import pytest
from autoevals.json import JSONDiff
from autoevals.number import NumericDiff
from autoevals.string import Levenshtein
from check_cases import params, run_case
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import sentence_bleu as nltk_bleu
from rouge_score.rouge_scorer import RougeScorer
from run_profile import examples

from openeval.checks import bleu, json_diff, levenshtein_ratio, numeric_diff, rouge
from openeval.checks.similarity import lcs_length, levenshtein


@pytest.mark.parametrize("case", params("similarity"))
def test_similarity_case(case: dict[str, Any]) -> None:
    run_case("similarity", case)


numbers = st.one_of(st.integers(-10**6, 10**6),
                    st.floats(-1e9, 1e9, allow_nan=False, allow_infinity=False))
# Lower-case ASCII words: the tokens every library here agrees on.
word_lists = st.lists(st.sampled_from(["the", "cat", "sat", "on", "mat", "a", "dog", "ran",
                                       "red", "blue", "x1"]), min_size=1, max_size=40)
short_text = st.text(alphabet="abcdeé猫 ", max_size=60)
# Quarters print alike in every JSON writer (values of different kinds compare as JSON text).
json_without_null_or_bool = st.recursive(
    st.integers(-1000, 1000) | st.integers(-4000, 4000).map(lambda q: q / 4)
    | st.text("abc", max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from("pqrs"), inner,
                                                                max_size=4),
    max_leaves=10,
)


@settings(max_examples=examples(200), deadline=None)
@given(reply=numbers, expected=numbers)
def test_numeric_diff_is_autoevals_numeric_diff(reply: float, expected: float) -> None:
    theirs = NumericDiff().eval(reply, expected).score
    assert numeric_diff(reply, reference=expected)[0].value == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(reply=short_text, expected=short_text)
def test_levenshtein_ratio_is_autoevals_levenshtein(reply: str, expected: str) -> None:
    theirs = Levenshtein().eval(reply, expected).score
    assert levenshtein_ratio(reply, reference=expected)[0].value == pytest.approx(theirs)


def _edit_distance(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, start=1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, start=1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


@settings(max_examples=examples(150), deadline=None)
@given(a=st.text("abc", max_size=80), b=st.text("abc", max_size=80))
def test_bit_parallel_edit_distance_is_the_textbook_one(a: str, b: str) -> None:
    assert levenshtein(a, b) == _edit_distance(a, b)


@settings(max_examples=examples(150), deadline=None)
@given(a=st.lists(st.sampled_from("xyz"), max_size=70), b=st.lists(st.sampled_from("xyz"),
                                                                    max_size=70))
def test_bit_parallel_lcs_is_the_textbook_one(a: list[str], b: list[str]) -> None:
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1],
                                                                     table[i + 1][j])
    assert lcs_length(a, b) == table[-1][-1]


@settings(max_examples=examples(200), deadline=None)
@given(reply=json_without_null_or_bool, expected=json_without_null_or_bool)
def test_json_diff_is_autoevals_json_diff(reply: Any, expected: Any) -> None:
    # preserve_strings: strings are compared as strings, as the reference says; autoevals would
    # otherwise parse a string that happens to be JSON text ("12") into a number.
    # Our side gets JSON text: a plain string argument is the reply's text, not a JSON string.
    theirs = JSONDiff(preserve_strings=True).eval(reply, expected).score
    ours = json_diff(json.dumps(reply), reference=json.dumps(expected))[0].value
    assert ours == pytest.approx(theirs, abs=1e-9)


@settings(max_examples=examples(200), deadline=None)
@given(reply=word_lists, expected=word_lists)
def test_rouge_is_rouge_score(reply: list[str], expected: list[str]) -> None:
    theirs = RougeScorer(["rougeL", "rouge1", "rouge2"]).score(" ".join(expected),
                                                               " ".join(reply))
    ours = rouge(" ".join(reply), reference=" ".join(expected))
    assert ours["rouge_l"].value == pytest.approx(theirs["rougeL"].fmeasure)
    assert ours["rouge_1"].value == pytest.approx(theirs["rouge1"].fmeasure)
    assert ours["rouge_2"].value == pytest.approx(theirs["rouge2"].fmeasure)


@settings(max_examples=examples(200), deadline=None)
@given(reply=word_lists, expected=word_lists, max_n=st.integers(1, 4))
def test_bleu_is_nltk_sentence_bleu_with_add_one_smoothing(
    reply: list[str], expected: list[str], max_n: int
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = nltk_bleu([expected], reply, weights=(1 / max_n,) * max_n,
                           smoothing_function=SmoothingFunction().method2)
    ours = bleu(" ".join(reply), reference=" ".join(expected), max_n=max_n)[0].value
    assert math.isclose(ours, float(theirs), abs_tol=1e-9)

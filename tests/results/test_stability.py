"""Stability labels of a case with trials: the band's rule, the record, result files, counts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from builders import case, record_digests

from openeval.results.files import read_results, write_results
from openeval.results.records import CaseResult, SuiteResult
from openeval.results.trials import DEFAULT_FLAKY_BAND, FlakyBand
from openeval.runner import run_suite

DATA = json.loads((Path(__file__).parents[1] / "data" / "results" / "stability_cases.json")
                  .read_text())
EXAMPLE = Path(__file__).parents[2] / "examples" / "scale"


@pytest.mark.parametrize("row", DATA["labels"], ids=[r["id"] for r in DATA["labels"]])
def test_the_band_labels_the_share_of_trials_that_passed(row: dict[str, Any]) -> None:
    band = FlakyBand.parse(row["between"]) if "between" in row else DEFAULT_FLAKY_BAND
    assert band.label(row["n"], row["passed"]) == row["label"]


@pytest.mark.parametrize("row", DATA["bad_bands"], ids=[r["id"] for r in DATA["bad_bands"]])
def test_a_bad_band_says_what_is_expected(row: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=r"expected \[LOW, HIGH\], two shares"):
        FlakyBand.parse(row["value"])


def labelled(verdicts: list[bool | str | None], rule: str,
             band: FlakyBand | None = DEFAULT_FLAKY_BAND) -> CaseResult:
    trials = tuple(
        case(f"c#trace-{i}.json", error="unreadable") if v == "error" else
        case(f"c#trace-{i}.json", v)
        for i, v in enumerate(verdicts, 1)
    )
    return CaseResult("c", "c", "c/testcase.json", None, None, trials=trials, trials_rule=rule,
                      flaky_band=band)


@pytest.mark.parametrize("row", DATA["cases"], ids=[r["id"] for r in DATA["cases"]])
def test_a_case_is_labelled_beside_its_verdict(row: dict[str, Any], tmp_path: Path) -> None:
    result = labelled(row["trials"], row["rule"])
    assert (result.status, result.stability) == (row["status"], row["label"])
    document = result.to_dict()
    assert document["stability"] == row["label"] and "flaky_between" not in document
    write_results(SuiteResult(cases=(result,)), tmp_path)
    back = read_results(tmp_path)
    assert back.cases[0].stability == row["label"]
    counts = back.summary.trials.stability if back.summary.trials else None
    assert dict(counts or ()) == {"stable-pass": 0, "flaky": 0, "stable-fail": 0,
                                  **({row["label"]: 1} if row["label"] else {})}


def test_a_case_without_trials_or_band_writes_no_label() -> None:
    assert "stability" not in case("single", True).to_dict()
    old = labelled([True, False], "all", band=None)
    assert old.stability is None and "stability" not in old.to_dict()


def test_results_written_before_the_labels_keep_reading(tmp_path: Path) -> None:
    # A run of before the labels: no stability in the case file, none in the summary.
    write_results(SuiteResult(cases=(labelled([True, False], "all", band=None),)), tmp_path)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert "stability" not in summary["trials"]
    back = read_results(tmp_path)
    assert back.cases[0].stability is None and back.summary.trials is not None
    assert back.summary.trials.stability is None and back.summary.trials.labels_text() == ""


def test_a_band_other_than_the_default_is_written_and_read_back(tmp_path: Path) -> None:
    result = labelled([True] * 9 + [False], "majority", band=FlakyBand(0.1, 0.9))
    assert result.to_dict()["flaky_between"] == [0.1, 0.9]
    write_results(SuiteResult(cases=(result,)), tmp_path)
    assert read_results(tmp_path).cases[0].stability == "stable-pass"


def test_a_written_label_that_does_not_follow_from_the_trials_is_refused(tmp_path: Path
                                                                        ) -> None:
    from openeval.errors import ResultFileError

    write_results(SuiteResult(cases=(labelled([True, False], "all"),)), tmp_path)
    path = next(tmp_path.glob("*.result.json"))
    path.write_text(path.read_text().replace('"flaky"', '"stable-pass"'))
    record_digests(tmp_path)  # forged with it: the label check itself must refuse
    with pytest.raises(ResultFileError, match="does not match"):
        read_results(tmp_path)


@pytest.mark.parametrize(("config", "label"), [
    ("", "flaky"),
    ("[trials]\nrule = \"majority\"\nflaky_between = [0.0, 0.6]\n", "stable-pass"),
])
def test_the_suite_configuration_sets_the_band(tmp_path: Path, config: str, label: str) -> None:
    root = tmp_path / "scale"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("baseline", "head",
                                                                 "pull-request"))
    if config:
        (root / "support" / "openeval.toml").write_text(config)
    found = run_suite(root).cases[-1]
    assert (found.case_id, found.stability) == ("support/weather-two-cities", label)


def test_a_bad_band_in_the_configuration_names_the_file_and_key(tmp_path: Path) -> None:
    root = tmp_path / "scale"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("baseline", "head",
                                                                 "pull-request"))
    (root / "support" / "openeval.toml").write_text("[trials]\nflaky_between = [0.9, 0.1]\n")
    found = run_suite(root).cases[-1]
    assert found.status == "error"
    assert "openeval.toml" in (found.error or "") and "trials.flaky_between" in (found.error or "")
    assert "expected [LOW, HIGH]" in (found.error or "")

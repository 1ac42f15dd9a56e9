"""Result files: a :class:`SuiteResult` written as one JSON file per case plus ``summary.json``.

The format is described in proposals/0001-result-files-and-pass-rate.md and fixed by the
``result`` and ``summary`` schemas shipped in :mod:`openeval.schemas`. Output is canonical
(sorted keys, no clock), so the same run gives byte-identical files. ``summary.json`` lists the
case files of its run; writing removes our own files from an earlier run first, and reading
refuses a case file the summary does not list, so stale results never leak into a report.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from openeval.errors import ResultFileError
from openeval.jsonio import dump_json, read_json_file
from openeval.models import MetricResult
from openeval.results import CaseResult, MetricTally, SuiteResult
from openeval.schemas import validate

SCHEMA_VERSION = 1
SUMMARY_NAME = "summary.json"
RESULT_SUFFIX = ".result.json"

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_MAX_STEM = 80


def result_file_name(case_id: str) -> str:
    """Return the file name of a case's result: readable, and unique per ``case_id``.

    The readable part is ``case_id`` with unsafe characters replaced; a short hash of the exact
    ``case_id`` keeps two cases apart even when their readable parts are the same.
    """
    stem = _UNSAFE.sub("_", case_id).strip("._-")[:_MAX_STEM] or "case"
    digest = hashlib.sha256(case_id.encode()).hexdigest()[:8]
    return f"{stem}-{digest}{RESULT_SUFFIX}"


def _file_names(suite: SuiteResult) -> list[str]:
    names: list[str] = []
    used: set[str] = set()
    for case in suite.cases:
        name = result_file_name(case.case_id)
        n = 2
        while name in used:  # only when one suite holds the same case_id twice
            name = result_file_name(f"{case.case_id}#{n}")
            n += 1
        used.add(name)
        names.append(name)
    return names


def _tally(t: MetricTally) -> dict[str, int]:
    return {"passed": t.passed, "failed": t.failed, "not_applicable": t.not_applicable}


def summary_document(suite: SuiteResult, result_files: list[str]) -> dict[str, Any]:
    """Return the JSON object of ``summary.json`` for ``suite`` and its case file names."""
    return {
        "schema_version": SCHEMA_VERSION,
        "pass_rate": suite.pass_rate,
        "cases": len(suite.cases),
        "passed_cases": sum(c.passed for c in suite.cases),
        "failed_cases": sum(not c.passed and not c.errored for c in suite.cases),
        "errored_cases": sum(c.errored for c in suite.cases),
        "metric_results": _tally(suite.metric_totals()),
        "per_metric": {
            name: {**_tally(t), "pass_rate": t.pass_rate}
            for name, t in suite.per_metric().items()
        },
        "fail_under": suite.fail_under,
        "gate_passed": suite.gate_passed,
        "gate_reason": suite.gate_reason,
        "result_files": result_files,
        "metadata": suite.metadata,
    }


def case_document(case: CaseResult) -> dict[str, Any]:
    """Return the JSON object of one case's result file."""
    return {"schema_version": SCHEMA_VERSION, **case.to_dict()}


def write_results(suite: SuiteResult, out_dir: str | Path) -> Path:
    """Write ``suite`` into ``out_dir`` (created if needed) and return ``out_dir``.

    Our own files from an earlier run there (``*.result.json``, ``summary.json``) are removed
    first; other files are left alone. Raises ResultFileError when the folder cannot be written.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
        summary = out / SUMMARY_NAME
        if summary.is_file():
            summary.unlink()
        names = _file_names(suite)
        # Files of this run are overwritten in place; only the others are stale.
        for stale in sorted(set(p.name for p in out.glob(f"*{RESULT_SUFFIX}")) - set(names)):
            (out / stale).unlink()
        for case, name in zip(suite.cases, names, strict=True):
            (out / name).write_bytes(dump_json(case_document(case)))
        # Written last: a summary present means every case file it lists was written.
        (out / SUMMARY_NAME).write_bytes(dump_json(summary_document(suite, names)))
    except OSError as exc:
        raise ResultFileError(
            f"cannot write results: {exc.strerror}", source=exc.filename or out
        ) from None
    return out


def read_results(in_dir: str | Path) -> SuiteResult:
    """Return the suite stored in ``in_dir`` by :func:`write_results`.

    Raises ResultFileError naming the file (and JSON path) when the folder is missing or holds
    no result, when a file is not valid JSON or does not fit its schema, when ``summary.json``
    and the case files disagree, or when a case file is not listed in the summary.
    """
    folder = Path(in_dir)
    if not folder.is_dir():
        what = "does not exist" if not folder.exists() else "is not a folder"
        raise ResultFileError(f"result folder {what}", source=folder)
    summary_path = folder / SUMMARY_NAME
    present = sorted(p.name for p in folder.glob(f"*{RESULT_SUFFIX}"))
    if not summary_path.is_file() and not present:
        # No file of ours: perhaps the one-file-per-task results of openeval-core 0.2.1.
        legacy = [(p, read_json_file(p, error=ResultFileError))
                  for p in sorted(folder.glob("*.json"))]
        if any(isinstance(doc, dict) and "metrics" in doc for _, doc in legacy):
            return read_results_021(legacy)
    if not summary_path.is_file():
        message = (
            "holds no result (expected summary.json and *.result.json files written by "
            "`openeval run --output`)"
            if not present
            else "summary.json is missing beside the case result files"
        )
        raise ResultFileError(message, source=folder)
    summary = read_json_file(summary_path, error=ResultFileError)
    validate(summary, "summary", source=summary_path, error=ResultFileError)
    listed: list[str] = summary["result_files"]
    if not listed:
        raise ResultFileError("holds no result: summary.json lists no case", source=summary_path)
    for name in sorted(set(present) - set(listed)):
        raise ResultFileError(
            "case result file not listed in summary.json (left from another run?)",
            source=folder / name,
        )
    cases = tuple(_read_case(folder / name, summary_path, i) for i, name in enumerate(listed))
    suite = SuiteResult(cases=cases, fail_under=summary["fail_under"], metadata=summary["metadata"])
    expected = summary_document(suite, listed)
    for key in sorted(expected):
        if summary[key] != expected[key]:
            raise ResultFileError(
                f"says {summary[key]!r} but the case result files give {expected[key]!r}",
                source=summary_path,
                location=key,
            )
    return suite


def _read_case(path: Path, summary_path: Path, index: int) -> CaseResult:
    if not path.is_file():
        raise ResultFileError(
            f"lists {path.name}, which is missing", source=summary_path,
            location=f"result_files[{index}]",
        )
    document = read_json_file(path, error=ResultFileError)
    validate(document, "result", source=path, error=ResultFileError)
    case = CaseResult.from_dict(document)
    if case_document(case) != _with_defaults(document):
        raise ResultFileError(
            f"status {document['status']!r} does not match the case's error and metrics "
            f"(expected {case.to_dict()['status']!r})",
            source=path,
            location="status",
        )
    return case


def _with_defaults(document: dict[str, Any]) -> dict[str, Any]:
    return {"trace_task_id": None, **document}


def read_results_021(files: list[tuple[Path, Any]]) -> SuiteResult:
    """Return the suite held by result files that openeval-core 0.2.1 wrote, one per case.

    0.2.1 wrote ``<task_id>.json`` holding ``task_id``, ``metrics`` (display name -> result)
    and, for a case it could not read, ``error``; there was no summary. Metric names are
    turned into today's snake_case names ("Tool Selection Accuracy" -> tool_selection_accuracy)
    and kept in the order written. Raises ResultFileError naming the file and JSON path when a
    file does not have that shape.
    """
    cases = []
    for path, document in files:
        validate(document, "result_v0", source=path, error=ResultFileError)
        metrics = tuple(
            MetricResult(
                metric_name=_snake_case(result["metric_name"]),
                score=float(result["score"]),
                passed=result["passed"],
                details=result["details"],
            )
            for result in document["metrics"].values()
        )
        cases.append(
            CaseResult(
                case_id=path.stem,
                task_id=document["task_id"],
                testcase_path=None,
                trace_path=None,
                trace_format=None,
                metrics=() if "error" in document else metrics,
                error=document.get("error"),
            )
        )
    return SuiteResult(cases=tuple(cases), metadata={"read_from": "openeval-core 0.2.1 results"})


def _snake_case(display_name: str) -> str:
    return "_".join(display_name.lower().split())

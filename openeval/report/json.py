"""The ``json`` report: the whole run (summary and every case) as one canonical JSON document.

It holds the same records as the result files of ``openeval run --output``, in one document,
for tools that want a single file. Same suite, same bytes.
"""

from __future__ import annotations

from typing import Any

from openeval.jsonio import dump_json
from openeval.results.files import SCHEMA_VERSION, case_document, summary_document
from openeval.results.records import SuiteResult


def report_document(suite: SuiteResult) -> dict[str, Any]:
    """Return the report as a JSON value: ``summary`` (as in summary.json) and ``cases``."""
    summary = summary_document(suite, [])
    del summary["result_files"]
    return {
        "schema_version": SCHEMA_VERSION,
        "summary": summary,
        "cases": [case_document(case) for case in suite.cases],
    }


class JsonReporter:
    """Renders a suite as canonical JSON (sorted keys, two-space indent)."""

    name = "json"
    description = "the whole run (summary + every case) as one JSON document"

    def render(self, suite: SuiteResult) -> str:
        """Return the JSON text of the report."""
        return dump_json(report_document(suite)).decode()


REPORTER = JsonReporter()

"""Reading test case files: JSON in, a checked :class:`~openeval.models.EvalTestCase` out.

A test case file is checked against the shipped ``testcase`` schema, then its metric names
(in ``metrics`` and ``thresholds``) against the metric registry, so a typo in a metric name
is an error instead of a check that silently never runs. Files written for openeval-core 0.2.1
are a subset of the format and load unchanged.
"""

from __future__ import annotations

from pathlib import Path

from openeval.errors import TestCaseError
from openeval.jsonio import read_json_file
from openeval.matching.validate import validate_test_case_matchers
from openeval.models import EvalTestCase
from openeval.schemas import validate


def load_test_case(path: str | Path) -> EvalTestCase:
    """Return the test case stored in ``path``.

    Raises TestCaseError naming the file and the JSON path when the file is missing, is not
    JSON, says one key twice, does not fit the schema, names a metric that is not registered,
    or holds a malformed argument matcher or ``trajectory`` setting. The ``trace`` key, when
    present, is kept as written (a path relative to the test case file).
    """
    path = Path(path)
    document = read_json_file(path, error=TestCaseError, unique_keys=True)
    return build_test_case(document, source=path)


def build_test_case(document: object, *, source: str | Path | None) -> EvalTestCase:
    """Return the test case a parsed document holds (a file's, or one merged with a suite
    configuration); raise TestCaseError as :func:`load_test_case` does, naming ``source``."""
    validate(document, "testcase", source=source, error=TestCaseError)
    if not isinstance(document, dict):  # the schema refuses it first; this narrows the type
        raise TestCaseError("expected a JSON object", source=source)
    check_metric_names(document, source=source)
    validate_test_case_matchers(document, source=source)
    check_agent_spec(document.get("agent_spec"), source=source)
    if document.get("state") is not None:
        from openeval.matching.state import with_state_files

        document = with_state_files(document, source=source)
    return EvalTestCase.from_dict(document)


def check_agent_spec(value: object, *, source: str | Path | None) -> None:
    """Return None when ``value`` (a test case's ``agent_spec``) is None or ``module:attr``.

    Raises TestCaseError naming the key otherwise; the schema has already made it a string.
    """
    if value is None:
        return
    module, colon, attribute = str(value).partition(":")
    if not (colon and module.strip() and attribute.strip() and ":" not in attribute):
        raise TestCaseError(
            f"expected module:attribute naming a fixtura AgentSpec (such as "
            f"'myapp.agent:spec'), got {value!r}",
            source=source, location="agent_spec",
        )


def check_metric_names(document: dict[str, object], *, source: str | Path | None) -> None:
    """Return None when every metric named in ``metrics``/``thresholds`` is registered.

    Raises TestCaseError naming the JSON path of the first unknown name and listing the valid
    ones. ``document`` must already fit the test case schema.
    """
    selected = document.get("metrics")
    thresholds = document.get("thresholds")
    if not selected and not thresholds:
        return
    from openeval.metrics.registry import metric_names

    known = metric_names()
    known_set = set(known)
    named: list[tuple[str, str]] = []
    if isinstance(selected, list):
        named += [(f"metrics[{i}]", name) for i, name in enumerate(selected)]
    if isinstance(thresholds, dict):
        named += [(f"thresholds.{name}", name) for name in thresholds]
    for location, name in named:
        if name not in known_set:
            valid = ", ".join(known) if known else "(no metric is registered)"
            raise TestCaseError(
                f"unknown metric {name!r}; expected one of: {valid}",
                source=source,
                location=location,
            )

"""Reading test case files: JSON in, a checked :class:`~openeval.models.EvalTestCase` out.

A test case file is checked against the shipped ``testcase`` schema, then what it names
against :mod:`openeval.scoring.validate` (a registered metric, a threshold that configures
something, an expectation some metric of the case reads), so a typo is an error instead of a
check that silently never runs. Files written for openeval-core 0.2.1
are a subset of the format and load unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from openeval.errors import TestCaseError
from openeval.jsonio import parse_json_file, read_json_bytes
from openeval.matching.validate import validate_test_case_matchers
from openeval.models import EvalTestCase
from openeval.schemas import validate
from openeval.testcase_typed import decode


def load_test_case(path: str | Path) -> EvalTestCase:
    """Return the test case stored in ``path``.

    Raises TestCaseError naming the file and the JSON path when the file is missing, is not
    JSON, says one key twice, does not fit the schema, names a metric that is not registered,
    or holds a malformed argument matcher or ``trajectory`` setting. The ``trace`` key, when
    present, is kept as written (a path relative to the test case file).
    """
    path = Path(path)
    document, fits = read_test_case_document(path)
    return build_test_case(document, source=path, fits_schema=fits)


def read_test_case_document(path: Path, *, typed: bool = True) -> tuple[Any, bool]:
    """Return the JSON value of the test case file ``path`` and whether it is known to fit
    the test case schema already: the usual case decoded typed (openeval/testcase_typed.py),
    else (or with ``typed`` False) parsed the general way. Raises TestCaseError naming the
    file when it cannot be read or is not JSON, or says one key twice."""
    return test_case_document(read_json_bytes(path, error=TestCaseError), path, typed=typed)


def test_case_document(data: bytes, path: Path, *, typed: bool = True) -> tuple[Any, bool]:
    """:func:`read_test_case_document` of ``data``, the bytes of the file ``path``."""
    if typed:
        document = decode(data)
        if document is not None:
            return document, True
    return parse_json_file(data, path, error=TestCaseError, unique_keys=True), False


def build_test_case(
    document: object, *, source: str | Path | None, fits_schema: bool = False
) -> EvalTestCase:
    """Return the test case a parsed document holds (a file's, or one merged with a suite
    configuration); raise TestCaseError as :func:`load_test_case` does, naming ``source``.
    ``fits_schema``: the typed decoder read the document, so the schema has nothing to say."""
    if not fits_schema:
        validate(document, "testcase", source=source, error=TestCaseError)
    if not isinstance(document, dict):  # the schema refuses it first; this narrows the type
        raise TestCaseError("expected a JSON object", source=source)
    check_metric_names(document, source=source)
    validate_test_case_matchers(document, source=source)
    if document.get("turns"):
        from openeval.scoring.validate import check_turn_checks

        check_turn_checks(document["turns"], source=source)
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
    """Return None when what ``metrics``/``thresholds`` name exists and configures something,
    and every expectation the document sets is read by a metric it runs.

    Raises TestCaseError naming the JSON path of the first problem (the rules of
    :mod:`openeval.scoring.validate`). ``document`` must already fit the test case schema.
    """
    from openeval.scoring.validate import check_expectations
    from openeval.scoring.validate import check_metric_names as check_names

    def error(message: str, where: str) -> TestCaseError:
        return TestCaseError(message, source=source, location=where)

    selected = document.get("metrics")
    thresholds = document.get("thresholds")
    names = selected if isinstance(selected, list) else None
    named = thresholds if isinstance(thresholds, dict) else ()
    if names is not None or named:  # else rules 1 and 2 have no name to judge
        check_names(names, named, error=error)
    checks = document.get("checks")
    check_expectations(document, names, checks if isinstance(checks, list) else (),
                       error=error)

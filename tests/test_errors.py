"""The error tree: messages name the file and the place, and survive a process pool."""

from __future__ import annotations

import pickle

import pytest

from openeval.errors import (
    MissingDependencyError,
    OpenEvalError,
    ResultFileError,
    SuiteError,
    TestCaseError,
    TraceFormatError,
)


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (OpenEvalError("bad"), "bad"),
        (TestCaseError("expected a string", source="tc.json", location="expected_tool_calls[2]"),
         "tc.json: expected_tool_calls[2]: expected a string"),
        (TraceFormatError("invalid JSON", source="t.jsonl", location="line 7"),
         "t.jsonl: line 7: invalid JSON"),
        (ResultFileError("no result files", source="out"), "out: no result files"),
    ],
)
def test_message_names_source_and_location(error: OpenEvalError, text: str) -> None:
    assert str(error) == text


@pytest.mark.parametrize(
    "error",
    [
        TestCaseError("m", source="a", location="b"),
        MissingDependencyError("m", source="a"),
        SuiteError("m"),
    ],
)
def test_errors_pickle_with_their_fields(error: OpenEvalError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert (copy.message, copy.source, copy.location) == (
        error.message,
        error.source,
        error.location,
    )


def test_missing_dependency_is_a_trace_format_error() -> None:
    assert issubclass(MissingDependencyError, TraceFormatError)

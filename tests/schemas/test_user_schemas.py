"""A user's JSON Schema (json_validity's ``schema``) on the project's one validator."""

from __future__ import annotations

from openeval.schemas import schema_error, schema_problems

SCHEMA = {"type": "object", "required": ["id", "name"],
          "properties": {"id": {"maximum": 9}, "tags": {"items": {"maxLength": 2}},
                         "kind": {"enum": ["x"]}}}


def test_problems_are_worded_as_the_project_words_them_shortest_path_first() -> None:
    value = {"id": 30, "tags": ["abc"], "kind": "z"}
    assert schema_problems(value, SCHEMA, limit=10) == [
        "$: missing required key 'name'",
        "$.id: 30 is out of range (maximum 9)",
        "$.kind: expected one of 'x', got 'z'",
        "$.tags[0]: 'abc' is too long",
    ]
    assert len(schema_problems(value, SCHEMA, limit=2)) == 2


def test_a_value_that_fits_has_no_problem_and_a_bad_schema_is_named() -> None:
    assert schema_problems({"id": 3, "name": "a"}, SCHEMA, limit=10) == []
    assert schema_error(SCHEMA) is None
    assert (schema_error({"type": "strin"}) or "").startswith("type: ")

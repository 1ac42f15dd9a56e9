"""The fast structural check and jsonschema give the same verdict on every document.

Documents are drawn from each shipped schema (valid ones), then mutated (a value replaced by
any JSON value, a key dropped, an unknown key added), so both sides of every rule are hit.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from run_profile import examples

from openeval.errors import OpenEvalError
from openeval.schemas import SchemaName, load_schema, validate
from openeval.schemas.fast import compile_check

SCHEMAS: list[SchemaName] = ["trace", "testcase", "result", "summary", "config"]

KEYS = st.sampled_from(["a", "task_id", "step_id", "tool", "x y", "passed", "steps"])

JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 3)
    | st.sampled_from([0.0, 1.0, 0.5, -1.5, 2.0, 1e300])
    | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=8,
)


def _number(node: dict[str, Any], integer: bool) -> st.SearchStrategy[Any]:
    low, high = node.get("minimum", -5), node.get("maximum", 50)
    ints = st.integers(int(low), int(high))
    if integer:
        return ints | ints.map(float)  # 3.0 is an integer to Draft 2020-12
    return ints | st.floats(low, high, allow_nan=False)


def from_schema(node: Any, defs: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Return a strategy of documents valid against ``node`` (our schemas' keyword subset)."""
    if "$ref" in node:
        return from_schema(defs[node["$ref"].rsplit("/", 1)[1]], defs)
    if "const" in node:
        return st.just(node["const"])
    if "enum" in node:
        return st.sampled_from(node["enum"])
    types = node["type"] if isinstance(node.get("type"), list) else [node.get("type", "object")]
    options = []
    for kind in types:
        if kind == "object":
            options.append(_object(node, defs))
        elif kind == "array":
            options.append(st.lists(from_schema(node.get("items", {}), defs), max_size=3))
        elif kind == "string":
            options.append(st.text(min_size=node.get("minLength", 0), max_size=4))
        elif kind in ("integer", "number"):
            options.append(_number(node, kind == "integer"))
        elif kind == "boolean":
            options.append(st.booleans())
        elif kind == "null":
            options.append(st.none())
    return st.one_of(options)


def _object(node: dict[str, Any], defs: dict[str, Any]) -> st.SearchStrategy[dict[str, Any]]:
    properties = node.get("properties", {})
    required = node.get("required", [])
    fixed = {k: from_schema(properties[k], defs) for k in required if k in properties}
    optional = {k: from_schema(s, defs) for k, s in properties.items() if k not in required}
    extra = node.get("additionalProperties", True)
    base = st.fixed_dictionaries(fixed, optional=optional)
    if isinstance(extra, dict):
        more = st.dictionaries(st.text(max_size=3), from_schema(extra, defs), max_size=2)
        return st.tuples(base, more).map(lambda pair: {**pair[1], **pair[0]})
    return base


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += _paths(item, (*prefix, i))
    return found


@st.composite
def mutated(draw: st.DrawFn, name: SchemaName) -> Any:
    schema = load_schema(name)
    document = draw(from_schema(schema, schema.get("$defs", {})))
    for _ in range(draw(st.integers(0, 2))):
        paths = _paths(document)
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "drop", "add"]))
        if not path:
            document = draw(JSON) if action == "replace" else document
            continue
        parent = document
        for part in path[:-1]:
            parent = parent[part]
        if action == "replace":
            parent[path[-1]] = draw(JSON)
        elif action == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent, dict):
            parent[draw(KEYS)] = draw(JSON)
    return document


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_shipped_schema_gets_a_fast_check(name: SchemaName) -> None:
    assert compile_check(load_schema(name)) is not None


@pytest.mark.parametrize("name", SCHEMAS)
@settings(max_examples=examples(400), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fast_check_agrees_with_jsonschema(name: SchemaName, data: st.DataObject) -> None:
    document = data.draw(mutated(name))
    fast = compile_check(load_schema(name))
    assert fast is not None
    expected = not any(Draft202012Validator(load_schema(name)).iter_errors(document))
    assert fast(document) is expected


@pytest.mark.parametrize(
    ("document", "location", "words"),
    [
        ({"task_id": "t", "steps": [{"step_id": 1, "type": "tool_call", "denied": 1}]},
         "steps[0].denied", "expected true or false, got an integer"),
        ({"task_id": "t", "steps": [{"step_id": 1.5, "type": "thought"}]},
         "steps[0].step_id", "expected an integer, got a number"),
        ({"task_id": "t", "steps": [{"step_id": 1, "type": "plan"}]},
         "steps[0].type", "expected one of 'thought'"),
    ],
)
def test_a_refused_document_still_gets_the_precise_message(
    document: Any, location: str, words: str
) -> None:
    with pytest.raises(OpenEvalError) as caught:
        validate(document, "trace", source="t.json")
    assert caught.value.location == location
    assert words in caught.value.message


def test_an_unsupported_keyword_means_no_fast_check() -> None:
    assert compile_check({"type": "string", "pattern": "^a"}) is None
    assert compile_check({"type": "object", "patternProperties": {}}) is None

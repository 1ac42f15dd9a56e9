"""Checks files: TOML and JSON read into the same plan; anything configuring nothing refused."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from openeval.errors import TestCaseError
from openeval.production.plan import DEFAULT_CHECKS, load_checks

TOML = """
[[checks]]
check = "pii_leak"

[[checks]]
check = "repeated_tool_calls"
name = "loop"
max_repeats = 3
"""
JSON = '{"checks": [{"check": "pii_leak"}, {"check": "repeated_tool_calls", "name": "loop", ' \
       '"max_repeats": 3}]}'


def test_toml_and_json_give_the_same_plan(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(TOML)
    (tmp_path / "c.json").write_text(JSON)
    toml, json = load_checks(tmp_path / "c.toml"), load_checks(tmp_path / "c.json")
    assert toml.checks == json.checks
    assert toml.names == ("pii_leak", "loop")
    assert pickle.loads(pickle.dumps(toml)).checks == toml.checks


def test_default_checks_are_reference_free() -> None:
    plan = load_checks(None)
    assert plan.names == tuple(entry["check"] for entry in DEFAULT_CHECKS)
    assert plan.case.test_case.expected_tool_calls == [] and not plan.case.test_case.metrics


@pytest.mark.parametrize(("name", "text", "message"), [
    ("unknown.toml", '[[checks]]\ncheck = "pii_leek"\n',
     r"c\.toml: line 2: checks\[0\]\.check: .*pii_leek"),
    ("setting.toml", '[[checks]]\ncheck = "pii_leak"\n\n[[checks]]\ncheck = "refusal"\n'
     'scan_first = 3\n', r"c\.toml: line 6: checks\[1\]\.scan_first: .*scan_first"),
    ("setting.json", '{"checks": [{"check": "refusal", "scan_first": 3}]}',
     r"c\.json: checks\[0\]\.scan_first: .*scan_first"),
    ("extra.json", '{"checks": [], "metrics": ["x"]}', r"c\.json: metrics: unknown key"),
    ("empty.json", '{"checks": []}', r"c\.json: checks: expected at least one check"),
    ("broken.toml", "[[checks]\n", r"c\.toml: line 1.*invalid TOML"),
], ids=lambda v: v if isinstance(v, str) and v.endswith(("toml", "json")) else "")
def test_a_checks_file_that_configures_nothing_is_refused(
    name: str, text: str, message: str, tmp_path: Path
) -> None:
    path = tmp_path / f"c{Path(name).suffix}"
    path.write_text(text)
    with pytest.raises(TestCaseError, match=message):
        load_checks(path)

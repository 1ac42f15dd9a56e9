"""Each case drift-checks its Fixtura recording against its own agent: the case's
``agent_spec`` wins over the suite configuration's, which wins over ``--agent-spec``; a drifted
fixture says what changed, as ``fixtura check-drift`` does. Recordings are made by Fixtura's
own recorder from the agents in tests/data/suite/fixtura_agents/desk_agents.py."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner

pytest.importorskip("fixtura", reason="fixtura needs Python 3.11")

from openeval.cli import main
from openeval.cli.exit_codes import EXIT_FAIL, EXIT_OK, EXIT_USAGE
from openeval.models import EvalTestCase
from openeval.testcase_file import load_test_case

AGENTS = Path(__file__).parents[1] / "data" / "suite" / "fixtura_agents"


@pytest.fixture(scope="module")
def agents() -> Iterator[ModuleType]:
    """The agents module, importable as ``desk_agents`` (as an agent_spec names it)."""
    import sys

    sys.path.insert(0, str(AGENTS))
    try:
        import desk_agents

        yield desk_agents
    finally:
        sys.path.remove(str(AGENTS))


def _case(folder: Path, agents: ModuleType, agent: str, **keys: object) -> None:
    folder.mkdir(parents=True)
    tool = "refund_payment" if agent == "billing" else "lookup_order"
    agents.record(folder / "trace.trace", getattr(agents, agent)(), tool, {"order_id": "A-17"})
    document = {"task_id": folder.name, "metrics": ["fixture_freshness"], **keys}
    (folder / "testcase.json").write_text(json.dumps(document), encoding="utf-8")


@pytest.fixture
def desk(tmp_path: Path, agents: ModuleType) -> Path:
    """A suite of two agents' recordings: the billing agent is the suite's default agent,
    the support case names its own."""
    root = tmp_path / "desk"
    _case(root / "billing-refund", agents, "billing")
    _case(root / "support-lookup", agents, "support", agent_spec="desk_agents:support")
    (root / "openeval.toml").write_text('agent_spec = "desk_agents:billing"\n', encoding="utf-8")
    return root


ALLOW = ("--allow-code-module", "desk_agents")
"""The opt-in that lets test cases and configurations name agents of this module."""


def _freshness(root: Path, *flags: str, code: int) -> dict[str, tuple[str, str]]:
    out = root.parent / "results"
    result = CliRunner().invoke(main, ["run", "--suite", str(root), "--output", str(out),
                                       *ALLOW, *flags])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code == code, result.output
    found = {}
    for path in sorted(out.glob("*.json")):
        if path.name == "summary.json":
            continue
        case = json.loads(path.read_text(encoding="utf-8"))
        check = next(c for c in case["checks"] if c["name"] == "fixture_freshness")
        found[case["case_id"]] = (check["verdict"], check["details"])
    return found


@pytest.mark.parametrize("flags", [[], ["--agent-spec", "desk_agents:support"],
                                   ["--agent-spec", "desk_agents:support_v2"]])
def test_each_case_is_checked_against_its_own_agent(desk: Path, flags: list[str]) -> None:
    # Whatever --agent-spec says, the suite's default covers billing and the case its own.
    found = _freshness(desk, *flags, code=EXIT_OK)
    assert {case: verdict for case, (verdict, _) in found.items()} == {
        "billing-refund": "pass", "support-lookup": "pass"}


def test_the_option_applies_where_neither_case_nor_suite_names_an_agent(
    desk: Path, agents: ModuleType
) -> None:
    (desk / "openeval.toml").unlink()
    found = _freshness(desk, "--agent-spec", "desk_agents:support", code=EXIT_FAIL)
    verdict, details = found["billing-refund"]
    assert verdict == "fail"
    # The support agent has no refund tool: Fixtura's comparison names it.
    assert details == (
        "fingerprint verdict DRIFTED against agent spec desk_agents:support: changed: tool "
        "removed since recording: refund_payment; system prompt changed; re-record this "
        "fixture"
    )
    assert found["support-lookup"][0] == "pass"


def test_a_drifted_fixture_says_what_changed(desk: Path) -> None:
    testcase = desk / "support-lookup" / "testcase.json"
    document = json.loads(testcase.read_text(encoding="utf-8"))
    document["agent_spec"] = "desk_agents:support_v2"
    testcase.write_text(json.dumps(document), encoding="utf-8")
    found = _freshness(desk, code=EXIT_FAIL)
    assert found["support-lookup"] == (
        "fail",
        "fingerprint verdict DRIFTED against agent spec desk_agents:support_v2: changed: tool "
        "schema changed: lookup_order; system prompt changed; re-record this fixture",
    )
    assert found["billing-refund"][0] == "pass"


def test_an_unverifiable_fingerprint_says_what_could_not_be_compared(
    tmp_path: Path, agents: ModuleType
) -> None:
    spec = agents.support()
    spec.capability_token = None  # recorded without a permission policy
    root = tmp_path / "desk"
    folder = root / "support-lookup"
    folder.mkdir(parents=True)
    agents.record(folder / "trace.trace", spec, "lookup_order", {"order_id": "A-17"})
    (folder / "testcase.json").write_text(json.dumps({
        "task_id": "support-lookup", "metrics": ["fixture_freshness"],
        "agent_spec": "desk_agents:support"}), encoding="utf-8")
    verdict, details = _freshness(root, code=EXIT_FAIL)["support-lookup"]
    assert verdict == "fail"
    assert details == (
        "fingerprint verdict UNVERIFIED against agent spec desk_agents:support: not verified: "
        "permission policy not comparable (not captured on one side); record the missing "
        "part of the fingerprint, then re-run"
    )


def test_agent_spec_is_a_test_case_key(tmp_path: Path) -> None:
    path = tmp_path / "testcase.json"
    path.write_text(json.dumps({"task_id": "t", "agent_spec": "desk_agents:support"}))
    assert load_test_case(path) == EvalTestCase(task_id="t", agent_spec="desk_agents:support")
    path.write_text(json.dumps({"task_id": "t", "agent_spec": "desk_agents"}))
    result = CliRunner().invoke(main, ["run", "--testcase", str(path), "--trace",
                                       str(tmp_path / "none.json")])
    assert result.exit_code == EXIT_USAGE
    assert "agent_spec" in result.stderr and result.stderr.count("\n") == 1


def test_a_bad_configured_agent_spec_names_the_file_and_line(desk: Path) -> None:
    (desk / "openeval.toml").write_text('\nagent_spec = "no-colon"\n', encoding="utf-8")
    found = CliRunner().invoke(main, ["run", "--suite", str(desk)])
    assert found.exit_code == EXIT_FAIL
    assert "openeval.toml" in found.output and "line 2" in found.output


def test_without_the_opt_in_an_agent_spec_of_a_file_runs_nothing(desk: Path) -> None:
    # A pull request's test case or openeval.toml names a module: importing it would run the
    # author's code, so only the run's own --allow-code-module lets it.
    found = CliRunner().invoke(main, ["run", "--suite", str(desk)])
    assert found.exit_code == EXIT_FAIL
    lines = [line for line in found.output.splitlines() if "agent_spec" in line]
    assert len(lines) == 2, found.output
    assert all("--allow-code-module desk_agents" in line for line in lines)
    assert any("openeval.toml: line 1: agent_spec" in line for line in lines), lines

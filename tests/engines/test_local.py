"""The process pool: results in suite order, and no worker outlives a run that ended early.

A worker is killed for real (SIGKILL, as the OOM killer does) while it scores a slow case; the
pool must say which worker, how it died and which case it held, and leave no process behind.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from builders import ALLOW_CODE, slow_suite

from openeval.engines import ProcessPoolEngine, SerialEngine
from openeval.engines.local import ended_how, pool_size
from openeval.errors import RunAborted
from openeval.results.records import CaseResult
from openeval.suite.discover import discover
from openeval.suite.engines import wire
from openeval.suite.evaluate import RunPlan


def pool_run(suite: Path, start_method: str) -> Iterator[CaseResult]:
    plan = RunPlan.of(options=ALLOW_CODE, confine_to=suite)
    return iter(ProcessPoolEngine(2, start_method).run(plan, discover(suite)))


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_a_killed_worker_is_one_error_naming_it_and_its_case(
    tmp_path: Path, start_method: str
) -> None:
    # The check of c004 kills its own worker, as the OOM killer would on a hostile case.
    slow_suite(tmp_path / "suite", cases=12, seconds=0, killer=4)
    results = pool_run(tmp_path / "suite", start_method)
    with pytest.raises(RunAborted) as raised:
        list(results)
    message = str(raised.value)
    assert re.fullmatch(r"the run did not finish: worker process \d+ was killed by SIGKILL "
                        "while scoring c004", message), message
    assert multiprocessing.active_children() == []


def test_a_run_left_early_stops_its_workers(tmp_path: Path) -> None:
    slow_suite(tmp_path / "suite", cases=30, seconds=0.2)
    results = pool_run(tmp_path / "suite", "fork")
    next(results)
    assert len(multiprocessing.active_children()) == 2
    results.close()  # what an exception in the caller (KeyboardInterrupt ...) does too
    assert multiprocessing.active_children() == []


def test_the_pool_gives_the_serial_results_in_order(tmp_path: Path) -> None:
    slow_suite(tmp_path / "suite", cases=12, seconds=0)
    plan = RunPlan.of(options=ALLOW_CODE, confine_to=tmp_path / "suite")
    specs = discover(tmp_path / "suite")
    pooled = list(ProcessPoolEngine(3).run(plan, specs))
    assert pooled == list(SerialEngine().run(plan, specs))
    assert [c.case_id for c in pooled] == [f"c{i:03}" for i in range(12)]
    assert multiprocessing.active_children() == []


@pytest.mark.parametrize(("exitcode", "said"), [
    (-9, "was killed by SIGKILL"), (-15, "was killed by SIGTERM"), (3, "exited with status 3"),
    (None, "stopped answering"),
])
def test_how_a_process_ended_is_said_in_words(exitcode: int | None, said: str) -> None:
    assert ended_how(exitcode) == said


@pytest.mark.parametrize(("cases", "cpus", "workers"), [
    (10_000, 1, 1), (10_000, 2, 1), (10_000, 3, 1),  # too few CPUs for a pool to pay
    (499, 16, 1),  # too small a suite
    (500, 4, 2), (1_000, 4, 4), (10_000, 4, 4), (10_000, 64, 8),
])
def test_the_default_pool_runs_only_where_it_pays(cases: int, cpus: int, workers: int) -> None:
    assert pool_size(cases, cpus) == workers


def test_the_pool_sends_results_that_equal_the_serial_ones_field_for_field(
    tmp_path: Path,
) -> None:
    # The suite of the README's tour: every metric, passing and failing, notes and data.
    suite = Path(__file__).resolve().parents[2] / "examples" / "tour"
    plan = RunPlan.of(confine_to=suite)
    specs = discover(suite)
    serial = list(SerialEngine().run(plan, specs))
    sent = wire.loads(wire.dumps(serial))
    assert sent == serial
    assert [c.to_dict() for c in sent] == [c.to_dict() for c in serial]
    assert list(ProcessPoolEngine(2).run(plan, specs)) == serial

"""The public API is explicit, in both directions.

Every package that declares ``__all__`` (found by walking ``openeval/``, so a new package is
covered the day it lands) is imported alone in a fresh interpreter, where nothing else has bound
its submodules yet, and checked both ways: every name ``__all__`` promises resolves and is listed
by ``dir()``; every public name reachable through its namespace, its lazy ``__getattr__`` or its
``__dir__`` is in ``__all__``, is bound by a standard-library import, or is documented in
NOT_EXPORTED with the reason it is there.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import openeval

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "openeval"

_SUBMODULE = "submodule: its names are what the package re-exports"
_ADAPTER_BODY = "used by the adapter defined in the package's __init__ (the format's entry points)"

NOT_EXPORTED: dict[str, dict[str, str]] = {
    "openeval": {
        "lazy": "submodule: imported to build the lazy __getattr__ and __dir__",
        "lazy_exports": "the helper that builds __getattr__ and __dir__",
        "version": "submodule: where __version__ is defined",
    },
    "openeval.adapters": {
        "base": "submodule: LoadOptions, TraceAdapter and TraceSource are defined there",
        "lazy_exports": "the helper that builds __getattr__ and __dir__",
        "registry": "submodule: the adapter registry the package re-exports",
    },
    "openeval.adapters.fixtura": {"drift": _SUBMODULE, "reader": _SUBMODULE},
    "openeval.adapters.langchain": {
        "adapter": _SUBMODULE, "messages": _SUBMODULE, "runs": _SUBMODULE,
    },
    "openeval.adapters.otel": {
        **dict.fromkeys(("adapter", "assemble", "chats", "conventions", "dialects", "genai",
                         "mcp", "otlp"), _SUBMODULE),
    },
    "openeval.checks": {"lazy_exports": "the helper that builds __getattr__ and __dir__"},
    "openeval.code_checks": {"call": _SUBMODULE, "loader": _SUBMODULE, "types": _SUBMODULE},
    "openeval.suite.engines": {"base": _SUBMODULE, "local": _SUBMODULE, "wire": _SUBMODULE},
    "openeval.io": {"lazy_exports": "the helper that builds __getattr__ and __dir__"},
    "openeval.production": {"lazy_exports": "the helper that builds __getattr__ and __dir__"},
    "openeval.production.engines": {
        "registry": "submodule: the engine registry the package re-exports",
    },
    "openeval.metrics": {
        "base": "submodule: Measurement, Metric and not_applicable are defined there",
        "registry": "submodule: the metric registry the package re-exports",
        "compiled": "submodule: CompiledCase, the compiled forms a plan carries to metrics",
        "lazy_exports": "the helper that builds __getattr__ and __dir__",
        "BUILTIN_METRICS": "the built-in table, public in openeval.metrics.registry",
    },
    "openeval.report": {"registry": "submodule: the reporter registries the package re-exports"},
    "openeval.results": {"records": _SUBMODULE, "summary": _SUBMODULE, "trials": _SUBMODULE,
                         "excerpt": _SUBMODULE},
    "openeval.scoring": {"plan": _SUBMODULE, "scorer": _SUBMODULE},
}
"""Per package: public names bound in it but not exported, each with why (the documentation).

Importing a package binds every submodule it imports as an attribute, and every name its
``__init__`` imports; names bound by a standard-library import (``annotations``,
``TYPE_CHECKING``, ``Protocol`` ...) are allowed without a line here.
"""


def _declares_all(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(
        isinstance(target, ast.Name) and target.id == "__all__"
        for node in tree.body
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
        for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
    )


def _package_name(init: Path) -> str:
    return ".".join(init.parent.relative_to(ROOT).parts)


PACKAGES = sorted(_package_name(p) for p in PACKAGE.rglob("__init__.py") if _declares_all(p))


def _source(package: str) -> Path:
    return ROOT.joinpath(*package.split("."), "__init__.py")


def _stdlib_bound(package: str) -> set[str]:
    """Names the package's ``__init__`` binds by importing from the standard library."""
    bound: set[str] = set()
    for node in ast.walk(ast.parse(_source(package).read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            bound.update(
                alias.asname or alias.name.partition(".")[0]
                for alias in node.names
                if alias.name.partition(".")[0] in sys.stdlib_module_names
            )
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and (node.module or "").partition(".")[0] in sys.stdlib_module_names
        ):
            bound.update(alias.asname or alias.name for alias in node.names)
    return bound


# Run with argv = [package]; prints one JSON line describing what the package exposes.
_SURFACE_PROBE = r"""
import importlib, inspect, json, sys, types
from collections.abc import Mapping

name = sys.argv[1]
package = importlib.import_module(name)
namespace = {}
for attr, value in vars(package).items():
    if isinstance(value, types.ModuleType):
        namespace[attr] = "submodule" if value.__name__ == f"{name}.{attr}" else "module"
    else:
        namespace[attr] = "object"
lazy = None
hook = vars(package).get("__getattr__")
if hook is not None:
    closure = getattr(inspect.getclosurevars(hook), "nonlocals", {})
    maps = [v for v in closure.values() if isinstance(v, Mapping)]
    lazy = sorted(maps[0]) if len(maps) == 1 else "opaque"
listed = sorted(dir(package))  # before resolving anything, which binds submodules
exported = list(package.__all__)
unresolved = {}
for attr in exported:
    try:
        getattr(package, attr)
    except Exception as exc:
        unresolved[attr] = f"{type(exc).__name__}: {exc}"
print(json.dumps(dict(
    file=package.__file__, namespace=namespace, lazy=lazy, dir=listed, all=exported,
    unresolved=unresolved,
)))
"""


def _probe_surface(package: str) -> dict[str, Any]:
    env = dict(os.environ)
    # This checkout first, keeping what the caller had, so the child tests the same copy.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _SURFACE_PROBE, package],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False,
    )
    assert done.returncode == 0, f"importing {package} alone failed:\n{done.stderr}"
    surface: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert Path(surface["file"]).is_relative_to(PACKAGE), f"the child imported {surface['file']}"
    return surface


@pytest.fixture(scope="session")
def surfaces() -> dict[str, dict[str, Any]]:
    """What each package exposes, each read once in its own fresh interpreter, in parallel."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(PACKAGES, pool.map(_probe_surface, PACKAGES), strict=True))


def _public(names: object) -> set[str]:
    assert isinstance(names, dict | list)
    return {name for name in names if not name.startswith("_")}


def test_packages_with_all_are_discovered() -> None:
    known = {"openeval", "openeval.adapters", "openeval.code_checks", "openeval.metrics",
             "openeval.report", "openeval.testing"}
    assert known <= set(PACKAGES)
    stale = set(NOT_EXPORTED) - set(PACKAGES)
    assert not stale, f"NOT_EXPORTED names packages without __all__: {sorted(stale)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_without_duplicates(package: str, surfaces: dict[str, Any]) -> None:
    exported = surfaces[package]["all"]
    # ruff's RUF022 order (isort style): CONSTANTS, then Classes, then functions, each sorted.
    ordered = sorted(set(exported), key=lambda n: (not n.isupper(), not n[:1].isupper(), n))
    assert exported == ordered, f"{package}.__all__ is not sorted (RUF022 order) and unique"


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_resolves(package: str, surfaces: dict[str, Any]) -> None:
    assert surfaces[package]["unresolved"] == {}


@pytest.mark.parametrize("package", PACKAGES)
def test_every_exported_name_is_listed_by_dir(package: str, surfaces: dict[str, Any]) -> None:
    missing = set(surfaces[package]["all"]) - set(surfaces[package]["dir"])
    assert not missing, f"dir({package}) does not list {sorted(missing)}"


@pytest.mark.parametrize("package", PACKAGES)
def test_lazy_names_are_all_exported(package: str, surfaces: dict[str, Any]) -> None:
    lazy = surfaces[package]["lazy"]
    assert lazy != "opaque", (
        f"{package}.__getattr__ hides which names it resolves; build it with "
        "openeval.lazy.lazy_exports so this test can list them"
    )
    hidden = set(lazy or []) - set(surfaces[package]["all"])
    assert not hidden, (
        f"{package} resolves {sorted(hidden)} lazily but its __all__ does not export them"
    )


@pytest.mark.parametrize("package", PACKAGES)
def test_nothing_else_public_is_reachable(package: str, surfaces: dict[str, Any]) -> None:
    surface = surfaces[package]
    documented = NOT_EXPORTED.get(package, {})
    contradictory = set(documented) & set(surface["all"])
    assert not contradictory, f"NOT_EXPORTED lists exported names: {sorted(contradictory)}"
    reachable = _public(surface["namespace"]) | _public(surface["dir"])
    leaks = sorted(reachable - set(surface["all"]) - _stdlib_bound(package) - set(documented))
    assert not leaks, (
        f"{package} exposes names its __all__ does not export: "
        + ", ".join(f"{name} ({surface['namespace'].get(name, 'in dir()')})" for name in leaks)
        + "; export them, rename them with a leading underscore, or document them in "
        "NOT_EXPORTED in tests/test_public_api.py"
    )


@pytest.mark.parametrize("package", sorted(NOT_EXPORTED))
def test_not_exported_table_is_not_stale(package: str, surfaces: dict[str, Any]) -> None:
    gone = set(NOT_EXPORTED[package]) - set(surfaces[package]["namespace"])
    assert not gone, f"NOT_EXPORTED[{package!r}] lists names no longer bound: {sorted(gone)}"


FRONT_DOOR = {
    # read, score, run, compare, report
    "load_trace", "iter_traces", "compile_plan", "score", "assert_trace", "run_suite",
    "read_results", "diff_results", "render",
    # what they take and return
    "AgentTrace", "TraceStep", "EvalTestCase", "MetricResult", "Score", "Scores",
    "SuiteResult", "CaseResult", "CheckResult",
    # what they raise
    "OpenEvalError", "MissingDependencyError", "ResultFileError", "SuiteError",
    "TestCaseError", "TraceFormatError",
    "__version__",
}
"""The package root: the names that do things, and the values and errors they pass around;
everything else stays in its package (proposals/0111-front-door-and-compat.md)."""


def test_the_root_exports_the_front_door() -> None:
    assert set(openeval.__all__) == FRONT_DOOR


@pytest.mark.parametrize("name", sorted(FRONT_DOOR - {"__version__"}))
def test_each_root_name_is_the_object_of_its_home_package(name: str) -> None:
    from importlib import import_module

    from openeval import _LAZY

    assert getattr(openeval, name) is getattr(import_module(_LAZY[name]), name)


def test_the_front_door_reads_scores_runs_and_renders(tmp_path: Path) -> None:
    suite_dir = ROOT / "tests" / "data" / "suites" / "legacy_021"
    trace = openeval.load_trace(suite_dir / "traces" / "refund.json")
    case = openeval.EvalTestCase.from_dict(
        json.loads((suite_dir / "testcases" / "refund.json").read_text(encoding="utf-8")))
    results = openeval.score(trace, openeval.compile_plan(case))
    assert results and all(isinstance(r, openeval.CheckResult) for r in results)
    suite = openeval.run_suite(suite_dir)
    assert isinstance(suite, openeval.SuiteResult)
    (refund,) = (c for c in suite.cases if c.task_id == trace.task_id)
    assert refund.checks == results  # the runner and the scorer agree
    from openeval.results.files import write_results

    write_results(suite, tmp_path)
    again = openeval.read_results(tmp_path)
    assert openeval.render(again, "markdown") == openeval.render(suite, "markdown")
    assert openeval.diff_results(suite, again).regressions == ()


def test_no_module_is_shadowed_by_a_name_of_its_package() -> None:
    from openeval.scoring.score import MAX_DATA_BYTES, score  # the old path still works

    import openeval.scoring.scorer as scorer

    assert (scorer.score, scorer.MAX_DATA_BYTES) == (score, MAX_DATA_BYTES)
    assert openeval.scoring.score is score


def test_models_are_importable_from_the_package_root() -> None:
    from openeval.models import AgentTrace, EvalTestCase, MetricResult, TraceStep

    assert (openeval.AgentTrace, openeval.EvalTestCase, openeval.MetricResult,
            openeval.TraceStep) == (AgentTrace, EvalTestCase, MetricResult, TraceStep)


def test_version_matches_the_distribution() -> None:
    from importlib.metadata import version

    assert openeval.__version__ == version("openeval-core")


def test_package_ships_py_typed() -> None:
    from importlib.resources import files

    assert files("openeval").joinpath("py.typed").is_file()

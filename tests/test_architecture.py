"""Architecture rules that code review alone would let slip.

* Every module imports alone, each in its own fresh interpreter (no import cycle, no stray
  top-level import), and a module touching an optional dependency is listed in
  OPTIONAL_DEPENDENCIES, which also runs it with that dependency refused.
* Imports follow LAYERS: a lower layer never imports a higher one, in any form; third-party
  packages are reached only where CORE_DEPENDENCIES or OPTIONAL_DEPENDENCIES say.
* Only the command line (``openeval/cli/``) and the CI glue (``openeval/ci/``) print or exit.
* ``openeval --help`` loads no heavy module.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any, Literal, NamedTuple

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "openeval"

LAYERS: tuple[tuple[str, ...], ...] = (
    ("openeval.errors", "openeval.version", "openeval.lazy", "openeval.printable",
     "openeval.compat.deprecation",  # the 0.2.1 warning, raised from every layer
     "openeval.deprecation",  # its old path, a re-export
     "openeval.io.files"),  # the one rule for which files may be read; jsonio applies it too
    ("openeval.registry",),
    ("openeval.models", "openeval.scores", "openeval.values", "openeval.jsonio",
     "openeval.compat.metric",  # 0.2.1's BaseMetric, re-exported by openeval.metrics
     "openeval.trust"),  # which user code a run may run: a value every layer above carries
    ("openeval.schemas",
     "openeval.testcase_typed"),  # the usual test case checked in one pass: a schema subset
    ("openeval.io",),
    ("openeval.matching",),
    ("openeval.adapters", "openeval.metrics", "openeval.checks"),
    ("openeval.results",),  # the record: what scoring produces and every reporter reads
    (
        "openeval.scoring",
        "openeval.code_checks",  # user checks: loaded and called by the scorer
        "openeval.testcase_file",  # checks metric names against openeval.metrics.registry
        "openeval.snapshot",  # drafts a test case for the suite; needs only the models
    ),
    # The two pipelines, siblings on the scoring core, each owning its plan and its engines:
    ("openeval.suite",  # run: discovery, one case end to end, its engines (suite.engines)
     "openeval.production",  # score: inputs, plan, rows, engines, summary, output, gate
     "openeval.scaffold",  # the files `openeval init` writes
     "openeval.record"),  # `openeval record`: an OTLP receiver writing trace files
    ("openeval.engines",  # old import path of openeval.suite.engines (re-exports only)
     "openeval.distributed"),  # old import path of openeval.production.engines.ray
    ("openeval.runner",  # the front door: discover, score on an engine, one SuiteResult
     "openeval.compat",  # openeval-core 0.2.1's run_eval / run_suite(path, metrics)
     "openeval.legacy"),  # its old path, a re-export
    ("openeval.report",),
    ("openeval.ci", "openeval.cli", "openeval.testing"),
    ("openeval.__main__", "openeval"),  # the root only re-exports, lazily
)
"""The layers, lowest first; a new package is placed here when it lands.

A module belongs to the entry that is its longest dotted prefix (``openeval.adapters.otel``
belongs to ``openeval.adapters``); the package root ``openeval`` matches only itself, so a
module no entry covers fails the layer test until it is placed here. A module may import its
own layer and lower ones, never a higher one, whether the import runs at the top, inside a
function, under ``TYPE_CHECKING`` or by name (``import_module`` and lazy maps): a deferred import
is still a dependency. Entries may name packages that do not exist yet.
"""

FORBIDDEN: tuple[tuple[str, str, str], ...] = (
    ("openeval.metrics", "openeval.adapters", "metrics see an AgentTrace, never a trace format"),
    ("openeval.checks", "openeval.adapters", "checks see an AgentTrace, never a trace format"),
    ("openeval.adapters", "openeval.metrics", "adapters only normalise input, they never score"),
    ("openeval.adapters", "openeval.checks", "adapters only normalise input, they never score"),
    ("openeval.suite", "openeval.production", "run's pipeline never reaches into score's"),
    ("openeval.production", "openeval.suite.engines", "score has its own engines"),
    ("openeval.production", "openeval.suite.evaluate", "score does not run cases"),
)
"""``(importer, imported, why)``: imports refused even within one layer (siblings)."""

CORE_DEPENDENCIES: dict[str, tuple[str, ...]] = {
    "orjson": ("openeval",),
    "msgspec": ("openeval.adapters.native_typed", "openeval.testcase_typed"),
    "jsonschema": ("openeval.schemas",),
    "click": ("openeval.cli",),
    "rich": ("openeval.cli",),
    # Python 3.10 only: tomllib is in 3.11's stdlib.
    "tomli": ("openeval.checks.format", "openeval.suite.config"),
}
"""Each required dependency (import name) and the packages that may import it.

Keeping click and rich in the CLI keeps the core free of console code; keeping jsonschema in
``openeval.schemas`` keeps ``openeval --help`` fast.
"""

ALL_OPTIONAL = ("zstandard", "langchain_core", "openai", "anthropic", "opentelemetry", "fixtura",
                "ray")


class OptionalDependency(NamedTuple):
    """A module whose promise about an optional dependency is checked with it refused."""

    module: str
    blocked: tuple[str, ...]
    """Top-level import names made to look uninstalled."""
    install: str
    """What a user installs to get them; an ``error`` promise must name it."""
    promise: Literal["lazy", "error"]
    """``lazy``: imports without them and, when they are installed, does not load them either.
    ``error``: importing it without them raises an OpenEvalError naming ``install``."""


OPTIONAL_DEPENDENCIES: tuple[OptionalDependency, ...] = (
    OptionalDependency("openeval", ALL_OPTIONAL, "openeval-core[all]", "lazy"),
    OptionalDependency("openeval.cli", ALL_OPTIONAL, "openeval-core[all]", "lazy"),
    OptionalDependency("openeval.adapters", ALL_OPTIONAL, "openeval-core[all]", "lazy"),
    OptionalDependency("openeval.adapters.registry", ALL_OPTIONAL, "openeval-core[all]", "lazy"),
    OptionalDependency("openeval.adapters.base", ("zstandard",), "openeval-core[fixtura]", "lazy"),
    OptionalDependency(
        "openeval.adapters.fixtura", ("zstandard",), "openeval-core[fixtura]", "lazy"
    ),
    OptionalDependency(
        "openeval.adapters.fixtura.drift", ("fixtura",), "openeval-core[fixtura]", "lazy"
    ),
    OptionalDependency(
        "openeval.adapters.fixtura.reader", ("zstandard",), "openeval-core[fixtura]", "lazy"
    ),
    OptionalDependency("openeval.io.zstd", ("zstandard",), "openeval-core[fixtura]", "lazy"),
    OptionalDependency(
        "openeval.production.output", ("zstandard",), "openeval-core[fixtura]", "lazy"
    ),
    OptionalDependency(
        "openeval.adapters.langchain", ("langchain_core",), "openeval-core[langchain]", "lazy"
    ),
    OptionalDependency("openeval.adapters.openai", ("openai",), "openeval-core[openai]", "lazy"),
    OptionalDependency(
        "openeval.adapters.anthropic", ("anthropic",), "openeval-core[anthropic]", "lazy"
    ),
    OptionalDependency(
        "openeval.adapters.otel", ("opentelemetry",), "openeval-core[otel]", "lazy"
    ),
    # `openeval record` decodes protobuf bodies only when one arrives.
    OptionalDependency("openeval.record.protobuf", ("google", "opentelemetry"),
                       "openeval-core[record]", "lazy"),
    # The Ray engine imports Ray when it runs, and says which extra installs it.
    OptionalDependency("openeval.distributed.ray", ("ray",), "openeval-core[ray]", "lazy"),
    OptionalDependency(
        "openeval.production.engines.ray", ("ray",), "openeval-core[ray]", "lazy"
    ),
    # pytest loads its plugins itself; imported anywhere else without pytest, it says so.
    OptionalDependency("openeval.testing.pytest_plugin", ("pytest",), "pytest", "error"),
)
"""Every module that imports a package outside the standard library and CORE_DEPENDENCIES must
have a row here naming it (the import test enforces that), and so must every module that
promises to work without an SDK it reads the output of."""

EDGES = ("openeval.cli", "openeval.ci")
"""The only packages that may print, write to the console or exit."""

CONSOLE_ALLOWED: dict[tuple[str, str], str] = {
    ("openeval.code_checks.worker_main", "raise SystemExit"):
        "the code-check worker is a process of its own: it ends when its parent is gone",
    ("openeval.code_checks.worker_main", "os._exit"):
        "the code-check worker ends without waiting for threads the user's code left running",
    ("openeval.production.engines.ray", "os._exit"):
        "a Ray node that failed to start and does not stop would hold the process forever",
}
"""``(module, what) -> reason`` for a core module that genuinely must print or exit."""

Category = Literal["top-level", "in a function", "under TYPE_CHECKING", "by name"]


class Import(NamedTuple):
    """One import found in a module's source."""

    target: str
    category: Category
    line: int


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


SOURCES: dict[str, Path] = {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
MODULES = sorted(SOURCES)
CORE_MODULES = [m for m in MODULES if not any(_within(m, edge) for edge in EDGES)]


def _layer(module: str) -> int | None:
    """Return the index in LAYERS of ``module``, or None when no entry covers it."""
    best: tuple[int, int] | None = None  # (prefix length, layer)
    for index, entries in enumerate(LAYERS):
        for entry in entries:
            covers = module == entry if entry == "openeval" else _within(module, entry)
            if covers and (best is None or len(entry) > best[0]):
                best = (len(entry), index)
    return None if best is None else best[1]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


class _ImportCollector(ast.NodeVisitor):
    """Collects the imports of one module, each with the circumstance it runs in."""

    def __init__(self, module: str) -> None:
        self.module = module
        self.found: list[Import] = []
        self._functions = 0
        self._type_checking = 0

    @property
    def _category(self) -> Category:
        if self._type_checking:
            return "under TYPE_CHECKING"
        return "in a function" if self._functions else "top-level"

    def _in_function(self, node: ast.AST) -> None:
        self._functions += 1
        self.generic_visit(node)
        self._functions -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _in_function

    def visit_If(self, node: ast.If) -> None:
        if not _is_type_checking(node.test):
            self.generic_visit(node)
            return
        self._type_checking += 1
        for statement in node.body:
            self.visit(statement)
        self._type_checking -= 1
        for statement in node.orelse:
            self.visit(statement)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append(Import(alias.name, self._category, node.lineno))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        base = node.module or ""
        if node.level:
            package = self.module.split(".")
            if SOURCES[self.module].name != "__init__.py":
                package = package[:-1]
            package = package[: len(package) - node.level + 1]
            base = ".".join([*package, *([base] if base else [])])
        for alias in node.names:
            submodule = f"{base}.{alias.name}"
            target = submodule if submodule in SOURCES else base
            self.found.append(Import(target, self._category, node.lineno))

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ("import_module", "__import__") and node.args:
            self._by_name(node.args[0])
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        # Lazy re-export maps and built-in registries name modules as dict values.
        for value in node.values:
            self._by_name(value)
        self.generic_visit(node)

    def _by_name(self, node: ast.expr) -> None:
        if isinstance(node, ast.Constant) and node.value in SOURCES:
            self.found.append(Import(node.value, "by name", node.lineno))


def _imports(module: str, source: str | None = None) -> list[Import]:
    """Return the imports of ``module`` (or of ``source`` read as that module), once each."""
    collector = _ImportCollector(module)
    if source is None:
        source = SOURCES[module].read_text(encoding="utf-8")
    collector.visit(ast.parse(source))
    return list(dict.fromkeys(collector.found))


def test_imports_are_found_in_every_form() -> None:
    source = (
        "from typing import TYPE_CHECKING\n"
        "from . import base\n"
        "from ..adapters import registry\n"
        "if TYPE_CHECKING:\n"
        "    from openeval.runner import run_suite\n"
        "else:\n"
        "    import openeval.results\n"
        "def f():\n"
        "    import openeval.report\n"
        "    return import_module('openeval.cli')\n"
        "LAZY = {'x': 'openeval.snapshot', 'y': 'not.a.module'}\n"
    )
    assert [(i.target, i.category) for i in _imports("openeval.metrics.goal", source)] == [
        ("typing", "top-level"),
        ("openeval.metrics.base", "top-level"),
        ("openeval.adapters.registry", "top-level"),
        ("openeval.runner", "under TYPE_CHECKING"),
        ("openeval.results", "top-level"),
        ("openeval.report", "in a function"),
        ("openeval.cli", "by name"),
        ("openeval.snapshot", "by name"),
    ]


# -- every module imports alone, in a fresh interpreter ------------------------------------------

# Run with argv = [module, comma-separated names to refuse]; prints one JSON line.
_IMPORT_PROBE = r"""
import contextlib, importlib, io, json, sys, traceback

module_name, blocked = sys.argv[1], set(filter(None, sys.argv[2].split(",")))


class RefuseBlocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (refused by the test)", name=name)
        return None


preloaded = sorted(m for m in sys.modules if m.partition(".")[0] in blocked)
sys.meta_path.insert(0, RefuseBlocked())
out, err = io.StringIO(), io.StringIO()
report = {"preloaded": preloaded}
try:
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        module = importlib.import_module(module_name)
except BaseException as exc:
    from openeval.errors import OpenEvalError

    report.update(
        outcome="raised",
        error=f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}",
        clean=isinstance(exc, OpenEvalError),
        traceback=traceback.format_exc(limit=-4),
    )
else:
    report.update(outcome="imported", file=module.__file__)
report.update(
    printed=out.getvalue() + err.getvalue(),
    loaded=sorted({m.partition(".")[0] for m in sys.modules}),
)
print(json.dumps(report))
"""


def _run_python(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``python -c ...`` in a fresh interpreter on this checkout."""
    env = dict(os.environ)
    # This checkout first, keeping what the caller had, so the child tests the same copy.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run(
        [sys.executable, "-c", *args],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120, check=False,
    )


def _probe_import(module: str, blocked: tuple[str, ...] = ()) -> dict[str, Any]:
    """Import ``module`` alone in a fresh interpreter, ``blocked`` refused; return its report."""
    done = _run_python(_IMPORT_PROBE, module, ",".join(blocked))
    if done.returncode != 0 or not done.stdout.strip():
        return {"outcome": "crashed", "error": done.stderr[-2000:] or done.stdout[-2000:]}
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    report["printed"] += done.stderr  # warnings the interpreter wrote itself
    return report


PROBES: list[tuple[str, tuple[str, ...]]] = [(m, ()) for m in MODULES] + [
    (row.module, row.blocked) for row in OPTIONAL_DEPENDENCIES
]


@pytest.fixture(scope="session")
def import_reports() -> dict[tuple[str, tuple[str, ...]], dict[str, Any]]:
    """Every probe, run once in parallel: one fresh interpreter per module and per table row."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        reports = pool.map(lambda probe: _probe_import(*probe), PROBES)
        return dict(zip(PROBES, reports, strict=True))


def _optional_row(module: str) -> OptionalDependency | None:
    return next((row for row in OPTIONAL_DEPENDENCIES if row.module == module), None)


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_alone_in_a_fresh_interpreter(
    module: str, import_reports: dict[tuple[str, tuple[str, ...]], dict[str, Any]]
) -> None:
    report = import_reports[(module, ())]
    assert report["outcome"] == "imported", (
        f"{module} does not import alone: {report['error']}\n{report.get('traceback', '')}"
    )
    assert Path(report["file"]).is_relative_to(PACKAGE), f"the child imported {report['file']}"
    assert report["printed"] == "", f"importing {module} wrote: {report['printed']!r}"
    row = _optional_row(module)
    if row is not None and row.promise == "lazy":
        eager = sorted(set(row.blocked) & set(report["loaded"]))
        assert not eager, f"{module} promises to load {eager} lazily but loads them on import"


@pytest.mark.parametrize(
    "row",
    OPTIONAL_DEPENDENCIES,
    ids=[
        f"{row.module}-without-"
        + ("every-extra" if row.blocked == ALL_OPTIONAL else "+".join(row.blocked))
        for row in OPTIONAL_DEPENDENCIES
    ],
)
def test_module_keeps_its_promise_without_its_optional_dependency(
    row: OptionalDependency,
    import_reports: dict[tuple[str, tuple[str, ...]], dict[str, Any]],
) -> None:
    assert row.module in SOURCES, f"OPTIONAL_DEPENDENCIES names {row.module}, which is gone"
    report = import_reports[(row.module, row.blocked)]
    assert report.get("preloaded") == [], f"already loaded at startup: {report.get('preloaded')}"
    if row.promise == "lazy":
        assert report["outcome"] == "imported", (
            f"{row.module} promises to import without {row.blocked}, but: {report['error']}\n"
            f"{report.get('traceback', '')}"
        )
    else:
        assert report["outcome"] == "raised", f"{row.module} imported without {row.blocked}"
        assert report["clean"], f"not an OpenEvalError: {report['error']}"
        assert row.install in report["error"], f"does not name {row.install}: {report['error']}"


# -- layers and dependencies ----------------------------------------------------------------------


def _describe(layer: int) -> str:
    return f"layer {layer} ({', '.join(LAYERS[layer])})"


@pytest.mark.parametrize("module", MODULES)
def test_module_imports_only_its_own_layer_or_lower(module: str) -> None:
    layer = _layer(module)
    assert layer is not None, (
        f"{module} is in no layer: add it to LAYERS at the top of tests/test_architecture.py, "
        "in the lowest layer at or above everything it imports"
    )
    problems = []
    for found in _imports(module):
        if not _within(found.target, "openeval"):
            continue
        where = f"line {found.line}: imports {found.target} ({found.category})"
        target_layer = _layer(found.target)
        if target_layer is None:
            problems.append(f"{where}, which is in no layer of LAYERS")
        elif target_layer > layer:
            problems.append(f"{where}, in {_describe(target_layer)}, above its own")
        problems.extend(
            f"{where}: {why}"
            for importer, imported, why in FORBIDDEN
            if _within(module, importer) and _within(found.target, imported)
        )
    assert not problems, f"{module} ({_describe(layer)}):\n" + "\n".join(problems)


@pytest.mark.parametrize("module", MODULES)
def test_module_reaches_third_party_packages_only_as_declared(module: str) -> None:
    row = _optional_row(module)
    problems = []
    for found in _imports(module):
        top = found.target.partition(".")[0]
        if top == "openeval" or top in sys.stdlib_module_names:
            continue
        where = f"line {found.line}: imports {found.target} ({found.category})"
        if top in CORE_DEPENDENCIES:
            if not any(_within(module, allowed) for allowed in CORE_DEPENDENCIES[top]):
                problems.append(f"{where}; CORE_DEPENDENCIES allows it only in "
                                f"{CORE_DEPENDENCIES[top]}")
        elif row is None or top not in row.blocked:
            problems.append(f"{where}, neither standard library nor in CORE_DEPENDENCIES; "
                            f"if it is optional, give {module} a row in OPTIONAL_DEPENDENCIES "
                            "naming it, what installs it and what the module promises without it")
        elif row.promise == "lazy" and found.category == "top-level":
            problems.append(f"{where}, but the module promises to load it lazily")
    assert not problems, f"{module}:\n" + "\n".join(problems)


def test_core_dependencies_are_the_required_distributions() -> None:
    # The checkout's own pyproject.toml (what the installed metadata is built from), so a
    # dependency added in a branch is checked before the shared environment is reinstalled.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {
        canonicalize_name(req.name)
        for req in map(Requirement, project["dependencies"])
        if req.marker is None or "extra" not in str(req.marker)  # python_version markers count
    }
    importable = packages_distributions()
    declared = {
        canonicalize_name(dist)
        for name in CORE_DEPENDENCIES
        for dist in importable.get(name, [name])
    }
    assert declared == required


# -- only the edges print or exit -----------------------------------------------------------------

_CONSOLE_CALLS = {"print", "exit", "quit"}
_CONSOLE_ATTRIBUTES = {
    "sys.exit", "sys.stdout", "sys.stderr", "os._exit", "os.abort", "click.echo", "click.secho"
}


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _console_uses(tree: ast.AST) -> Iterator[tuple[int, str]]:
    """Yield ``(line, what)`` for every print, console write or exit in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            if node.func.id in _CONSOLE_CALLS:
                yield node.lineno, f"{node.func.id}("
        elif isinstance(node, ast.Attribute) and _dotted(node) in _CONSOLE_ATTRIBUTES:
            yield node.lineno, str(_dotted(node))
        elif isinstance(node, ast.ImportFrom) and node.module in ("sys", "os", "click"):
            for alias in node.names:
                if f"{node.module}.{alias.name}" in _CONSOLE_ATTRIBUTES:
                    yield node.lineno, f"from {node.module} import {alias.name}"
        elif isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if _dotted(raised) in ("SystemExit", "KeyboardInterrupt"):
                yield node.lineno, f"raise {_dotted(raised)}"


@pytest.mark.parametrize("module", CORE_MODULES)
def test_module_neither_prints_nor_exits(module: str) -> None:
    uses = list(_console_uses(ast.parse(SOURCES[module].read_text(encoding="utf-8"))))
    found = [f"line {line}: {what}" for line, what in uses if (module, what) not in CONSOLE_ALLOWED]
    assert not found, (
        f"{module} prints or exits, which only {EDGES} may do; return a value or raise an "
        "OpenEvalError instead:\n" + "\n".join(found)
    )
    stale = {w for m, w in CONSOLE_ALLOWED if m == module} - {what for _, what in uses}
    assert not stale, f"CONSOLE_ALLOWED lists {sorted(stale)} in {module}, which no longer does it"


# -- the command line starts light ----------------------------------------------------------------

HEAVY = ("rich", "jsonschema", "zstandard", "langchain_core", "openai", "anthropic",
         "fixtura", "opentelemetry", "ray", "openeval.runner", "openeval.adapters.registry")


def test_help_loads_no_heavy_module() -> None:
    script = (
        "import sys\n"
        "from openeval.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}"
        f" or m in {HEAVY!r}))\n"
    )
    done = _run_python(script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"

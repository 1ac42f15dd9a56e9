"""Architecture rules that code review alone would let slip.

Data flows one way (file -> adapter -> trace -> metrics -> runner -> report -> CLI): a module
may import only from its own layer or lower ones. Every module imports on its own in a fresh
interpreter (no import cycles), and ``openeval --help`` loads no heavy dependency.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "openeval"

# Lower number = lower layer. A module's layer is found by its longest matching prefix.
LAYERS: dict[str, int] = {
    "openeval.errors": 0,
    "openeval.version": 0,
    "openeval.lazy": 0,
    "openeval.jsonio": 1,
    "openeval.models": 1,
    "openeval.values": 1,
    "openeval.schemas": 2,
    "openeval.io": 2,
    "openeval.io.files": 1,  # the read rule, which openeval.jsonio applies too
    "openeval.adapters": 3,
    "openeval.metrics": 3,
    "openeval.results": 3,
    "openeval.snapshot": 4,
    "openeval.testcase_file": 4,
    "openeval.runner": 5,
    "openeval.result_files": 5,
    "openeval.report": 6,
    "openeval.ci": 7,
    "openeval.cli": 7,
    "openeval.__main__": 8,
    "openeval": 8,  # the package root re-exports the public API
}


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _layer(module: str) -> int:
    best = max((p for p in LAYERS if module == p or module.startswith(p + ".")), key=len)
    return LAYERS[best]


MODULES = sorted(_module_name(p) for p in PACKAGE.rglob("*.py"))


def _imports(module: str) -> set[str]:
    path = PACKAGE.parent / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = PACKAGE.parent / module.replace(".", "/") / "__init__.py"
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name == "openeval" or name.startswith("openeval.")}


@pytest.mark.parametrize("module", [m for m in MODULES if m != "openeval"])
def test_module_imports_only_lower_layers(module: str) -> None:
    upward = sorted(
        imported for imported in _imports(module) if _layer(imported) > _layer(module)
    )
    assert not upward, f"{module} (layer {_layer(module)}) imports higher layers: {upward}"


def test_every_module_imports_alone_in_a_fresh_interpreter() -> None:
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        f"for name in {[m for m in MODULES if m != 'openeval.__main__']!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError as exc:\n"
        "        failed.append(f'{name}: {exc}')\n"
        "print('\\n'.join(failed))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    # An ImportError is fine only when it is an optional dependency naming its extra.
    assert "circular import" not in done.stdout


HEAVY = ("rich", "jsonschema", "zstandard", "langchain_core", "openai", "anthropic",
         "fixtura", "opentelemetry", "openeval.runner", "openeval.adapters.registry")


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
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"

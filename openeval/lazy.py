"""Lazy re-exports: a package names what it offers without importing it up front.

``openeval --help`` imports the package root, and ``openeval.adapters`` must not import any
optional SDK, so both resolve their exports on first access (PEP 562).
"""

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing.TYPE_CHECKING: typing and collections cost `--help` ~10 ms
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any


def lazy_exports(
    package: str, sources: Mapping[str, str], exported: Sequence[str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """Return the ``__getattr__`` and ``__dir__`` of ``package``.

    ``sources`` maps each lazy name to the module defining it, or, for a submodule of the
    package, to that submodule itself (``"agent": "openeval.checks.agent"``); ``exported`` is
    the package's ``__all__``. Any other name raises AttributeError as usual.
    """

    def __getattr__(name: str) -> Any:
        module = sources.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        if module == f"{package}.{name}":
            return import_module(module)
        return getattr(import_module(module), name)

    def __dir__() -> list[str]:
        return sorted(exported)

    return __getattr__, __dir__

"""Version 1 of the check library: the same objects as :mod:`openeval.checks`.

Import from here to pin behaviour: a check under ``v1`` changes only to fix a bug, and a change
that would move scores goes into a new version module. ``checks`` is the library itself
(``from openeval.checks.v1 import checks``); ``metrics`` is the same package under the name
the check library's reference uses (``from openeval.checks.v1 import metrics, text,
combine``), kept because user code is written that way. It is not :mod:`openeval.metrics`.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_PACKAGE = "openeval.checks"
_LIBRARY = ("checks", "metrics")
"""The names the whole library goes by here (``metrics``: the reference's spelling)."""


def __getattr__(name: str) -> Any:
    package = import_module(_PACKAGE)
    if name in _LIBRARY:
        return package
    if name == "v1":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(package, name)


def __dir__() -> list[str]:
    package = import_module(_PACKAGE)
    return sorted([*(n for n in dir(package) if n != "v1"), *_LIBRARY])

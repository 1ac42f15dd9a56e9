"""The registry of built-in checks (:mod:`openeval.checks`) and third-party ones.

Built-ins are every name in ``openeval.checks.CHECK_NAMES``, in that order, each imported on
first use; third-party checks register in the ``openeval.checks`` entry-point group.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from openeval.registry import Registry

CheckFunction = Callable[..., Any]


@cache
def check_registry() -> Registry[CheckFunction]:
    """Return the check registry (built once per process)."""
    try:
        from openeval.checks import CHECK_NAMES
    except ImportError:  # the check library is not part of this build
        names: tuple[str, ...] = ()
    else:
        names = tuple(CHECK_NAMES)
    return Registry("check", "openeval.checks", {name: f"openeval.checks:{name}" for name in names})

"""The check registry as the scorer reaches it; the registry itself is
:mod:`openeval.checks.registry` (this module keeps the older function name)."""

from __future__ import annotations

from openeval.checks.registry import CHECKS, CheckFunction
from openeval.registry import Registry

__all__ = ["CheckFunction", "check_registry"]


def check_registry() -> Registry[CheckFunction]:
    """Return the check registry (:data:`openeval.checks.registry.CHECKS`)."""
    return CHECKS

"""Warnings for the openeval-core 0.2.1 API that OpenEval keeps working (see
:mod:`openeval.compat`)."""

from __future__ import annotations

import warnings


def display_name(name: str) -> str:
    """Return 0.2.1's display name of a metric: ``tool_selection_accuracy`` -> ``Tool Selection
    Accuracy``; a name with spaces or capitals (a user's own 0.2.1 metric) is kept."""
    if name.islower() and " " not in name:
        return " ".join(part.capitalize() for part in name.split("_"))
    return name


def deprecated(old: str, new: str) -> None:
    """Warn that ``old`` (0.2.1's API) is deprecated in favour of ``new``."""
    warnings.warn(
        f"{old} is the openeval-core 0.2.1 API, kept for compatibility; use {new} instead "
        "(see 'Moving from openeval-core 0.2.1' in the README)",
        DeprecationWarning,
        stacklevel=3,
    )

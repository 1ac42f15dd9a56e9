"""Reports: one module per format, each turning a result (or a comparison of two) into text.

The registries of formats are in :mod:`openeval.report.registry`; this package re-exports
them. ``render`` is pure: no printing, no clock, so the same suite always gives the same text.
"""

from __future__ import annotations

from openeval.report.registry import (
    BUILTIN_REPORTERS,
    REPORTERS,
    DiffReporter,
    Reporter,
    diff_names,
    format_names,
    get_diff,
    get_reporter,
    register_diff,
    register_reporter,
    render,
    render_diff,
)

__all__ = [
    "BUILTIN_REPORTERS",
    "REPORTERS",
    "DiffReporter",
    "Reporter",
    "diff_names",
    "format_names",
    "get_diff",
    "get_reporter",
    "register_diff",
    "register_reporter",
    "render",
    "render_diff",
]

"""Suites: finding the cases of a suite folder (:mod:`.discover`)."""

from __future__ import annotations

from openeval.suite.discover import CaseSpec, discover, is_trace_name

__all__ = ["CaseSpec", "discover", "is_trace_name"]

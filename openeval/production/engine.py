"""Old import path of :mod:`openeval.production.engines.local`."""

from __future__ import annotations

from openeval.production.engines.local import local_records, local_rows, sample_threshold

__all__ = ["local_records", "local_rows", "sample_threshold"]

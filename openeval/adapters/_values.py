"""Small readings the own-JSON formats share: times, durations and tool results as text.

The Agents SDK, Langfuse, MLflow, ADK and Inspect each write times and tool outputs in a shape
of their own; these helpers are the one rule for each, so every reader says the same thing
about the same value.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from openeval.adapters._toolkit import Errors
from openeval.jsonio import dump_json_compact


def epoch_seconds(value: Any, errors: Errors, location: str) -> float | None:
    """Return an ISO 8601 time (naive means UTC) or epoch seconds as epoch seconds.

    None for a missing value; raises TraceFormatError at ``location`` for anything else that is
    not a time.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise errors("expected a time (ISO 8601 text or epoch seconds)", location)
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or not 0 <= value < 1e11:
            raise errors("expected an epoch time in seconds", location)
        return float(value)
    if not isinstance(value, str):
        raise errors("expected a time (ISO 8601 text or epoch seconds)", location)
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise errors(f"expected an ISO 8601 time, got {value[:40]!r}", location) from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def duration_ms(start: float | None, end: float | None) -> float | None:
    """Return the milliseconds from ``start`` to ``end``; None when either is unknown or the
    end comes first."""
    if start is None or end is None or end < start:
        return None
    return round((end - start) * 1000.0, 3)


def result_text(value: Any) -> str | None:
    """Return a tool's output as text: a string as it is, anything else as compact JSON;
    None when there is none."""
    if value is None:
        return None
    if isinstance(value, str):
        return value
    return dump_json_compact(value)

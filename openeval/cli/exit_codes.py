"""Exit codes of every ``openeval`` command, defined once (docs/semantics.md#exit-codes)."""

from __future__ import annotations

EXIT_OK = 0
"""The command did what was asked and the gate (if any) passed."""
EXIT_FAIL = 1
"""The gate failed: a metric failed, a case errored, the pass rate is low, or bad result files."""
EXIT_USAGE = 2
"""Bad usage, or a file that cannot be read in single-case mode."""
EXIT_SIGNAL_BASE = 128
"""Stopped by a signal (Ctrl-C, SIGTERM): the exit code is this plus the signal's number (130,
143), as shells report a process a signal ended; the run wrote no verdict."""

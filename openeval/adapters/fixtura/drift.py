"""The drift verdict of a Fixtura trace: read from its metadata, or computed with Fixtura's code.

A trace stores only digests of the tool registry, system prompt and permission policy it was
recorded against, so a verdict needs the agent as it stands now. ``--agent-spec module:attr``
names it (an ``fixtura.agent_spec.AgentSpec``, or a callable returning one, as
``fixtura check-drift --agent`` takes it) and Fixtura's own ``compare`` decides. See
proposals/0010-fixtura-adapter.md. The current agent's fingerprint is computed once per process
per ``--agent-spec`` value, not once per trace.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from openeval.errors import MissingDependencyError, SuiteError, TraceFormatError

Verdict = Literal["PASS", "DRIFTED", "UNVERIFIED"]

VERDICT_KEY = "fingerprint_verdict"
"""The metadata key the fixture_freshness metric reads."""


@dataclass(frozen=True)
class DriftReport:
    """A verdict with Fixtura's reasons: which components changed, which could not be compared."""

    verdict: Verdict
    changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def recorded_verdict(metadata: dict[str, Any]) -> Any:
    """Return the verdict already in ``metadata``, or None when the trace was never checked.

    Looked for, in order, under ``fingerprint_verdict``, ``verdict`` and
    ``fingerprint.verdict`` (docs/semantics.md#drift-verdict); the value is returned as found,
    since the metric reports any value it does not know instead of guessing.
    """
    for value in (
        metadata.get(VERDICT_KEY),
        metadata.get("verdict"),
        metadata["fingerprint"].get("verdict")
        if isinstance(metadata.get("fingerprint"), dict)
        else None,
    ):
        if value is not None:
            return value
    return None


@contextmanager
def _current_folder_importable() -> Iterator[None]:
    """Let ``module:attr`` name a module in the current folder, as ``python -m`` would.

    ``openeval`` runs as a console script, whose sys.path lacks the current folder. It is added
    last, and only while the spec is imported, so it never shadows an installed package.
    """
    folder = str(Path.cwd())
    added = folder not in sys.path
    if added:
        sys.path.append(folder)
    try:
        yield
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


_FINGERPRINTS: dict[str, Any] = {}
"""The current agent's fingerprint per ``--agent-spec`` value, computed once per process.

Building an AgentSpec imports the user's agent and fingerprints its tools, prompt and policy
files; a suite of a thousand Fixtura traces would otherwise do that a thousand times."""


def _missing_fixtura(trace_path: Path) -> MissingDependencyError:
    return MissingDependencyError(
        "computing a drift verdict (--agent-spec, or a test case's agent_spec) needs the "
        'fixtura package (Python 3.11+): pip install "openeval-core[fixtura]"',
        source=trace_path,
    )


def current_fingerprint(agent_spec: str, *, trace_path: Path) -> Any:
    """Return the fingerprint of the agent ``agent_spec`` names, computed once per process.

    Raises MissingDependencyError without ``fixtura``, and SuiteError when the spec cannot be
    imported, built or fingerprinted. A failure is not remembered: the next trace tries again
    and reports the same error.
    """
    if agent_spec in _FINGERPRINTS:
        return _FINGERPRINTS[agent_spec]
    try:
        from fixtura.cli.check_drift import (  # type: ignore[import-untyped]
            AgentSpecError,
            load_agent_spec,
        )
    except ImportError:
        raise _missing_fixtura(trace_path) from None
    where = f"--agent-spec {agent_spec}"
    try:
        with _current_folder_importable():
            spec = load_agent_spec(agent_spec)
    except AgentSpecError as exc:
        raise SuiteError(
            f"{exc} (expected module:attribute naming a fixtura AgentSpec or a function "
            "returning one, importable from the current folder or PYTHONPATH)",
            location=where,
        ) from None
    except (Exception, SystemExit) as exc:  # the user's module failed, or exited, on import
        # sys.exit(0) in the user's module must never end the run with exit 0 (a passed gate).
        raise SuiteError(
            f"building the agent spec raised {type(exc).__name__}: {exc}", location=where
        ) from None
    try:
        fingerprint = spec.fingerprint()
    except (Exception, SystemExit) as exc:
        raise SuiteError(
            f"fingerprinting the agent spec raised {type(exc).__name__}: {exc}", location=where
        ) from None
    _FINGERPRINTS[agent_spec] = fingerprint
    return fingerprint


def compute_verdict(
    recorded: Any, agent_spec: str, *, trace_path: Path, fingerprint_location: str | None = None
) -> DriftReport:
    """Return Fixtura's verdict on ``recorded`` (a header fingerprint, or None) for the agent
    named by ``agent_spec`` (``module:attr``).

    Raises MissingDependencyError when ``fixtura`` is not installed, and SuiteError when the
    spec cannot be imported, built or fingerprinted (a usage mistake, not a broken trace);
    TraceFormatError when the recorded fingerprint has parts of the wrong shape.
    """
    try:
        from fixtura.recorder.fingerprint import compare  # type: ignore[import-untyped]
    except ImportError:
        raise _missing_fixtura(trace_path) from None
    current = current_fingerprint(agent_spec, trace_path=trace_path)
    # Fixtura's compare reads a dict or None; any other recorded value is as good as absent.
    try:
        report = compare(recorded if isinstance(recorded, dict) else None, current)
    except Exception as exc:  # a hand-edited fingerprint whose parts have the wrong shapes
        raise TraceFormatError(
            f"the recorded fingerprint cannot be compared ({type(exc).__name__}: {exc}); "
            "expected the object fixtura's compute_fingerprint writes",
            source=trace_path,
            location=fingerprint_location,
        ) from None
    verdict: Verdict = report.verdict
    return DriftReport(verdict, list(report.changes), list(report.notes))

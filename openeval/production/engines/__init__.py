"""Where ``openeval score`` scores its traces: an engine per name, in one registry.

An engine is a function with the shape of :class:`ScoreEngine`: the input files and the plan
in, the ``results.jsonl`` rows out, in input order. Every engine calls the same pure functions
(:func:`openeval.production.read_records`, :func:`openeval.production.score_record`), so which
one ran never changes a byte (proposals/0081-distributed-scoring.md). The built-ins are
``local`` (:mod:`.local`, this process) and ``ray`` (:mod:`.ray`, Ray Data); a package adds
one through the ``openeval.score_engines`` entry-point group, or at run time with
:func:`register_engine`. Engine modules are imported only when their engine is asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from openeval.registry import Registry as _Registry

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.production.inputs import ScoreInput
    from openeval.production.plan import ScorePlan


class ScoreEngine(Protocol):
    """Scores files under a plan; yields one row per trace or unreadable line, in order (an
    input that is already an Unreadable, a folder that could not be listed, is one row)."""

    def __call__(
        self,
        files: Sequence[ScoreInput],
        plan: ScorePlan,
        *,
        address: str | None = None,
        sample: int | None = None,
        trace_format: str | None = None,
        options: LoadOptions | None = None,
    ) -> Iterator[dict[str, Any]]: ...


_BUILTIN: dict[str, str] = {
    "local": "openeval.production.engines.local:score_rows",
    "ray": "openeval.production.engines.ray:score_rows",
}

ENGINES: _Registry[Any] = _Registry("engine", "openeval.score_engines", _BUILTIN)

DEFAULT_ENGINE = "local"


def engine_names() -> list[str]:
    """Return every engine's name, built-ins first."""
    return ENGINES.names()


def get_engine(name: str) -> ScoreEngine:
    """Return the engine called ``name``; raise OpenEvalError listing the valid names."""
    engine: ScoreEngine = ENGINES.get(name)
    return engine


def register_engine(name: str, engine: ScoreEngine) -> ScoreEngine:
    """Add ``engine`` under ``name`` (replacing one of that name); return it unchanged."""
    ENGINES.register(name, engine, replace=True)
    return engine


__all__ = ["DEFAULT_ENGINE", "ENGINES", "ScoreEngine", "engine_names", "get_engine",
           "register_engine"]

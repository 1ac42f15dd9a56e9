"""Where ``openeval score`` scores its traces: an engine per name, in one registry.

An engine is a function with the shape of :class:`ScoreEngine`: the input files and the plan
in, the ``results.jsonl`` rows out, in input order. Every engine calls the same pure functions
(:func:`openeval.production.read_records`, :func:`openeval.production.score_record`), so which
one ran never changes a byte (proposals/0081-distributed-scoring.md). The built-ins are
``local`` (:mod:`.local`, this process) and ``ray`` (:mod:`.ray`, Ray Data); a package adds
one through the ``openeval.score_engines`` entry-point group, or at run time with
:func:`openeval.production.engines.registry.register` (the registry recipe every kind follows,
proposals/0110-one-registry-recipe.md). Engine modules are imported only when their engine is
asked for.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol

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


from openeval.production.engines.registry import (  # noqa: E402 - after the Protocol it returns
    DEFAULT_ENGINE,
    ENGINES,
    engine_names,
    get_engine,
    register_engine,
)

__all__ = ["DEFAULT_ENGINE", "ENGINES", "ScoreEngine", "engine_names", "get_engine",
           "register_engine"]

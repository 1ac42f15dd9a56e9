"""The engines of ``openeval score`` by name: the registry recipe every kind follows
(proposals/0110-one-registry-recipe.md). A built-in is one line in :data:`BUILTIN`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openeval.registry import Registry

if TYPE_CHECKING:
    from openeval.production.engines import ScoreEngine

BUILTIN: dict[str, str] = {
    "local": "openeval.production.engines.local:score_rows",
    "ray": "openeval.production.engines.ray:score_rows",
}
"""Built-in engines; one line adds one."""

REGISTRY: Registry[Any] = Registry("engine", "openeval.score_engines", BUILTIN)

ENGINES = REGISTRY
"""The name :data:`REGISTRY` has in the engines package."""

DEFAULT_ENGINE = "local"


def register(name: str, engine: ScoreEngine) -> ScoreEngine:
    """Add ``engine`` under ``name`` (replacing one of that name); return it unchanged."""
    REGISTRY.register(name, engine, replace=True)
    return engine


def get(name: str) -> ScoreEngine:
    """Return the engine called ``name``; raise OpenEvalError listing the valid names."""
    engine: ScoreEngine = REGISTRY.get(name)
    return engine


def names() -> list[str]:
    """Return every engine's name, built-ins first."""
    return REGISTRY.names()


register_engine = register
get_engine = get
engine_names = names

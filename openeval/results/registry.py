"""The trials-rule registry: how the verdicts of a case's repeated trials make its own.

The recipe every kind of entry follows (proposals/0110-one-registry-recipe.md): a built-in rule
is one line in :data:`BUILTIN` naming a :class:`~openeval.results.trials.RuleDefinition`,
imported on first use; a rule added at run time goes through :func:`register`; third-party rules
come from the ``openeval.trials_rules`` entry-point group. :func:`get` and :func:`names` read
all three. A rule is written ``name`` or, when it takes a number, ``name=K``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from openeval.registry import Registry

if TYPE_CHECKING:
    from openeval.results.trials import RuleDefinition

BUILTIN: dict[str, str] = {
    "all": "openeval.results.trials:ALL",
    "majority": "openeval.results.trials:MAJORITY",
    "pass_at_k": "openeval.results.trials:PASS_AT_K",
}
"""Built-in trials rules, in the order an error message lists them; one line adds a rule."""

REGISTRY: Registry[Any] = Registry("trials rule", "openeval.trials_rules", BUILTIN)


def register(rule: RuleDefinition) -> RuleDefinition:
    """Add ``rule`` under its name (replacing one of that name); return it unchanged."""
    REGISTRY.register(rule.name, rule, replace=True)
    return rule


def get(name: str) -> RuleDefinition:
    """Return the rule called ``name``; raise OpenEvalError listing the valid names."""
    rule: RuleDefinition = REGISTRY.get(name)
    return rule


def names() -> list[str]:
    """Return every rule name: built-ins first, then registered and third-party ones."""
    return REGISTRY.names()

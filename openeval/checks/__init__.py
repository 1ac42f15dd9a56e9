"""The check library: deterministic checks of an agent's reply, conversation and trace.

Every check is a function that takes a text, an :class:`~openeval.models.AgentTrace` or a
:class:`CheckContext` first, its settings as keyword arguments (None means the default), and
returns :class:`Scores`, primary first. The checks live in one module per area and are all
importable from here::

    from openeval.checks import keyword_check
    keyword_check("We ship in 3 days.", required=["ship"])

Areas: :mod:`~openeval.checks.format`, :mod:`~openeval.checks.quality`,
:mod:`~openeval.checks.similarity`, :mod:`~openeval.checks.safety`,
:mod:`~openeval.checks.conversation`, :mod:`~openeval.checks.context`,
:mod:`~openeval.checks.agent` and :mod:`~openeval.checks.trace`; helpers
:mod:`~openeval.checks.text`, :mod:`~openeval.checks.util` and
:mod:`~openeval.checks.combine`. :mod:`~openeval.checks.registry` names every check a test
case's ``checks`` entry can run (``detect_language`` and ``tools_used`` return no scores: they
are helpers, not entries). :mod:`openeval.checks.v1` is the same objects under a
version that changes only to fix a bug. Everything resolves on first use (PEP 562).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.checks.registry import AREAS, CHECK_NAMES, HELPER_NAMES, HELPERS
from openeval.lazy import lazy_exports

SUBMODULES: tuple[str, ...] = (*AREAS, "text", "util", "combine", "registry", "v1")

_SOURCES: dict[str, str] = {
    **{name: f"{__name__}.{area}" for area, names in AREAS.items() for name in names},
    **{name: f"{__name__}.{area}" for area, names in HELPERS.items() for name in names},
    "Score": "openeval.scores",
    "Scores": "openeval.scores",
    "CheckContext": f"{__name__}._context",
    "as_context": f"{__name__}._context",
    **{module: f"{__name__}.{module}" for module in SUBMODULES},
}

if TYPE_CHECKING:
    from openeval.checks import combine, registry, text, util
    from openeval.checks._context import CheckContext, as_context
    from openeval.scores import Score, Scores

__all__ = [
    "AREAS",
    "CHECK_NAMES",
    "HELPERS",
    "HELPER_NAMES",
    "SUBMODULES",
    "CheckContext",
    "Score",
    "Scores",
    "agent",
    "as_context",
    "bleu",
    "bm25_relevance",
    "citation_check",
    "combine",
    "contains",
    "context",
    "conversation",
    "conversation_degeneration",
    "csv_validity",
    "detect_language",
    "error_spans",
    "exact_match",
    "format",
    "grounding",
    "html_validity",
    "jaccard_similarity",
    "json_diff",
    "json_validity",
    "keyword_check",
    "knowledge_retention",
    "language_adherence",
    "length_budget",
    "levenshtein_ratio",
    "markdown_structure",
    "numeric_diff",
    "pii_leak",
    "prompt_injection",
    "quality",
    "readability",
    "refusal",
    "regex_match",
    "registry",
    "repeated_tool_calls",
    "rouge",
    "safety",
    "sentiment",
    "similarity",
    "span_count",
    "sql_shape",
    "text",
    "tfidf_similarity",
    "token_latency_budget",
    "toml_validity",
    "tone",
    "tool_call_validity",
    "tool_schema",
    "tool_schema_conformance",
    "tool_trajectory",
    "tools_used",
    "total_duration",
    "trace",
    "unsupported_numbers",
    "url_check",
    "util",
    "v1",
]


__getattr__, __dir__ = lazy_exports(__name__, _SOURCES, __all__)

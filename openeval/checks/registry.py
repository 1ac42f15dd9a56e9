"""The check registry: every check a test case's ``checks`` entry can name.

Built-ins are the checks of :data:`AREAS`, in the check library's reference order, each
imported on first use; :func:`register` adds one at run time (a decorator too), and
third-party checks register in the ``openeval.checks`` entry-point group. The helpers of
:data:`HELPERS` (``detect_language``, ``tools_used``) return no scores, so they are not
entries: they stay importable from :mod:`openeval.checks` for your own checks.

:func:`compile_settings` turns an entry's settings into the keyword arguments of the check,
once, when the plan is compiled: an unknown setting, a value of the wrong type and a value
outside a closed choice (a setting typed ``Literal[...]``) are a test case error naming the
setting and what is valid, never a crash on every trace (proposals/0100-check-settings.md).
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable, Mapping
from typing import Any

from openeval.errors import OpenEvalError, TestCaseError
from openeval.registry import Registry, check_settings

CheckFunction = Callable[..., Any]

AREAS: dict[str, tuple[str, ...]] = {
    "format": ("json_validity", "regex_match", "keyword_check", "contains", "length_budget",
               "markdown_structure", "html_validity", "csv_validity", "toml_validity",
               "sql_shape"),
    "quality": ("readability", "language_adherence", "tone", "sentiment"),
    "similarity": ("exact_match", "levenshtein_ratio", "jaccard_similarity", "rouge", "bleu",
                   "numeric_diff", "json_diff", "bm25_relevance", "tfidf_similarity"),
    "safety": ("pii_leak", "refusal", "url_check", "prompt_injection"),
    "conversation": ("conversation_degeneration", "knowledge_retention"),
    "context": ("grounding", "unsupported_numbers", "citation_check"),
    "agent": ("tool_call_validity", "tool_trajectory", "token_latency_budget"),
    "trace": ("span_count", "error_spans", "repeated_tool_calls", "total_duration"),
    "tool_schema": ("tool_schema_conformance",),
}
"""Each area's checks, in the order of the check library's reference."""

HELPERS: dict[str, tuple[str, ...]] = {
    "quality": ("detect_language",),
    "agent": ("tools_used",),
}
"""Functions of the library that return no scores: helpers for your own checks, not entries."""

CHECK_NAMES: tuple[str, ...] = tuple(name for names in AREAS.values() for name in names)
"""Every built-in check's name, in the reference's order."""

HELPER_NAMES: tuple[str, ...] = tuple(name for names in HELPERS.values() for name in names)
"""Every helper's name."""

CHECKS: Registry[CheckFunction] = Registry(
    "check", "openeval.checks",
    {name: f"openeval.checks.{area}:{name}" for area, names in AREAS.items() for name in names},
)
"""The registry itself (the shared :class:`openeval.registry.Registry`)."""


def register(name: str, function: CheckFunction | None = None, *, replace: bool = False) -> Any:
    """Register ``function`` as the check ``name`` (or, without ``function``, return a
    decorator). Raises ValueError when another function holds the name, unless ``replace``."""
    return CHECKS.register(name, function, replace=replace)


def get(name: str) -> CheckFunction:
    """Return the check called ``name``; raise OpenEvalError listing the valid names."""
    return CHECKS.get(name)


def names() -> list[str]:
    """Return every check's name: built-ins in reference order, then registered ones."""
    return CHECKS.names()


def compile_settings(
    name: str, settings: Mapping[str, Any], *, source: Any = None, location: str | None = None
) -> dict[str, Any]:
    """Return ``settings`` as the keyword arguments of check ``name``, checked once.

    Raises TestCaseError naming ``source`` and ``location`` (the check entry; the setting is
    appended when one is at fault) for an unknown check or setting, a value of the wrong type,
    or a value that is not one of a closed choice's values (also inside a list setting).
    """
    try:
        function = get(name)
    except OpenEvalError as exc:
        where = f"{location}.check" if location else None
        raise TestCaseError(exc.message, source=source, location=where) from None
    ready: dict[str, Any] = {}
    hints = _hints(function)
    for key, value in settings.items():
        where = f"{location}.{key}" if location else key
        try:
            ready.update(check_settings(function, {key: value}, what=f"check {name!r}"))
        except OpenEvalError as exc:
            raise TestCaseError(exc.message, source=source, location=where) from None
        _check_items(name, key, ready[key], hints.get(key), source=source, where=where)
    return ready


@functools.lru_cache(maxsize=512)
def _hints(function: CheckFunction) -> dict[str, Any]:
    # Cached (callers only read it): a configuration naming a check thousands of times would
    # otherwise evaluate its annotations thousands of times (issue 24, finding 8).
    try:
        return typing.get_type_hints(function)
    except Exception:  # an annotation that cannot be resolved is simply not checked here
        return {}


def probe_settings(
    name: str, arguments: Mapping[str, Any], test_case: Any, *, source: Any = None,
    location: str | None = None,
) -> None:
    """Call built-in check ``name`` once on an empty trace, to find a setting error that no
    type can state (a minimum above its maximum, no reference and no ``expected_output``).

    The library's checks raise :class:`~openeval.checks._settings.SettingError` only for
    their settings and the test case, never for what a trace holds, so what this finds holds
    for every trace; it is raised as a TestCaseError at ``location``. Anything else the empty
    trace provokes is left for the real traces to show; a check that is not built in is not
    called (its cost and behaviour are its author's).
    """
    if name not in CHECK_NAMES or CHECKS.get(name) is not _builtin(name):
        return
    from openeval.checks._context import CheckContext
    from openeval.checks._settings import SettingError
    from openeval.models import AgentTrace

    context = CheckContext(trace=AgentTrace(task_id=""), test_case=test_case)
    try:
        get(name)(context, **arguments)
    except SettingError as exc:
        raise TestCaseError(exc.message, source=source, location=location) from None
    except Exception:  # an empty trace may trip a check; the real traces will tell
        pass


def _builtin(name: str) -> CheckFunction:
    from importlib import import_module

    area = next(a for a, listed in AREAS.items() if name in listed)
    found: CheckFunction = getattr(import_module(f"openeval.checks.{area}"), name)
    return found


def _check_items(
    name: str, key: str, value: Any, annotation: Any, *, source: Any, where: str
) -> None:
    """Refuse an item of a list (or a value of an object) outside its closed choice."""
    items: list[tuple[str, Any]] = []
    if isinstance(value, (list, tuple)):
        allowed = _inner_choices(annotation, mapping=False)
        items = [(f"[{i}]", item) for i, item in enumerate(value)]
    elif isinstance(value, Mapping):
        allowed = _inner_choices(annotation, mapping=True)
        items = [(f".{k}", item) for k, item in value.items()]
    else:
        return
    for place, item in items:
        if allowed and item not in allowed:
            listed = ", ".join(repr(v) for v in allowed)
            raise TestCaseError(
                f"setting {key!r} of check {name!r}: expected one of {listed}, got {item!r}",
                source=source, location=f"{where}{place}",
            )


def _inner_choices(annotation: Any, *, mapping: bool) -> tuple[Any, ...]:
    """Return the closed choices of a list's items (``Sequence[Literal[...]]``) or of an
    object's values (``Mapping[str, Literal[...]]``); () when they are open."""
    if annotation is None:
        return ()
    options = typing.get_args(annotation) if _is_union(annotation) else (annotation,)
    for option in options:
        args = typing.get_args(option)
        is_mapping = typing.get_origin(option) in (Mapping, dict, typing.Mapping)
        if not args or is_mapping is not mapping:
            continue
        inner = args[-1] if mapping else args[0]
        if typing.get_origin(inner) is typing.Literal:
            return typing.get_args(inner)
    return ()


def _is_union(annotation: Any) -> bool:
    import types

    origin = typing.get_origin(annotation)
    return origin is typing.Union or origin is types.UnionType

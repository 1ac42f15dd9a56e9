"""One registry of named factories, for metrics, checks, trace formats and report formats.

A :class:`Registry` knows three kinds of entry, listed in this order:

1. built-ins, named in an explicit ``{name: "module:attr"}`` table and imported on first use
   (so ``openeval --help`` imports none of them);
2. entries registered at run time with :meth:`Registry.register` (a decorator too);
3. third-party entries from an entry-point group, loaded with ``ep.load()``.

:meth:`Registry.create` builds an entry by name with keyword-only settings, checked against the
factory's signature first, so a typo in a setting is an error that lists the valid ones instead
of a knob that silently does nothing. The "unknown X; expected one of" message is written here
once (:func:`unknown_name`). Design: proposals/0002-scoring-core.md.
"""

from __future__ import annotations

import inspect
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from importlib import import_module
from typing import Any, Generic, TypeVar

from openeval.errors import OpenEvalError

F = TypeVar("F", bound=Callable[..., Any])


def unknown_name(kind: str, name: str, valid: Iterable[str]) -> str:
    """Return the message for a name no registry entry has, listing the valid names."""
    listed = ", ".join(valid) or "(none is registered)"
    return f"unknown {kind} {name!r}; expected one of: {listed}"


class Registry(Generic[F]):
    """Factories of one kind by name; see the module docstring for the order of entries."""

    def __init__(
        self,
        kind: str,
        group: str,
        builtins: Mapping[str, str] | None = None,
        *,
        added_first: bool = False,
        module_attr: str | None = None,
        error: type[OpenEvalError] = OpenEvalError,
    ) -> None:
        self.kind = kind
        """What an entry is, in messages: ``metric``, ``check``, ``trace format`` ..."""
        self.group = group
        """The entry-point group third-party packages register in."""
        self._builtins = dict(builtins or {})
        self._loaded: dict[str, F] = {}
        self._registered: dict[str, F] = {}
        self._entry_points: dict[str, Any] | None = None
        self.module_attr = module_attr
        """The attribute to take when a third-party entry point names a whole module
        (``REPORTER``, ``ADAPTER``); None: the module is not an entry."""
        self.added_first = added_first
        """List (and so try) run-time and third-party entries before the built-ins: trace
        formats are detected in list order, and a plugin's format must get the first look."""
        self.error = error
        """What :meth:`get` raises for an unknown name: the error of the kind's layer (a
        TraceFormatError for a trace format), so callers need not translate it."""
        self.version = 0
        """Counts the changes made with :meth:`register` and :meth:`unregister`: while it
        stays the same, :meth:`get` and :meth:`names` give the same answers, so a caller
        may keep what it derived from them (the scorer's metric instances, a plan's specs)."""
        self._names: tuple[int, tuple[str, ...]] | None = None

    def register(self, name: str, factory: F | None = None, *, replace: bool = False) -> Any:
        """Register ``factory`` under ``name`` (or, without ``factory``, return a decorator).

        Raises ValueError when another factory already holds the name, unless ``replace``.
        """

        def add(found: F) -> F:
            existing = self._registered.get(name) or self._loaded.get(name)
            if replace and existing is not None and existing is not found:
                self.unregister(name)
                self._loaded.pop(name, None)
                existing = None
            if existing is not None and existing is not found:
                raise ValueError(f"{self.kind} name {name!r} is already taken by {existing!r}")
            if name in self._builtins and name not in self._loaded:
                # A built-in module registering itself while it is being imported.
                self._loaded[name] = found
            else:
                self._registered[name] = found
            self.version += 1
            return found

        return add if factory is None else add(factory)

    def unregister(self, name: str) -> None:
        """Forget an entry registered at run time (for tests and interactive sessions)."""
        self._registered.pop(name, None)
        if name not in self._builtins:
            self._loaded.pop(name, None)
        self.version += 1

    def _third_party(self) -> dict[str, Any]:
        if self._entry_points is None:
            from importlib.metadata import entry_points

            self._entry_points = {ep.name: ep for ep in entry_points(group=self.group)}
        return self._entry_points

    def names(self) -> list[str]:
        """Return every name: built-ins in table order, then registered, then third-party
        (registered, then third-party, then built-ins when ``added_first``)."""
        cached = self._names
        if cached is not None and cached[0] == self.version:
            return list(cached[1])
        found = self._listed()
        self._names = (self.version, tuple(found))
        return found

    def _listed(self) -> list[str]:
        added = [n for n in self._registered if n not in self._builtins]
        added += [n for n in self._third_party() if n not in added and n not in self._builtins]
        builtins = list(self._builtins)
        return added + builtins if self.added_first else builtins + added

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self.names()

    def get(self, name: str) -> F:
        """Return the factory called ``name``; raise :attr:`error` listing the valid names."""
        found = self._registered.get(name) or self._loaded.get(name)
        if found is not None:
            return found
        if name in self._builtins:
            module_name, _, attr = self._builtins[name].partition(":")
            loaded: F = getattr(import_module(module_name), attr)
            self._loaded[name] = loaded
            return loaded
        ep = self._third_party().get(name)
        if ep is None:
            raise self.error(unknown_name(self.kind, name, self.names()))
        third: F = ep.load()
        if self.module_attr is not None and isinstance(third, types.ModuleType):
            third = getattr(third, self.module_attr)
        self._loaded[name] = third
        return third

    def create(self, name: str, /, **settings: Any) -> Any:
        """Return ``factory(**settings)`` for the entry ``name``, settings checked first.

        Raises OpenEvalError naming an unknown entry, an unknown setting, or a setting of the
        wrong type, and listing what is valid.
        """
        factory = self.get(name)
        return factory(**check_settings(factory, settings, what=f"{self.kind} {name!r}"))


@cache
def _parameters(factory: Callable[..., Any]) -> dict[str, inspect.Parameter]:
    target = factory.__init__ if inspect.isclass(factory) else factory
    return {
        p.name: p
        for p in inspect.signature(target).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    }


@cache
def _hints(factory: Callable[..., Any]) -> dict[str, Any]:
    target = factory.__init__ if inspect.isclass(factory) else factory
    try:
        return typing.get_type_hints(target)
    except Exception:  # an annotation that cannot be resolved is simply not type-checked
        return {}


def setting_names(factory: Callable[..., Any]) -> list[str]:
    """Return the keyword-only settings ``factory`` accepts, in signature order."""
    return list(_parameters(factory))


def check_settings(
    factory: Callable[..., Any], settings: Mapping[str, Any], *, what: str
) -> dict[str, Any]:
    """Return ``settings`` ready to pass to ``factory``: names checked, JSON lists as tuples.

    Raises OpenEvalError for a name that is not a keyword-only parameter of ``factory``, or a
    value that does not fit its annotation (str, int, float, bool, None, tuple, list, dict,
    Literal and unions of these are checked; other annotations accept anything).
    """
    params = _parameters(factory)
    hints = _hints(factory)
    ready: dict[str, Any] = {}
    for key, value in settings.items():
        if key not in params:
            valid = ", ".join(params) or "(it takes none)"
            raise OpenEvalError(f"unknown setting {key!r} for {what}; expected one of: {valid}")
        annotation = hints.get(key, Any)
        if value is not None and not _fits(value, annotation):
            raise OpenEvalError(
                f"setting {key!r} of {what}: expected {_describe(annotation)}, got "
                f"{_json_kind(value)}"
            )
        ready[key] = tuple(value) if isinstance(value, list) and _wants_tuple(annotation) else value
    return ready


def _options(annotation: Any) -> tuple[Any, ...]:
    origin = typing.get_origin(annotation)
    if origin is typing.Union or origin is types.UnionType:
        return typing.get_args(annotation)
    return (annotation,)


def _wants_tuple(annotation: Any) -> bool:
    return any(typing.get_origin(a) is tuple or a is tuple for a in _options(annotation))


def _fits(value: Any, annotation: Any) -> bool:
    return any(_fits_one(value, option) for option in _options(annotation))


def _fits_one(value: Any, option: Any) -> bool:
    if option is Any or option is object:
        return True
    if option is type(None):
        return value is None
    origin = typing.get_origin(option) or option
    if origin is typing.Literal:
        return any(value == v and type(value) is type(v) for v in typing.get_args(option))
    if origin is bool:
        return isinstance(value, bool)
    if origin is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if origin is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if origin is str:
        return isinstance(value, str)
    if origin in (tuple, list, typing.Sequence, Iterable, typing.Collection):
        return isinstance(value, (list, tuple))
    if origin in (dict, Mapping, typing.Mapping):
        return isinstance(value, dict)
    if isinstance(origin, type) and origin.__module__ in ("collections.abc", "typing"):
        return True  # an abstract annotation we do not model: accept rather than guess
    return isinstance(origin, type) and isinstance(value, origin)


def _describe(annotation: Any) -> str:
    words = []
    for option in _options(annotation):
        origin = typing.get_origin(option) or option
        if origin is typing.Literal:
            words.append("one of " + ", ".join(repr(v) for v in typing.get_args(option)))
        elif option is type(None):
            words.append("null")
        else:
            words.append(_TYPE_WORDS.get(origin, getattr(origin, "__name__", str(origin))))
    return " or ".join(words)


_TYPE_WORDS: dict[Any, str] = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    str: "a string",
    tuple: "a list",
    list: "a list",
    dict: "a JSON object",
}


def _json_kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"the number {value!r}"
    if isinstance(value, str):
        return f"the string {value!r}"[:80]
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a JSON object"
    return type(value).__name__

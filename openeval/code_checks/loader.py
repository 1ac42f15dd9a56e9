"""Finding and loading the user's check: a reference resolved once, a file imported once.

A check entry's ``code`` is one of:

- ``checks/polite.py``: a file, relative to the test case file (or, when not found there, to
  the suite's checks folder); it holds a class ``Check`` or a function ``evaluate``;
- ``checks/rules.py:refund_limit``: the function (or class) of that name in the file;
- ``mypkg.checks:refund_rule`` or ``mypkg.checks``: an importable module, through the normal
  ``sys.path``.

:func:`resolve_reference` turns the text into a :class:`CodeCheckRef` when the plan is
compiled: a small picklable value, so a plan holds references, never functions, and any
process can load them. :func:`load_check` loads one in the process that scores: a file is
compiled and run once per process, cached by its resolved path, modification time and size
(an edited file is loaded again; a file that failed keeps failing without being read again).
A file is run as a module of its own name, outside ``sys.path``: a module called
``checks`` or ``json`` elsewhere never shadows it, and it shadows nothing. Nothing is written
beside it (no ``__pycache__``).

Loading checks what the function asks for: a parameter that is not one of
:data:`~openeval.code_checks.types.INPUTS` is an error naming it and the valid ones.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import re
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from openeval.code_checks._guard import guarded, shown
from openeval.code_checks.types import INPUTS, CodeCheckError, code_error
from openeval.errors import OpenEvalError

DEFAULT_TIME_LIMIT = 5.0
"""Seconds a code check may run (its file's first import too) unless its entry or the run
says otherwise."""

TIME_LIMIT_KEY = "time_limit"
"""The check entry key that sets one check's limit (``timeout_seconds`` is a test case key)."""

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class CodeCheckRef:
    """Where a check entry's code lives, resolved; picklable, holds no live object."""

    reference: str
    """The entry's ``code`` as written (what results show as the check's ``kind``)."""
    file: str | None
    """The check file, absolute; None for a module reference."""
    module: str | None
    """The importable module; None for a file reference."""
    attr: str | None
    """The function or class named after ``:``; None: the file's ``Check`` or ``evaluate``."""
    time_limit: float = DEFAULT_TIME_LIMIT
    """Seconds the check may run."""

    @property
    def default_name(self) -> str:
        """The name the check shows under when its entry gives none: the function or class
        name, else the file's stem, else the module's last part."""
        if self.attr is not None:
            return self.attr
        if self.file is not None:
            return Path(self.file).stem
        return (self.module or self.reference).rpartition(".")[2]


def split_reference(text: str) -> tuple[str, str | None, bool]:
    """Return ``(target, attr, is_file)`` for a ``code`` value; raise OpenEvalError when it
    is neither a file path nor a module path."""
    target, colon, attr = text.rpartition(":")
    if not colon or not _IDENTIFIER.match(attr):
        target, attr = text, ""  # no ":name" (a Windows drive letter is not one)
    is_file = target.endswith(".py") or "/" in target or os.sep in target
    if not is_file and not all(_IDENTIFIER.match(part) for part in target.split(".")):
        raise OpenEvalError(
            f"{text!r} is neither a Python file (path ending in .py) nor a module path "
            "(pkg.module), optionally followed by :name"
        )
    return target, attr or None, is_file


def resolve_reference(
    text: str,
    *,
    base_dir: str | Path,
    checks_dir: str | Path | None = None,
    time_limit: float = DEFAULT_TIME_LIMIT,
) -> CodeCheckRef:
    """Return the reference ``text`` names; a file is looked for in ``base_dir`` (the test
    case's folder), then in ``checks_dir`` (the suite's checks folder, when configured).

    Raises OpenEvalError when the text is malformed or the file is in neither folder. A module
    reference is not imported here: that happens in the process that scores.
    """
    target, attr, is_file = split_reference(text)
    if not is_file:
        return CodeCheckRef(text, None, target, attr, time_limit)
    folders = [Path(base_dir)] + ([Path(checks_dir)] if checks_dir is not None else [])
    candidates = [folder / target for folder in folders]
    for candidate in candidates:
        if candidate.is_file():
            return CodeCheckRef(text, str(candidate.resolve()), None, attr, time_limit)
    looked = " or ".join(shown(os.path.abspath(c)) for c in candidates)
    raise OpenEvalError(f"no check file {target!r}: looked for {looked}")


@dataclass(frozen=True)
class LoadedCheck:
    """A user's check, loaded and checked, ready to call with its inputs by name."""

    function: Callable[..., Any]
    label: str
    """How messages name it: ``refund_limit``, ``Check.evaluate``."""
    inputs: tuple[str, ...]
    """The inputs it declares, in signature order (every input for ``**kwargs``)."""
    file: str | None
    """The file defining it, absolute; None when unknown."""
    line: int | None
    """The line its definition starts on (its first decorator); None when unknown."""
    score_names: tuple[str, ...] = ()
    """The score names it declared with ``openeval.checks.util.declares``, primary first."""


_lock = threading.RLock()
_modules: dict[str, tuple[tuple[int, int], ModuleType | CodeCheckError]] = {}
_checks: dict[CodeCheckRef, tuple[tuple[int, int] | None, LoadedCheck | CodeCheckError]] = {}


def load_check(ref: CodeCheckRef) -> LoadedCheck:
    """Return the check ``ref`` names, loaded once per process (see the module docstring).

    Raises CodeCheckError, printed as ``file:line: message``, when the file cannot be read or
    compiled, its import raises or runs past the time limit, the function is missing, is not
    a function or a class with a static ``evaluate``, or asks for an input that does not exist.
    """
    with _lock:
        stamp = _stamp(ref.file) if ref.file is not None else None
        cached = _checks.get(ref)
        if cached is None or cached[0] != stamp:
            try:
                found: LoadedCheck | CodeCheckError = _load(ref)
            except CodeCheckError as exc:
                found = exc
            _checks[ref] = (stamp, found)
            cached = _checks[ref]
        found = cached[1]
    if isinstance(found, CodeCheckError):
        raise _fresh(found)
    return found


def _fresh(error: CodeCheckError) -> CodeCheckError:
    # A cached failure is raised as a copy: raising one instance again and again would grow
    # its traceback with every case.
    return CodeCheckError(error.message, source=error.source)


def _stamp(file: str) -> tuple[int, int]:
    try:
        status = os.stat(file)
    except OSError:
        return (-1, -1)  # gone since the plan was compiled: loading says so
    return (status.st_mtime_ns, status.st_size)


def _load(ref: CodeCheckRef) -> LoadedCheck:
    if ref.file is not None:
        module = _file_module(ref.file, ref.time_limit)
        where = shown(ref.file)
    else:
        module = _import_module(ref)
        where = ref.module or ref.reference
    written = split_reference(ref.reference)[0]
    chosen, name = _choose(module, ref.attr, where, written)
    return _inspect(chosen, name, where)


def _file_module(file: str, time_limit: float) -> ModuleType:
    stamp = _stamp(file)
    cached = _modules.get(file)
    if cached is None or cached[0] != stamp:
        try:
            found: ModuleType | CodeCheckError = _run_file(file, time_limit)
        except CodeCheckError as exc:
            found = exc
        _modules[file] = (stamp, found)
        cached = _modules[file]
    if isinstance(cached[1], CodeCheckError):
        raise _fresh(cached[1])
    return cached[1]


def _module_name(file: str) -> str:
    stem = re.sub(r"\W", "_", Path(file).stem)
    digest = hashlib.sha256(file.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"_openeval_code_check_{stem}_{digest}"


def _run_file(file: str, time_limit: float) -> ModuleType:
    where = shown(file)
    try:
        source = Path(file).read_bytes()
    except OSError as exc:
        raise code_error(f"cannot read the check file: {exc.strerror or exc}", where,
                         None) from None
    try:
        code = compile(source, file, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise code_error(f"syntax error: {exc.msg}", where, exc.lineno) from None
    except ValueError as exc:  # null bytes in the source (3.11; a SyntaxError from 3.12)
        raise code_error(f"cannot compile: {exc}", where, None) from None
    name = _module_name(file)
    module = ModuleType(name)
    module.__file__ = file
    # Registered before it runs, as an import would be: dataclasses, typing.get_type_hints and
    # pickle look a class's module up in sys.modules by name.
    sys.modules[name] = module
    try:
        guarded(lambda: exec(code, module.__dict__), limit=time_limit,
                what="importing the check file", file=file)
    except CodeCheckError:
        sys.modules.pop(name, None)
        raise
    return module


def _import_module(ref: CodeCheckRef) -> ModuleType:
    name = ref.module or ref.reference
    return guarded(lambda: importlib.import_module(name), limit=ref.time_limit,
                   what=f"importing module {name!r}", file=None, where=name)


def _choose(module: ModuleType, attr: str | None, where: str, written: str) -> tuple[Any, str]:
    """Return the object to run and its name; ``written`` is the reference's file or module
    as the entry spells it, for the fix a message suggests."""
    namespace = vars(module)
    if attr is not None:
        if attr not in namespace:
            raise code_error(
                f"no function or class {attr!r} in it; it defines: {_defined(module)}",
                where, None,
            )
        return namespace[attr], attr
    has_class, has_function = "Check" in namespace, "evaluate" in namespace
    if has_class and has_function:
        raise code_error(
            f"it defines both a class Check (line {_line(namespace['Check'])}) and a function "
            f"evaluate (line {_line(namespace['evaluate'])}); name the one to run: "
            f"'{written}:Check'", where, None,
        )
    if not has_class and not has_function:
        raise code_error(
            "it defines neither a class Check nor a function evaluate; name the function to "
            f"run after a colon ('{written}:my_check'); it defines: {_defined(module)}",
            where, None,
        )
    return (namespace["Check"], "Check") if has_class else (namespace["evaluate"], "evaluate")


def _defined(module: ModuleType) -> str:
    own = [
        f"{name} (line {_line(value)})"
        for name, value in vars(module).items()
        if not name.startswith("_") and callable(value)
        and getattr(value, "__module__", None) == module.__name__
    ]
    return ", ".join(own) or "no function or class"


def _line(value: Any) -> int | None:
    code = getattr(value, "__code__", None)
    if code is not None:
        first: int = code.co_firstlineno
        return first
    try:
        return inspect.getsourcelines(value)[1]
    except (OSError, TypeError):
        return None


def _inspect(chosen: Any, name: str, where: str) -> LoadedCheck:
    holders: list[Any] = [chosen]
    if inspect.isclass(chosen):
        static = inspect.getattr_static(chosen, "evaluate", None)
        if static is None:
            raise code_error(f"class {name} has no evaluate method", where, _line(chosen))
        if not isinstance(static, staticmethod):
            raise code_error(
                f"{name}.evaluate must be a @staticmethod (it takes the inputs it names, "
                "never self or cls)", where, _line(getattr(static, "__func__", static)),
            )
        function: Callable[..., Any] = static.__func__
        if getattr(function, "__isabstractmethod__", False):
            raise code_error(f"class {name} does not define evaluate", where, _line(chosen))
        holders = [function, static, chosen]
        label = f"{name}.evaluate"
    elif callable(chosen):
        function, label = chosen, name
        holders = [chosen]
    else:
        raise code_error(
            f"{name} is of type {type(chosen).__name__}, expected a function or a class with "
            "a static evaluate method", where, None,
        )
    file = inspect.getsourcefile(function) if hasattr(function, "__code__") else None
    line = _line(function)
    inputs = _inputs(function, label, shown(file) if file else where, line)
    return LoadedCheck(function, label, inputs, file, line, _declared(holders))


def _inputs(function: Callable[..., Any], label: str, where: str, line: int | None
            ) -> tuple[str, ...]:
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError) as exc:
        raise code_error(f"cannot read the parameters of {label}: {exc}", where, line) from None
    names: list[str] = []
    unknown: list[str] = []
    for parameter in parameters:
        if parameter.kind is parameter.VAR_KEYWORD:
            return INPUTS  # **kwargs: it receives every input
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.POSITIONAL_ONLY):
            raise code_error(
                f"{label}() takes {parameter} by position; inputs are passed by name, so "
                f"declare the ones it needs by name from: {', '.join(INPUTS)}", where, line,
            )
        (names if parameter.name in INPUTS else unknown).append(parameter.name)
    if unknown:
        listed = ", ".join(repr(n) for n in unknown)
        plural = "inputs" if len(unknown) > 1 else "input"
        raise code_error(
            f"{label}() asks for unknown {plural} {listed}; the inputs are: {', '.join(INPUTS)}",
            where, line,
        )
    return tuple(names)


def _declared(holders: Sequence[Any]) -> tuple[str, ...]:
    """Return the names ``openeval.checks.util.declares`` recorded (``__scores__``) on the
    function, its staticmethod wrapper or its class, whichever carries them first."""
    for holder in holders:
        names = getattr(holder, "__scores__", None)
        if isinstance(names, (list, tuple)) and names and all(isinstance(n, str) for n in names):
            return tuple(names)
    return ()

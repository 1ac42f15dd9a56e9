"""Suite configuration: settings shared by the cases of a folder, in ``openeval.toml`` files.

A suite folder and any folder below it may hold ``openeval.toml``; the suite root may instead
hold ``[tool.openeval]`` in its ``pyproject.toml`` (not both). A file holds defaults for the
cases below it and, at the suite root only, the settings of the run:

- case defaults (:data:`CASE_KEYS`): ``metrics``, ``thresholds``, ``trajectory``, ``checks``,
  ``max_steps``, ``timeout_seconds``, ``optimal_steps``, ``denied_when``, ``agent_spec`` (the
  agent Fixtura traces are drift-checked against), ``[trials] rule`` and ``[trials]
  flaky_between`` (where a case's trials count as flaky, proposals/0190);
- run settings (:data:`RUN_KEYS`): ``fail_under``, ``fail_under_cases`` and ``[gates]``
  (metric or check name = lowest pass rate). A nested file may hold them too, so a suite can
  be run alone or inside a bigger tree, but they apply only from the file at the root of the
  suite being run; ``openeval config`` lists them as ignored elsewhere.

A suite inside a git repository also takes the ``openeval.toml`` files of the folders above
it, up to the repository's root folder (the one holding ``.git``) or up to a file that says
``root = true`` (proposals/0173-config-scope.md): ``openeval run --suite evals/billing`` then
runs the checks and gates ``evals/openeval.toml`` gives, as ``--suite evals`` would. Their
run settings fill in what the suite root's own file leaves unset.

Merging, nearest last (proposals/0060): the files above the suite (farthest first), then the
files from the suite root down to the case's folder, then the test case itself. A later value
replaces an earlier one, except that the tables ``thresholds`` and ``trajectory`` merge key by
key and ``checks`` lists concatenate
(configuration first, then the case's own entries). A configured threshold for a metric the
case does not run is dropped for that case; a ``code`` path in a check entry is read relative
to the file that names it.

The merged document goes through the same test case schema and plan checks as a test case
file; an error in a part that came from a configuration file names that file, the line and
the key (:meth:`MergedCase.relocate`). A file that cannot be read, does not parse or holds an
unknown key or a value of the wrong type is reported the same way, and every case below it
becomes an errored case: the suite goes on and nothing is dropped.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from openeval.errors import OpenEvalError, TestCaseError
from openeval.results.trials import FlakyBand, TrialsRule
from openeval.schemas import validate
from openeval.suite.toml_lines import key_lines, line_of

if TYPE_CHECKING:
    from openeval.suite.discover import SuiteTree

CONFIG_NAME = "openeval.toml"
PYPROJECT_NAME = "pyproject.toml"
PYPROJECT_TABLE = "tool.openeval"
MAX_CONFIG_BYTES = 1_000_000
"""Largest configuration file read; a bigger one is refused, not parsed."""
MAX_CONFIG_DEPTH = 64
"""Deepest nesting of tables and arrays in a configuration file. A dotted key nests one table
per dot (``a.a.a...``), and the checks that walk a document recurse once per level; real files
nest a handful of levels (a JSON schema in a check's settings a few more)."""

CASE_KEYS = (
    "metrics", "thresholds", "trajectory", "checks", "max_steps", "timeout_seconds",
    "optimal_steps", "denied_when", "agent_spec",
)
"""Test case keys a configuration file may give defaults for, in display order."""
TABLE_KEYS = ("thresholds", "trajectory")
"""Case keys merged key by key rather than replaced whole."""
RUN_KEYS = ("fail_under", "fail_under_cases", "gates")
"""Settings of the run, read from the configuration at the suite root (and above it) only."""
SCOPE_KEY = "root"
"""``root = true``: this file is the top; no configuration above it applies."""
REPOSITORY_MARKER = ".git"
"""The folder (or file, in a worktree) that marks a repository's root folder."""

OriginKind = Literal["config", "case", "default", "option"]


@dataclass(frozen=True)
class Origin:
    """Where a setting came from: a configuration file (with line), the test case, a command
    line option or a default."""

    kind: OriginKind
    source: str
    """The file (as found), the option (``--trials-rule``) or what the default is."""
    path: str | None = None
    """The key path inside ``source``, JSON-path style (``checks[0]``, ``gates.x``)."""
    line: int | None = None

    def __str__(self) -> str:
        if self.kind == "config" and self.line is not None:
            return f"{self.source}:{self.line}"
        return self.source

    def to_dict(self) -> dict[str, Any]:
        """Return the origin as a JSON object."""
        return {"kind": self.kind, "source": self.source, "path": self.path, "line": self.line}


@dataclass(frozen=True)
class ConfigLayer:
    """One configuration file, read and checked."""

    source: str
    """The file's path, POSIX style, as found under the suite folder."""
    folder: str
    """The folder it configures, relative to the suite root (``""`` for the root itself)."""
    settings: Mapping[str, Any]
    """Its table (for a pyproject.toml, the ``[tool.openeval]`` table)."""
    lines: Mapping[str, int] = field(default_factory=dict)
    """Line of every key path in the file's own spelling (``tool.openeval.`` included)."""
    prefix: str = ""
    """``tool.openeval.`` for a pyproject.toml; the key paths of :attr:`settings` lack it."""

    def origin(self, path: str) -> Origin:
        """Return the origin of the setting at ``path`` of :attr:`settings`."""
        return Origin("config", self.source, self.prefix + path,
                      line_of(self.lines, self.prefix + path))

    def error(self, message: str, path: str) -> TestCaseError:
        """Return the error for a problem at ``path``, naming the file, line and key."""
        return _error_at(message, self.origin(path))


def _error_at(message: str, origin: Origin) -> TestCaseError:
    where = origin.path
    if origin.line is not None:
        where = f"line {origin.line}: {where}" if where else f"line {origin.line}"
    return TestCaseError(message, source=origin.source, location=where)


# ---- reading one file ----------------------------------------------------------------------


def _toml_module() -> Any:
    # tomllib is the standard library's from Python 3.11; tomli is the same parser for 3.10.
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    import tomli

    return tomli


_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")
_TOML_END = re.compile(r"\s*\(at end of document\)$")


def _parse_toml(text: str, source: str) -> dict[str, Any]:
    from openeval.io.limits import toml_shape_refusal

    refusal = toml_shape_refusal(text)
    if refusal is not None:
        raise TestCaseError(f"invalid TOML: {refusal}", source=source)
    toml = _toml_module()
    try:
        document: dict[str, Any] = toml.loads(text)
    except RecursionError:  # tomllib recurses once per nested array or inline table
        raise TestCaseError("invalid TOML: arrays or inline tables nested too deeply for the "
                            "parser", source=source) from None
    except toml.TOMLDecodeError as exc:
        message = str(exc)
        found = _TOML_POSITION.search(message)
        if found is not None:
            where = f"line {found.group(1)}, column {found.group(2)}"
            message = message[: found.start()]
        else:
            # tomllib says "at end of document"; name that place as a line and column too.
            message = _TOML_END.sub("", message)
            line = text.count("\n") + 1
            where = f"line {line}, column {len(text) - text.rfind(chr(10))} (end of file)"
        raise TestCaseError(f"invalid TOML: {message}", source=source, location=where) from None
    return document


def _read_text(path: Path) -> str:
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise TestCaseError(
                f"is {size} bytes; a configuration file may hold at most {MAX_CONFIG_BYTES}",
                source=path.as_posix(),
            )
        return path.read_bytes().decode("utf-8")
    except OSError as exc:
        raise TestCaseError(f"cannot read: {exc.strerror}", source=path.as_posix()) from None
    except UnicodeDecodeError as exc:
        raise TestCaseError(
            f"is not UTF-8 text (byte {exc.start}); TOML files are UTF-8", source=path.as_posix()
        ) from None


def _json_only(document: Any, layer: ConfigLayer) -> None:
    """Refuse TOML values JSON cannot hold (dates and times): settings end up in result files.
    Also refuse nesting deeper than MAX_CONFIG_DEPTH, before anything recurses into it."""
    todo: list[tuple[Any, str, int]] = [(document, "", 0)]
    while todo:
        value, path, depth = todo.pop()
        if isinstance(value, (dict, list)) and depth >= MAX_CONFIG_DEPTH:
            raise layer.error(
                f"nested more than {MAX_CONFIG_DEPTH} tables or arrays deep (a dotted key "
                "nests one table per dot); configurations nest a few levels", path,
            )
        if isinstance(value, dict):
            todo += [(item, f"{path}.{key}" if path else key, depth + 1)
                     for key, item in reversed(value.items())]
        elif isinstance(value, list):
            todo += [(item, f"{path}[{i}]", depth + 1)
                     for i, item in reversed(list(enumerate(value)))]
        elif not isinstance(value, (str, int, float, bool)):
            raise layer.error(
                f"a {type(value).__name__} value; settings must be strings, numbers, booleans, "
                "arrays or tables (write a date as a string)", path,
            )


def read_config_file(path: str | Path, *, folder: str = "") -> ConfigLayer | None:
    """Return the configuration in ``path`` (an openeval.toml, or a pyproject.toml's
    ``[tool.openeval]`` table; None when a pyproject.toml has none).

    Raises TestCaseError naming the file, and the line and key where it can: a file that cannot
    be read, invalid TOML (with line and column), an unknown key, a value of the wrong type or
    range, an unknown metric or trials rule, a threshold that configures nothing.
    """
    path = Path(path)
    source = path.as_posix()
    text = _read_text(path)
    document = _parse_toml(text, source)
    prefix = ""
    if path.name == PYPROJECT_NAME:
        tool = document.get("tool")
        table = tool.get("openeval") if isinstance(tool, dict) else None
        if table is None:
            return None
        prefix = PYPROJECT_TABLE + "."
        document = table
    layer = ConfigLayer(source, folder, document, key_lines(text), prefix)
    if not isinstance(document, dict):
        raise layer.error("expected a table", PYPROJECT_TABLE)
    _json_only(document, layer)
    try:
        validate(document, "config", source=source, error=TestCaseError)
    except TestCaseError as exc:
        raise layer.error(exc.message, exc.location or "") from None
    _check_names(layer)
    return layer


def _check_names(layer: ConfigLayer) -> None:
    from openeval.scoring.validate import check_metric_names

    settings = layer.settings
    check_metric_names(settings.get("metrics"), settings.get("thresholds", {}),
                       error=layer.error)
    rule = settings.get("trials", {}).get("rule")
    if rule is not None:
        try:
            TrialsRule.parse(rule)
        except ValueError as exc:
            raise layer.error(str(exc), "trials.rule") from None
    band = settings.get("trials", {}).get("flaky_between")
    if band is not None:
        try:
            FlakyBand.parse(band)
        except ValueError as exc:
            raise layer.error(str(exc), "trials.flaky_between") from None


# ---- the configuration of a suite ----------------------------------------------------------


@dataclass(frozen=True)
class RunSettings:
    """The run settings of a suite's root configuration, each with its origin."""

    fail_under: tuple[float, Origin] | None = None
    fail_under_cases: tuple[float, Origin] | None = None
    gates: tuple[tuple[str, float, Origin], ...] = ()


@dataclass(frozen=True)
class SuiteConfig:
    """Every configuration file of a suite, read once, and the ones that could not be read.

    Picklable: an engine carries it to its workers inside the run plan.
    """

    root: str
    """The suite folder, as given."""
    layers: tuple[ConfigLayer, ...] = ()
    """The readable files, in sorted folder order (the root first)."""
    problems: Mapping[str, OpenEvalError] = field(default_factory=dict)
    """Folder (relative to the root) -> why its configuration cannot be used."""
    parents: tuple[ConfigLayer, ...] = ()
    """The files above the suite folder that apply to all of it, farthest first."""
    parent_problem: OpenEvalError | None = None
    """Why a file above the suite folder cannot be used (every case then carries it)."""

    @property
    def files(self) -> list[str]:
        """The paths of every configuration file found, readable or not: the ones above the
        suite first (farthest first), then in folder order."""
        found = [(layer.folder, layer.source) for layer in self.layers]
        found += [(folder, error.source or folder) for folder, error in self.problems.items()]
        above = [layer.source for layer in self.parents]
        if self.parent_problem is not None:
            above.append(str(self.parent_problem.source))
        return above + [source for _, source in sorted(found)]

    def chain(self, testcase_path: str | Path) -> list[str]:
        """Return the folders from the root down to the test case's, relative to the root;
        empty when the test case is not under the root."""
        parts = _folders_below(self.root, testcase_path)
        if parts is None:
            return []
        return [""] + ["/".join(parts[: i + 1]) for i in range(len(parts))]

    def applying(self, testcase_path: str | Path) -> tuple[ConfigLayer, ...]:
        """Return the layers that apply to a test case, farthest first.

        Raises the error of the first configuration on the way that cannot be used.
        """
        if not (self.layers or self.problems or self.parents) and self.parent_problem is None:
            return ()  # a suite without configuration files: nothing on any chain
        chain = self.chain(testcase_path)
        if chain and self.parent_problem is not None:
            raise self.parent_problem
        for folder in chain:
            problem = self.problems.get(folder)
            if problem is not None:
                raise problem
        by_folder = {layer.folder: layer for layer in self.layers}
        own = tuple(by_folder[f] for f in chain if f in by_folder)
        return (*self.parents, *own) if chain else own

    @property
    def root_layer(self) -> ConfigLayer | None:
        """The configuration at the suite root; None when there is none or it is broken."""
        return next((layer for layer in self.layers if layer.folder == ""), None)

    def run_settings(self) -> RunSettings:
        """Return ``fail_under``, ``fail_under_cases`` and the gates of the root configuration.

        The files above the suite fill in what the root's own file leaves unset (the nearest
        file wins, key by key and gate by gate). Empty when none has any, or when the root's
        cannot be read (every case then carries the error).
        """
        root = self.root_layer
        if root is None and "" in self.problems:
            return RunSettings()
        floors: dict[str, tuple[float, Origin]] = {}
        gates: dict[str, tuple[str, float, Origin]] = {}
        for layer in (*self.parents, *([root] if root is not None else [])):
            s = layer.settings
            for key in ("fail_under", "fail_under_cases"):
                if key in s:
                    floors[key] = (float(s[key]), layer.origin(key))
            for name, line in s.get("gates", {}).items():
                gates.pop(name, None)
                gates[name] = (name, float(line), layer.origin(f"gates.{name}"))
        return RunSettings(floors.get("fail_under"), floors.get("fail_under_cases"),
                           tuple(gates.values()))

    def ignored(self) -> list[tuple[str, Any, Origin]]:
        """Return the run settings of nested configurations, which this run does not apply:
        ``(key path, value, origin)``, one per gate."""
        found: list[tuple[str, Any, Origin]] = []
        for layer in self.layers:
            if layer.folder == "":
                continue
            for key in RUN_KEYS:
                value = layer.settings.get(key)
                if isinstance(value, dict):
                    found += [(f"{key}.{k}", v, layer.origin(f"{key}.{k}"))
                              for k, v in value.items()]
                elif value is not None:
                    found.append((key, value, layer.origin(key)))
        return found


def _folders_below(root: str, path: str | Path) -> Sequence[str] | None:
    """Return the folder names from ``root`` down to the folder of ``path``
    (``Path(path).parent.relative_to(root).parts``), or None when ``path`` is not below
    ``root``. A path discovery made (the root, a slash, plain names) is split as text; any
    other goes through pathlib, which gives the same parts for the former."""
    text = str(path)
    prefix = root + "/"
    if text.startswith(prefix):
        names = text[len(prefix):].split("/")
        if "" not in names and "." not in names:
            return names[:-1]
    try:
        return Path(path).parent.relative_to(root).parts
    except ValueError:
        return None


def load_suite_config(root: str | Path, *, tree: SuiteTree | None = None) -> SuiteConfig:
    """Return every configuration file under the suite folder ``root``, each read and checked.

    The folders read are those discovery walks, but for hidden ones (links followed once
    each); ``tree`` is that walk when the caller already made it. Never raises for a broken
    file: its error is kept for the cases below it.
    """
    from openeval.suite.discover import SuiteTree

    root = Path(root)
    layers: list[ConfigLayer] = []
    problems: dict[str, OpenEvalError] = {}
    for walked in (tree or SuiteTree.walk(root)).folders:
        names = walked.filenames
        if not walked.config or (CONFIG_NAME not in names and PYPROJECT_NAME not in names):
            continue
        folder = Path(walked.path)
        relative = folder.relative_to(root).as_posix()
        relative = "" if relative == "." else relative
        candidates = [folder / CONFIG_NAME] if CONFIG_NAME in names else []
        if relative == "" and PYPROJECT_NAME in names:
            candidates.append(folder / PYPROJECT_NAME)
        found: list[ConfigLayer] = []
        for path in candidates:
            try:
                layer = read_config_file(path, folder=relative)
            except OpenEvalError as exc:
                problems[relative] = exc
                break
            if layer is not None:
                found.append(layer)
        if relative in problems:
            continue
        if len(found) > 1:
            problems[relative] = TestCaseError(
                f"the suite root holds both {CONFIG_NAME} and [{PYPROJECT_TABLE}] in "
                f"{PYPROJECT_NAME}; keep one", source=found[0].source,
            )
            continue
        layers += found
    layers.sort(key=lambda layer: layer.folder)
    top = next((layer for layer in layers if layer.folder == ""), None)
    parents: list[ConfigLayer] = []
    parent_problem: OpenEvalError | None = None
    if not (top is not None and top.settings.get(SCOPE_KEY) is True) and "" not in problems:
        try:
            parents = _parent_layers(root)
        except OpenEvalError as exc:
            parent_problem = exc
    return SuiteConfig(root.as_posix(), tuple(layers), problems, tuple(parents),
                       parent_problem)


def _parent_layers(root: Path) -> list[ConfigLayer]:
    """Return the openeval.toml files in the folders above ``root``, farthest first: up to the
    repository's root folder, or to a file saying ``root = true``. None outside a repository,
    so a suite in a scratch folder never picks up a stray file above it.

    Raises TestCaseError for a file that cannot be used (unreadable, invalid, or a link
    leading out of the repository).
    """
    here = Path(os.path.realpath(root))
    ancestors: list[Path] = []
    repository: Path | None = None
    for folder in here.parents:
        ancestors.append(folder)
        if (folder / REPOSITORY_MARKER).exists():
            repository = folder
            break
    if repository is None:
        return []
    found: list[ConfigLayer] = []
    for depth, folder in enumerate(ancestors, 1):
        path = folder / CONFIG_NAME
        if not path.exists() and not path.is_symlink():
            continue
        real = os.path.realpath(path)
        if not real.startswith(str(repository).rstrip(os.sep) + os.sep):
            raise TestCaseError(f"links outside the repository ({real}); a configuration "
                                "above the suite is read only inside it", source=path)
        layer = read_config_file(path, folder="/".join([".."] * depth))
        if layer is None:
            continue
        found.append(layer)
        if layer.settings.get(SCOPE_KEY) is True:
            break
    return list(reversed(found))


# ---- merging a test case with its configuration --------------------------------------------


@dataclass(frozen=True)
class MergedCase:
    """A test case document with its configuration merged in, and where each setting came
    from (``origins``: key path in the merged document -> origin)."""

    document: dict[str, Any]
    origins: Mapping[str, Origin]
    layers: tuple[ConfigLayer, ...]
    trials_rule: tuple[str, Origin] | None = None
    """The nearest ``[trials] rule``, when a configuration sets one."""
    flaky_band: tuple[FlakyBand, Origin] | None = None
    """The nearest ``[trials] flaky_between``, when a configuration sets one."""

    def relocate(self, error: OpenEvalError) -> OpenEvalError:
        """Return ``error`` (raised for the merged document) pointing at where the offending
        setting was written: its configuration file, line and key, or the test case's own key.
        """
        location = error.location
        if location is None:
            return error
        candidate = location
        origin = self.origins.get(candidate)
        while origin is None:
            trimmed = re.sub(r"(\.[^.\[\]]+|\[[0-9]+\])$", "", candidate)
            if trimmed == candidate:
                return error
            candidate = trimmed
            origin = self.origins.get(candidate)
        path = (origin.path or "") + location[len(candidate):]
        if origin.kind != "config":
            if path == location:
                return error
            return type(error)(error.message, source=error.source, location=path)
        layer = next(layer for layer in self.layers if layer.source == origin.source)
        where = Origin("config", origin.source, path, line_of(layer.lines, path))
        testcase = error.source
        message = f"{error.message} (applied to {testcase})" if testcase else error.message
        return _error_at(message, where)


def _rebase_code(entry: dict[str, Any], config_source: str, testcase_path: str) -> dict[str, Any]:
    """Return ``entry`` with a ``code`` file path made relative to the test case's folder."""
    code = entry.get("code")
    if not isinstance(code, str):
        return entry
    file, colon, name = code.partition(":")
    if not file.endswith(".py") or os.path.isabs(file):
        return entry  # an importable module, or an absolute path: the same from anywhere
    target = Path(config_source).parent / file
    rebased = Path(os.path.relpath(target, Path(testcase_path).parent)).as_posix()
    return {**entry, "code": rebased + colon + name}


def merge_case(
    document: Mapping[str, Any], layers: Sequence[ConfigLayer], *, testcase_path: str | Path
) -> MergedCase:
    """Return ``document`` (a test case) merged over ``layers`` (farthest first)."""
    testcase = Path(testcase_path).as_posix()
    merged: dict[str, Any] = {}
    origins: dict[str, Origin] = {}
    rule: tuple[str, Origin] | None = None
    band: tuple[FlakyBand, Origin] | None = None
    for layer in layers:
        for key in CASE_KEYS:
            if key in layer.settings:
                _put(merged, origins, key, layer.settings[key], layer.origin, layer.source,
                     testcase)
        trials = layer.settings.get("trials", {})
        if "rule" in trials:
            rule = (trials["rule"], layer.origin("trials.rule"))
        if "flaky_between" in trials:  # checked when the file was read
            band = (FlakyBand.parse(trials["flaky_between"]),
                    layer.origin("trials.flaky_between"))

    def case_origin(path: str) -> Origin:
        return Origin("case", testcase, path)

    for key, value in document.items():
        if key in CASE_KEYS:
            _put(merged, origins, key, value, case_origin, None, testcase)
        else:
            merged[key] = value
            origins[key] = case_origin(key)
    _drop_unused_thresholds(merged, origins)
    _drop_unread_expectations(merged, origins)
    return MergedCase(merged, origins, tuple(layers), rule, band)


def _put(
    merged: dict[str, Any],
    origins: dict[str, Origin],
    key: str,
    value: Any,
    origin_of: Any,
    config_source: str | None,
    testcase: str,
) -> None:
    if key == "checks" and isinstance(value, list):
        entries = merged.setdefault("checks", [])
        for j, entry in enumerate(value):
            if config_source is not None and isinstance(entry, dict):
                entry = _rebase_code(entry, config_source, testcase)
            origins[f"checks[{len(entries)}]"] = origin_of(f"checks[{j}]")
            entries.append(entry)
        return
    if key in TABLE_KEYS and isinstance(value, dict):
        earlier = merged.get(key)
        merged[key] = {**earlier, **value} if isinstance(earlier, dict) else dict(value)
        for sub in value:
            origins[f"{key}.{sub}"] = origin_of(f"{key}.{sub}")
        origins[key] = origin_of(key)
        return
    for path in [p for p in origins if p.startswith(key + ".")]:
        del origins[path]  # the whole value is replaced: earlier table entries are gone
    merged[key] = value
    origins[key] = origin_of(key)


def _drop_unused_thresholds(merged: dict[str, Any], origins: dict[str, Origin]) -> None:
    metrics = merged.get("metrics")
    thresholds = merged.get("thresholds")
    if not isinstance(metrics, list) or not isinstance(thresholds, dict):
        return
    for name in list(thresholds):
        origin = origins.get(f"thresholds.{name}")
        if name not in metrics and origin is not None and origin.kind == "config":
            del thresholds[name]
            del origins[f"thresholds.{name}"]


def _drop_unread_expectations(merged: dict[str, Any], origins: dict[str, Origin]) -> None:
    from openeval.scoring.validate import unread_expectations

    metrics = merged.get("metrics")
    if not isinstance(metrics, list):
        return
    # A default from a configuration file that this case's metrics do not read is dropped,
    # like its thresholds; the same key written in the case file is an error (the case asks
    # for something nothing checks).
    checks = merged.get("checks")
    for key in unread_expectations(merged, metrics, checks if isinstance(checks, list) else ()):
        origin = origins.get(key)
        if origin is not None and origin.kind == "config":
            del merged[key]
            for path in [p for p in origins if p == key or p.startswith(key + ".")]:
                del origins[path]


# ---- what a case ends up with (``openeval config``) ----------------------------------------


@dataclass(frozen=True)
class Setting:
    """One effective setting of a case or a run, with where it came from."""

    key: str
    """The key path: ``thresholds.step_efficiency``, ``checks[0]``, ``gates.x`` ..."""
    value: Any
    origin: Origin
    applied: bool = True
    """False for a run setting of a nested configuration, which a run of this suite ignores."""

    def to_dict(self) -> dict[str, Any]:
        """Return the setting as a JSON object."""
        return {"key": self.key, "value": self.value, "origin": self.origin.to_dict(),
                "applied": self.applied}


def run_setting_list(config: SuiteConfig) -> list[Setting]:
    """Return the run settings a run of the suite applies, then the nested ones it ignores."""
    settings = config.run_settings()
    found = [Setting(key, pair[0], pair[1]) for key, pair in
             (("fail_under", settings.fail_under), ("fail_under_cases", settings.fail_under_cases))
             if pair is not None]
    found += [Setting(f"gates.{name}", line, origin) for name, line, origin in settings.gates]
    found += [Setting(key, value, origin, applied=False)
              for key, value, origin in config.ignored()]
    return found


def case_setting_list(
    document: Mapping[str, Any],
    merged: MergedCase | None,
    checks: Sequence[Any],
    trials_rule: str,
    *,
    testcase_path: str | Path,
    rule_option: str | None = None,
) -> list[Setting]:
    """Return the effective settings of one case: every key a configuration can set, each with
    its origin (a configuration file and line, the test case, an option, or a default).

    ``document`` is the case's own file, ``merged`` its merge (None when no configuration
    applies) and ``checks`` the compiled plan's check specs (which metrics run, with which
    pass line).
    """
    testcase = Path(testcase_path).as_posix()
    origins: Mapping[str, Origin] = (
        merged.origins if merged is not None
        else {key: Origin("case", testcase, key) for key in document}
    )
    values: Mapping[str, Any] = merged.document if merged is not None else document

    def origin(path: str, default: str) -> Origin:
        return origins.get(path) or Origin("default", default)

    metric_specs = [s for s in checks if s.family == "metric"]
    found = [Setting("metrics", [s.name for s in metric_specs],
                     origin("metrics", "every registered metric"))]
    found += [Setting(f"thresholds.{s.name}", s.threshold,
                      origin(f"thresholds.{s.name}", "the metric's default pass line"))
              for s in metric_specs]
    trajectory = values.get("trajectory")
    if isinstance(trajectory, dict):
        found += [Setting(f"trajectory.{k}", v, origin(f"trajectory.{k}", "")) for k, v in
                  trajectory.items()]
    else:
        found.append(Setting("trajectory", None, origin("trajectory", "not set")))
    entries = values.get("checks") or []
    found += [Setting(f"checks[{i}]", entry, origin(f"checks[{i}]", ""))
              for i, entry in enumerate(entries)]
    for key in ("max_steps", "timeout_seconds", "optimal_steps", "denied_when"):
        found.append(Setting(key, values.get(key), origin(key, "not set")))
    found.append(Setting("agent_spec", values.get("agent_spec"),
                         origin("agent_spec", "--agent-spec of the run, if given")))
    if rule_option is not None:
        rule_origin = Origin("option", "--trials-rule")
    elif merged is not None and merged.trials_rule is not None:
        rule_origin = merged.trials_rule[1]
    else:
        rule_origin = Origin("default", "default")
    found.append(Setting("trials.rule", trials_rule, rule_origin))
    return found

"""The pytest plugin: OpenEval suite folders collected as tests, one per case, judged exactly
as ``openeval run --suite`` judges them.

Off unless asked for, so installing OpenEval never changes an unrelated test run: it collects
only the suites given with ``pytest --openeval SUITE_DIR`` (repeatable) or listed in the ini
setting ``openeval_suites``. A suite from the command line is added to what pytest collects; a
suite from the ini file is added when pytest collects its default paths (no path given), and
is otherwise collected only where the paths given reach it.

The cases are the suite's own discovery (:func:`openeval.suite.discover.discover`), scored
with the suite's configuration files and the same :class:`~openeval.suite.evaluate.RunPlan`
``openeval run`` builds (checks, metrics, thresholds and trials rule of ``openeval.toml``; code
checks only with ``--openeval-allow-code``). pytest itself looks at no file of the suite: a
test case file that is a link to another case's, to ``/dev/null``, a dangling link, a FIFO or
a folder is collected like any other case and errored exactly as ``run`` errors it.

Each case is one test whose id is the case id (``refund-ok``, ``testcases/lookup.json``), under
its test case file, marked ``openeval``, so ``-k refund`` and ``-m openeval`` select as usual
and ``--junitxml`` writes it like any test:

- passed, or n.a. (nothing judged) -> passed, or skipped saying so;
- failed (a metric or check failed) -> failed, the message one line per failed check with
  its details (:meth:`CaseItem.repr_failure`);
- errored (a file could not be read, a check errored) -> a pytest error, raised while setting
  the test up, with the same one line per problem and no traceback.

The session fails, whatever each test said, when a suite's cases that ran judged nothing (every
one n.a., as ``run`` fails a suite with nothing evaluated) or when a case that was selected got
no verdict. Each check's verdict is also recorded as a user property (``openeval.<check
name>``), which ``--junitxml`` writes as a ``<property>``. Design:
proposals/0070-code-checks-and-pytest.md, proposals/0161-pytest-plugin-is-run.md.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from openeval.errors import OpenEvalError

try:
    import pytest
except ImportError:  # pragma: no cover - pytest loads this module, so it is there
    raise OpenEvalError(
        "the OpenEval pytest plugin needs pytest: pip install pytest"
    ) from None

if TYPE_CHECKING:
    from collections.abc import Iterator

    from openeval.results.records import CaseResult
    from openeval.suite.discover import CaseSpec
    from openeval.suite.evaluate import RunPlan

MARKER = "openeval"
"""The marker every collected case carries."""


@dataclass(frozen=True)
class _Suite:
    """An enabled suite: its folder (relative to the working folder when inside it, as
    ``openeval run`` shows it), its plan and its cases."""

    root: Path
    plan: RunPlan
    specs: tuple[CaseSpec, ...]


_SUITES = pytest.StashKey[dict[Path, _Suite]]()
"""Suite folder (absolute, links not resolved) -> the suite, for every enabled suite."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--openeval SUITE_DIR``, the code opt-in flags and the ini ``openeval_suites``."""
    group = parser.getgroup("openeval", "OpenEval suites as tests")
    group.addoption(
        "--openeval", action="append", default=[], metavar="SUITE_DIR", dest="openeval_suites",
        help="collect the cases of this OpenEval suite folder as tests (repeatable)",
    )
    group.addoption(
        "--openeval-allow-code", action="store_true", default=False,
        dest="openeval_allow_code",
        help="run the check files the suite's check entries name (openeval run --allow-code)",
    )
    group.addoption(
        "--openeval-allow-code-module", action="append", default=[], metavar="MODULE",
        dest="openeval_allow_code_modules",
        help="let check entries and agent specs import this module (repeatable; openeval run "
             "--allow-code-module)",
    )
    parser.addini(
        "openeval_suites", type="paths", default=[],
        help="OpenEval suite folders collected as tests when pytest is given no path",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Find the cases of every enabled suite and read its configuration; add the suites to the
    paths pytest collects.

    A suite that does not exist, holds no case or has a configuration file in error is a usage
    error, as a bad path is.
    """
    config.addinivalue_line(
        "markers", f"{MARKER}: an OpenEval case collected from a suite folder (--openeval)"
    )
    invoked = config.invocation_params.dir
    from_command_line = [invoked / p for p in config.getoption("openeval_suites")]
    folders: list[Path] = from_command_line or list(config.getini("openeval_suites"))
    if not folders:
        return
    suites: dict[Path, _Suite] = {}
    for folder in folders:
        try:
            suite = _read_suite(folder, config)
        except OpenEvalError as exc:
            raise pytest.UsageError(f"--openeval: {exc}") from None
        suites.setdefault(Path(os.path.abspath(suite.root)), suite)
    config.stash[_SUITES] = suites
    explicit = config.args_source is pytest.Config.ArgsSource.ARGS
    if from_command_line or not explicit:
        reached = [_arg_path(invoked, arg) for arg in config.args]
        config.args += [str(s) for s in folders if not _within_any(s.resolve(), reached)]


def _read_suite(folder: Path, config: pytest.Config) -> _Suite:
    """Return the suite in ``folder`` as ``openeval run --suite`` reads it."""
    from openeval.adapters.base import LoadOptions
    from openeval.suite.config import load_suite_config
    from openeval.suite.discover import discover
    from openeval.suite.evaluate import RunPlan
    from openeval.trust import CodePolicy

    # Shown as `openeval run` shows it: relative to the working folder when inside it.
    if not os.path.relpath(folder).startswith(os.pardir):
        folder = Path(os.path.relpath(folder))
    specs = tuple(discover(folder))
    suite_config = load_suite_config(folder)
    policy = CodePolicy(files=bool(config.getoption("openeval_allow_code")),
                        modules=tuple(config.getoption("openeval_allow_code_modules")))
    plan = RunPlan.of(None, None, LoadOptions(code=policy), confine_to=folder,
                      config=suite_config)
    return _Suite(folder, plan, specs)


def _arg_path(invoked: Path, arg: str) -> Path:
    return (invoked / arg.split("::")[0]).resolve()


def _within_any(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say how many OpenEval cases the enabled suites hold."""
    suites = config.stash.get(_SUITES, None)
    if suites is None:
        return None
    return f"openeval: {sum(len(s.specs) for s in suites.values())} case(s) in the enabled suites"


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect an enabled suite's folder as a :class:`SuiteFolder`: its cases are the suite's
    discovery, whatever pytest would have made of its files."""
    suites = parent.config.stash.get(_SUITES, None)
    suite = suites.get(Path(os.path.abspath(path))) if suites else None
    if suite is None:
        return None
    found: SuiteFolder = SuiteFolder.from_parent(parent, path=path, suite=suite)
    return found


class SuiteFolder(pytest.Directory):
    """An enabled suite's folder: one :class:`CaseFile` per discovered case."""

    def __init__(self, *, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def collect(self) -> Iterator[CaseFile]:
        """Yield each case's test case file, in discovery order."""
        for spec in self.suite.specs:
            path = Path(os.path.abspath(spec.testcase_path))  # never resolved: a link is a case
            yield CaseFile.from_parent(self, path=path, spec=spec, suite=self.suite)


class CaseFile(pytest.File):
    """A test case file of an enabled suite: it holds one case (read only when scored)."""

    def __init__(self, *, spec: CaseSpec, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.suite = suite

    def collect(self) -> Iterator[CaseItem]:
        """Yield the case, named by its case id."""
        yield CaseItem.from_parent(self, name=self.spec.case_id, spec=self.spec,
                                   suite=self.suite)


class CaseFailed(Exception):
    """A case a metric or check failed; :meth:`CaseItem.repr_failure` words it."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.case_id)
        self.result = result


class CaseItem(pytest.Item):
    """One OpenEval case: scored in setup (an error there is a pytest error), judged in call."""

    def __init__(self, *, spec: CaseSpec, suite: _Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.suite = suite
        self.result: CaseResult | None = None
        self.add_marker(MARKER)

    def setup(self) -> None:
        """Score the case as ``openeval run`` does; a case that errored stops here as a pytest
        error."""
        from openeval.engines.base import run_spec

        self.result = run_spec(self.spec, self.suite.plan)
        self.user_properties += [(f"openeval.{c.name}", c.verdict) for c in self.result.checks]
        if self.result.status == "error":
            pytest.fail("\n".join(_case_lines(self.result)), pytrace=False)

    def runtest(self) -> None:
        """Fail when a metric or check failed; skip when nothing was judged."""
        if self.result is None:
            raise RuntimeError("runtest() before setup(): pytest always sets a test up first")
        if self.result.status == "failed":
            raise CaseFailed(self.result)
        if self.result.status == "n.a.":
            # Reported at the test case file, not at this line (as a skip marker would be).
            raise pytest.skip.Exception(
                "nothing was judged: every metric and check was n.a.", _use_item_location=True
            )

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> Any:
        """Return one line per failed or errored check, with its details."""
        if isinstance(excinfo.value, CaseFailed):
            return "\n".join(_case_lines(excinfo.value.result))
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point reports at the test case file."""
        return self.path, 0, f"openeval case {self.name}"


def _case_lines(result: CaseResult) -> list[str]:
    """Return one line per failed or errored check; for a case with trials, the rule and each
    trial's lines under its id."""
    from openeval.testing._failures import failure_lines

    if not result.trials:
        return failure_lines(result.checks, result.error)
    passed = sum(trial.passed for trial in result.trials)
    lines = [f"trials rule {result.trials_rule}: {passed} of {len(result.trials)} trial(s) "
             "passed" + (f"; {result.error}" if result.error else "")]
    for trial in result.trials:
        lines += [f"{trial.case_id}: {line}" for line in failure_lines(trial.checks, trial.error)]
    return lines


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the session when a selected case got no verdict, or a suite judged nothing."""
    items = [item for item in session.items if isinstance(item, CaseItem)]
    if not items or session.shouldstop or session.shouldfail:
        return
    problems: list[str] = []
    missing = [item.nodeid for item in items if item.result is None]
    if missing:
        problems.append(f"{len(missing)} selected case(s) got no verdict, first {missing[0]}")
    by_suite: dict[Path, list[CaseResult]] = {}
    for item in items:
        if item.result is not None:
            by_suite.setdefault(item.suite.root, []).append(item.result)
    for root, results in by_suite.items():
        if all(result.status == "n.a." for result in results):
            problems.append(f"nothing was judged in suite {root.as_posix()} (every one of its "
                            f"{len(results)} selected case(s) n.a.), which fails as openeval run "
                            "fails it")
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if problems:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        for problem in problems:
            if reporter is not None:
                reporter.write_line(f"openeval: {problem}", red=True)

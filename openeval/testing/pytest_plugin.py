"""The pytest plugin: OpenEval suite folders collected as tests, one per case.

Off unless asked for, so installing OpenEval never changes an unrelated test run: it collects
only the suites given with ``pytest --openeval SUITE_DIR`` (repeatable) or listed in the ini
setting ``openeval_suites``. A suite from the command line is added to what pytest collects; a
suite from the ini file is added when pytest collects its default paths (no path given), and
is otherwise collected only where the paths given reach it.

Each case is one test whose id is the case id (``refund-ok``, ``testcases/lookup.json``), under
its test case file, marked ``openeval``, so ``-k refund`` and ``-m openeval`` select as usual
and ``--junitxml`` writes it like any test:

- passed, or n.a. (nothing judged) -> passed, or skipped saying so;
- failed (a metric or check failed) -> failed, the message one line per failed check with
  its details (:meth:`CaseItem.repr_failure`);
- errored (a file could not be read, a check errored) -> a pytest error, raised while setting
  the test up, with the same one line per problem and no traceback.

Each check's verdict is also recorded as a user property (``openeval.<check name>``), which
``--junitxml`` writes as a ``<property>``. Design: proposals/0070-code-checks-and-pytest.md.
"""

from __future__ import annotations

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

MARKER = "openeval"
"""The marker every collected case carries."""

_CASES = pytest.StashKey[dict[Path, "CaseSpec"]]()
"""Resolved test case path -> its case, for every enabled suite."""


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--openeval SUITE_DIR`` and the ini setting ``openeval_suites``."""
    group = parser.getgroup("openeval", "OpenEval suites as tests")
    group.addoption(
        "--openeval", action="append", default=[], metavar="SUITE_DIR", dest="openeval_suites",
        help="collect the cases of this OpenEval suite folder as tests (repeatable)",
    )
    parser.addini(
        "openeval_suites", type="paths", default=[],
        help="OpenEval suite folders collected as tests when pytest is given no path",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Find the cases of every enabled suite; add the suites to the paths pytest collects.

    A suite that does not exist or holds no case is a usage error, as a bad path is.
    """
    config.addinivalue_line(
        "markers", f"{MARKER}: an OpenEval case collected from a suite folder (--openeval)"
    )
    invoked = config.invocation_params.dir
    from_command_line = [invoked / p for p in config.getoption("openeval_suites")]
    suites: list[Path] = from_command_line or list(config.getini("openeval_suites"))
    if not suites:
        return
    from openeval.suite.discover import discover

    cases: dict[Path, CaseSpec] = {}
    for suite in suites:
        try:
            specs = discover(suite)
        except OpenEvalError as exc:
            raise pytest.UsageError(f"--openeval: {exc}") from None
        for spec in specs:
            cases.setdefault(spec.testcase_path.resolve(), spec)
    config.stash[_CASES] = cases
    explicit = config.args_source is pytest.Config.ArgsSource.ARGS
    if from_command_line or not explicit:
        reached = [_arg_path(invoked, arg) for arg in config.args]
        config.args += [str(s) for s in suites if not _within_any(s.resolve(), reached)]


def _arg_path(invoked: Path, arg: str) -> Path:
    return (invoked / arg.split("::")[0]).resolve()


def _within_any(path: Path, folders: list[Path]) -> bool:
    return any(path == folder or folder in path.parents for folder in folders)


def pytest_report_header(config: pytest.Config) -> str | None:
    """Say how many OpenEval cases the enabled suites hold."""
    cases = config.stash.get(_CASES, None)
    if cases is None:
        return None
    return f"openeval: {len(cases)} case(s) in the enabled suites"


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect a test case file of an enabled suite as a :class:`CaseFile`."""
    cases = parent.config.stash.get(_CASES, None)
    if not cases or file_path.suffix != ".json" or file_path.resolve() not in cases:
        return None
    found: CaseFile = CaseFile.from_parent(parent, path=file_path)
    return found


class CaseFile(pytest.File):
    """A test case file of an enabled suite: it holds one case."""

    def collect(self) -> Iterator[CaseItem]:
        """Yield the case, named by its case id."""
        spec = self.config.stash[_CASES][self.path.resolve()]
        yield CaseItem.from_parent(self, name=spec.case_id, spec=spec)


class CaseFailed(Exception):
    """A case a metric or check failed; :meth:`CaseItem.repr_failure` words it."""

    def __init__(self, result: CaseResult) -> None:
        super().__init__(result.case_id)
        self.result = result


class CaseItem(pytest.Item):
    """One OpenEval case: scored in setup (an error there is a pytest error), judged in call."""

    def __init__(self, *, spec: CaseSpec, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec
        self.result: CaseResult | None = None
        self.add_marker(MARKER)

    def setup(self) -> None:
        """Read and score the case; a case that errored stops here as a pytest error."""
        from openeval.suite.evaluate import run_case
        from openeval.testing._failures import failure_lines

        spec = self.spec
        self.result = run_case(spec.testcase_path, spec.trace_path, case_id=spec.case_id,
                               problem=spec.problem)
        self.user_properties += [(f"openeval.{c.name}", c.verdict) for c in self.result.checks]
        if self.result.status == "error":
            lines = failure_lines(self.result.checks, self.result.error)
            pytest.fail("\n".join(lines), pytrace=False)

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
            from openeval.testing._failures import failure_lines

            return "\n".join(failure_lines(excinfo.value.result.checks))
        return super().repr_failure(excinfo, style)

    def reportinfo(self) -> tuple[Path, int, str]:
        """Point reports at the test case file."""
        return self.path, 0, f"openeval case {self.name}"

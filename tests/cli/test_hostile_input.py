"""Hostile suites through the real command line: no traceback, one line naming the file, every
case accounted for, nothing read from outside the suite, nothing printed that forges a CI
workflow command or a terminal escape.

Each row builds its inputs in a fresh folder (nothing hostile is committed), runs
``openeval run --suite`` in a subprocess with a time limit, and checks what came out.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

GOOD = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good"
SECRET = "sk-LEAKED-0123456789"


def good_case(folder: Path, **testcase: object) -> Path:
    """Copy the good case into ``folder``, with ``testcase`` keys added to its test case."""
    shutil.copytree(GOOD, folder)
    document = json.loads((folder / "testcase.json").read_text()) | testcase
    (folder / "testcase.json").write_text(json.dumps(document))
    return folder


def secret_outside(root: Path) -> Path:
    """Write a trace-shaped file holding a secret next to (outside) the suite folder."""
    outside = root.parent / "outside"
    outside.mkdir(exist_ok=True)
    leak = json.loads((GOOD / "trace.json").read_text())
    leak["actual_state"] = {"found": SECRET}
    path = outside / "secret.json"
    path.write_text(json.dumps(leak))
    return path


@dataclass(frozen=True)
class Hostile:
    id: str
    build: Callable[[Path], None]
    """Fill the suite folder."""
    cases: int
    """Cases the run must account for."""
    errored: int
    """Of which errored."""
    says: str
    """Words the output must hold (stdout or stderr)."""
    code: int = 1
    """The exit code of the run."""
    args: tuple[str, ...] = ()


def _trace_key_outside(root: Path) -> None:
    good_case(root / "ok")
    secret = secret_outside(root)
    good_case(root / "sneaky", trace=os.path.relpath(secret, root / "sneaky"))
    (root / "sneaky" / "trace.json").unlink()


def _absolute_trace_key(root: Path) -> None:
    good_case(root / "ok")
    good_case(root / "absolute", trace=str(secret_outside(root)))


def _linked_trace(root: Path) -> None:
    good_case(root / "ok")
    linked = good_case(root / "linked")
    (linked / "trace.json").unlink()
    (linked / "trace.json").symlink_to(secret_outside(root))


def _nul_in_trace_key(root: Path) -> None:
    good_case(root / "ok")
    good_case(root / "nul", trace="trace\u0000.json")


def _not_utf8_folder(root: Path) -> None:
    good_case(root / "ok")
    good_case(Path(os.fsdecode(os.fsencode(str(root)) + b"/caf\xe9")))


def _linked_case_folder_and_a_loop(root: Path) -> None:
    real = good_case(root.parent / "elsewhere" / "real")
    good_case(root / "ok")
    (root / "linked").symlink_to(real.parent)  # a case folder reached through a link
    (root / "ok" / "loop").symlink_to(root)  # a link back up: must not walk forever


def _forged_workflow_commands(root: Path) -> None:
    good_case(root / "ok")
    hostile = good_case(root / "evil\n::error title=forged::owned\r::stop-commands::x")
    trace = json.loads((hostile / "trace.json").read_text())
    trace["actual_state"] = {"found": "\n::add-mask::secret\u001b[2J"}
    (hostile / "trace.json").write_text(json.dumps(trace))


def _value_flood(root: Path) -> None:
    good_case(root / "ok")
    flood = good_case(root / "flood")
    trace = json.loads((flood / "trace.json").read_text())
    trace["actual_state"] = {"found": list(range(500))}
    (flood / "trace.json").write_text(json.dumps(trace))


ROWS = [
    Hostile("trace-key-outside-the-suite", _trace_key_outside, 2, 1, "lies outside"),
    Hostile("absolute-trace-key", _absolute_trace_key, 2, 1, "lies outside"),
    Hostile("trace-linked-outside-the-suite", _linked_trace, 2, 1, "its trace file links to"),
    Hostile("nul-byte-in-trace-key", _nul_in_trace_key, 2, 1, "holds a NUL character"),
    Hostile("folder-name-not-utf8", _not_utf8_folder, 2, 0, "PASS  caf\\xe9", code=0),
    # The linked folder is found (never dropped); its trace lies outside the suite, so it is
    # an errored case naming why, and the loop back up ends instead of hanging.
    Hostile("linked-case-folder-and-link-loop", _linked_case_folder_and_a_loop, 2, 1,
            "linked/real/testcase.json: its trace file links to"),
    Hostile("forged-workflow-commands", _forged_workflow_commands, 2, 0,
            "evil\\x0a::error title=forged::owned\\x0d::stop-commands::x"),
    # The value cap the command line lowers applies to the suite's traces.
    Hostile("json-values-over-the-given-cap", _value_flood, 2, 1, "more than 400 JSON values",
            args=("--max-json-values", "400")),
]


@pytest.fixture
def suite_root() -> Iterator[Path]:
    # Not pytest's tmp_path: the unprivileged-user row needs every parent folder readable.
    base = Path(tempfile.mkdtemp(prefix="openeval-hostile-"))
    base.chmod(0o755)
    (base / "suite").mkdir()
    yield base / "suite"
    for folder in base.rglob("*"):
        if folder.is_dir() and not folder.is_symlink():
            folder.chmod(0o755)
    shutil.rmtree(base)


def run_cli(*args: str, env: dict[str, str] | None = None,
            prefix: tuple[str, ...] = ()) -> subprocess.CompletedProcess[str]:
    """Run ``python -m openeval ARGS`` with a time limit (a hang is a failure, not a wait)."""
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONIOENCODING"}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "openeval", *args], capture_output=True, text=True,
        env={**environment, **(env or {})}, timeout=120, errors="replace",
    )


def assert_clean(done: subprocess.CompletedProcess[str]) -> None:
    """No traceback; every stderr line is one of ours; no workflow command but the reporter's."""
    assert "Traceback" not in done.stderr + done.stdout
    for line in done.stderr.splitlines():
        assert line.startswith("openeval: "), line
    for line in done.stdout.splitlines():
        assert not line.startswith("::"), line
        assert "\x1b" not in line, line


@pytest.mark.parametrize("row", ROWS, ids=[r.id for r in ROWS])
def test_a_hostile_suite_ends_in_one_clean_message(row: Hostile, suite_root: Path) -> None:
    row.build(suite_root)
    out = suite_root.parent / "results"
    done = run_cli("run", "--suite", str(suite_root), "--output", str(out), *row.args)
    assert_clean(done)
    assert row.says in done.stdout + done.stderr
    assert SECRET not in done.stdout + done.stderr
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["cases"], summary["errored_cases"]) == (row.cases, row.errored)
    for name in summary["result_files"]:
        assert SECRET not in (out / name).read_text()
    assert done.returncode == row.code


def test_the_suite_lock_can_be_lifted(suite_root: Path) -> None:
    _trace_key_outside(suite_root)
    done = run_cli("run", "--suite", str(suite_root), "--allow-outside-suite")
    assert_clean(done)
    # The user asked for it on the command line: the trace is read (and its values shown).
    assert "FAIL  sneaky" in done.stdout and "lies outside" not in done.stdout


# Root reads any folder; without the two capabilities that let it, mode bits apply again.
AS_A_USER = ("setpriv", "--bounding-set", "-dac_override,-dac_read_search") if (
    os.geteuid() == 0) else ()


def test_a_folder_that_cannot_be_listed_is_an_errored_case(suite_root: Path) -> None:
    good_case(suite_root / "a")
    good_case(suite_root / "b")
    (suite_root / "b").chmod(0o311)  # may enter, may not list
    out = suite_root.parent / "results"
    done = run_cli("run", "--suite", str(suite_root), "--output", str(out), prefix=AS_A_USER)
    assert_clean(done)
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["cases"], summary["errored_cases"]) == (2, 1)
    assert "cannot list this folder: Permission denied" in done.stdout
    assert done.returncode == 1


def test_a_run_that_stops_early_leaves_no_old_verdict(suite_root: Path) -> None:
    good_case(suite_root / "a")
    out = suite_root.parent / "results"
    assert run_cli("run", "--suite", str(suite_root), "--output", str(out)).returncode == 0
    shutil.rmtree(suite_root / "a")  # the next run finds no case and stops with exit 2
    assert run_cli("run", "--suite", str(suite_root), "--output", str(out)).returncode == 2
    done = run_cli("report", "--input", str(out))
    assert done.returncode == 1 and "holds no result" in done.stderr
    assert_clean(done)


@pytest.mark.parametrize("command", [
    ("convert", str(GOOD / "trace.json")),
    ("run", "--trace", str(GOOD / "trace.json"), "--testcase", str(GOOD / "testcase.json")),
])
def test_a_full_disk_is_one_line_and_a_failure(command: tuple[str, ...]) -> None:
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "openeval", *command], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr == "openeval: error: cannot write the output: No space left on device\n"


def test_closed_stdout_is_one_line_and_a_failure() -> None:
    done = subprocess.run([sys.executable, "-m", "openeval", "run", "--suite", str(GOOD)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          timeout=60, pass_fds=(), close_fds=True,
                          preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert "standard output is closed" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("command", ["run", "missing-trace"])
def test_a_locale_without_utf8_never_crashes_printing(suite_root: Path, command: str) -> None:
    case = good_case(suite_root / "ünïcode-☃")
    if command == "missing-trace":  # the error path prints the name too
        (case / "trace.json").unlink()
    env = {"LC_ALL": "POSIX", "LANG": "POSIX", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    done = run_cli("run", "--suite", str(suite_root), env=env)
    assert_clean(done)
    assert done.returncode == (0 if command == "run" else 1)
    assert "code-" in done.stdout


@pytest.mark.skipif(sys.version_info < (3, 11), reason="fixtura itself needs Python 3.11")
def test_an_agent_spec_that_exits_never_passes_the_gate(tmp_path: Path) -> None:
    # A spec module that calls sys.exit(0) while being imported once ended the run with exit 0.
    (tmp_path / "exiting_agent.py").write_text("import sys\nsys.exit(0)\n")
    fixtura = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / \
        "08-fixtura-recording"
    done = subprocess.run(
        [sys.executable, "-m", "openeval", "run", "--suite", str(fixtura),
         "--agent-spec", "exiting_agent:spec"],
        capture_output=True, text=True, cwd=tmp_path, timeout=120, check=False,
    )
    assert done.returncode != 0
    assert "building the agent spec raised SystemExit" in done.stdout + done.stderr
    assert_clean(done)


@pytest.mark.parametrize("command", ["run", "report"])
def test_result_files_and_reports_are_the_same_under_every_locale(suite_root: Path,
                                                                   command: str) -> None:
    good_case(suite_root / "ünïcode-☃-€")
    ascii_only = {"LC_ALL": "POSIX", "LANG": "POSIX", "PYTHONUTF8": "0",
                  "PYTHONCOERCECLOCALE": "0"}
    outputs = []
    for name, env in (("utf8", {"LC_ALL": "C.UTF-8"}), ("posix", ascii_only)):
        out = suite_root.parent / name
        done = run_cli("run", "--suite", str(suite_root), "--output", str(out), env=env)
        if command == "report":  # into a file: what a terminal cannot show, it escapes
            out = suite_root.parent / f"{name}.md"
            done = run_cli("report", "--input", str(suite_root.parent / name), "--format",
                           "markdown", "--output", str(out), env=env)
        assert_clean(done)
        assert done.returncode == 0, done.stderr
        outputs.append({p.name: p.read_bytes() for p in out.iterdir()} if out.is_dir()
                       else out.read_bytes())
    assert outputs[0] == outputs[1]

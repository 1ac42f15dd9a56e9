"""The files ``openeval init`` writes: a suite with one example case, and a CI workflow.

:func:`init_files` is pure: it returns ``{relative path: bytes}`` and the command line writes
them (refusing to overwrite anything). The example case is one of the quickstart's real traces
in the format asked for, so the new suite passes ``openeval run`` as written, and its README
says how to swap in a trace of one's own agent. The design is proposals/0171-init.md.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Literal, get_args

from openeval.models import SCHEMA_KEY
from openeval.schemas.publish import schema_url

InitFormat = Literal["native", "openai", "anthropic", "langchain", "otel"]
INIT_FORMATS: tuple[str, ...] = get_args(InitFormat)

ACTION_REF = "OWNER/openeval@v1"
"""The GitHub Action the workflow uses unless told otherwise: ``OWNER`` stands for the GitHub
path this repository is published under, as in the README (the ``v1`` tag moves with each 1.x
release; pin ``@v1.2.3`` for a gate that never changes under you)."""

SUITE = "evals"
CASE = "example-case"

_HOW_TO_EXPORT: dict[str, str] = {
    "native": "write the trace as OpenEval's own JSON (`openeval convert YOUR_FILE -o "
              "trace.json` turns any supported format into it)",
    "openai": "save the `messages` list your agent loop sent and received (Chat Completions "
              "or Responses items) as JSON",
    "anthropic": "save the `messages` list of your agent loop (Messages API content blocks) "
                 "as JSON",
    "langchain": "export the run from LangSmith (or `run.dict()` of a LangChain `Run`) as "
                 "JSON",
    "otel": "export the spans of one agent run as OTLP JSON (a collector's file exporter, or "
            "`openeval record`)",
}


def _template(fmt: str) -> dict[str, bytes]:
    folder = files("openeval.scaffold").joinpath("templates").joinpath(fmt)
    return {entry.name: entry.read_bytes() for entry in folder.iterdir() if entry.is_file()}


def _config() -> bytes:
    # taplo (Even Better TOML) reads the first line: completion and checks in an editor.
    return f"""\
#:schema {schema_url("config")}
# Settings every case under {SUITE}/ shares; a test case's own keys win.
# `openeval config --suite {SUITE} CASE` shows what a case ends up with, and where each setting
# came from. Every key is in the README ("Suites at scale").

# The gate: every case must pass. Lower it (0.9: nine in ten) only for suites of flaky agents,
# and prefer trials ([trials] rule = "majority") to a lower line.
fail_under = 1.0

# Checks every case runs, before any of its own.
[[checks]]
check = "pii_leak"
""".encode()


def _case_readme(fmt: str, trace_name: str) -> bytes:
    return f"""\
# {CASE}

A real recorded run ({fmt} format) and the test case that says what the run should have done.
`openeval run --suite {SUITE}` scores it; it passes as shipped.

To make it yours:
1. Record a run of your own agent on one task: {_HOW_TO_EXPORT[fmt]}.
2. Replace `{trace_name}` with it (any supported format works: the format is detected).
3. Edit `testcase.json`: the task's `input`, the `expected_tool_calls` it should make (only the
   argument keys you list are checked), the `expected_output_contains` substrings, limits.
   `openeval snapshot {trace_name} -o testcase.json` drafts one from a good run.
4. Check the case can fail: `openeval lint {SUITE}`.

Copy this folder once per task. Each folder holding a `testcase.json` and one trace is a case.
""".encode()


def _workflow(action: str) -> bytes:
    return f"""\
# Gate every pull request on the agent evals under {SUITE}/.
# `{action}` is the OpenEval GitHub Action; pin a full version (@v1.2.3) for a gate that
# never changes under you.
name: agent evals

on:
  pull_request:
  push:
    branches: [main]

permissions:
  contents: read

jobs:
  openeval:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: openeval
        uses: {action}
        with:
          suite: {SUITE}
          args: --junit openeval-junit.xml
      - if: ${{{{ !cancelled() }}}}
        uses: actions/upload-artifact@v4
        with:
          name: openeval-results
          path: |
            ${{{{ steps.openeval.outputs.results }}}}
            openeval-junit.xml
""".encode()


def _with_schema(document: bytes, name: str) -> bytes:
    """Return a template's JSON with a first key ``"$schema"`` naming its published schema
    (the templates open with ``{`` and a newline)."""
    if not document.startswith(b"{\n"):
        raise ValueError(f"a template {name} file must open with '{{' and a newline")
    line = f'  "{SCHEMA_KEY}": "{schema_url(name)}",\n'.encode()
    return b"{\n" + line + document[2:]


def init_files(fmt: InitFormat = "native", action: str = ACTION_REF) -> dict[str, bytes]:
    """Return the files of a new suite with one example case in ``fmt``, and its workflow
    (using the Action ``action``), by POSIX path relative to the folder ``openeval init``
    sets up."""
    template = _template(fmt)
    trace_name = next(name for name in sorted(template) if name != "testcase.json")
    written = {f"{SUITE}/openeval.toml": _config()}
    for name, data in sorted(template.items()):
        if name == "testcase.json" or (fmt == "native" and name == trace_name):
            data = _with_schema(data, "testcase" if name == "testcase.json" else "trace")
        written[f"{SUITE}/{CASE}/{name}"] = data
    written[f"{SUITE}/{CASE}/README.md"] = _case_readme(fmt, trace_name)
    written[".github/workflows/openeval.yml"] = _workflow(action)
    return written

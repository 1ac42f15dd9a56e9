"""``openeval init [DIR] [--format F]``: a new suite with one example case, and a workflow.

Writes nothing when any of its files already exists (exit 2, naming the first one), so it is
safe to run in an existing repository. The files come from :mod:`openeval.scaffold`.
"""

from __future__ import annotations

from pathlib import Path

import click

from openeval.cli._common import command, one_line, write_bytes
from openeval.errors import OpenEvalError
from openeval.scaffold import ACTION_REF, INIT_FORMATS, InitFormat


@command()
@click.argument("folder", required=False, default=".", type=click.Path(path_type=Path))
@click.option("--format", "trace_format", type=click.Choice(INIT_FORMATS), default="native",
              show_default=True, help="Format of the example case's trace.")
@click.option("--action", "action", default=ACTION_REF, show_default=True,
              help="The OpenEval GitHub Action the workflow uses (OWNER/REPO@REF).")
def init(folder: Path, trace_format: InitFormat, action: str) -> None:
    """Set up FOLDER (default: here) with evals/ (openeval.toml and one example case) and
    .github/workflows/openeval.yml. Never overwrites a file."""
    from openeval.scaffold import init_files

    if not action or any(c.isspace() or c in "'\"${}" for c in action):
        raise OpenEvalError(f"--action {action!r}: expected OWNER/REPO@REF")
    files = init_files(trace_format, action)
    planned = {folder / relative: data for relative, data in files.items()}
    existing = [path for path in planned if path.exists() or path.is_symlink()]
    if existing:
        raise OpenEvalError("already exists; openeval init never overwrites a file (move it "
                            "away, or set up another folder)", source=existing[0])
    for path, data in planned.items():
        write_bytes(path, data)
    for path in planned:
        click.echo(one_line(f"wrote {path}"))
    click.echo("next: openeval run --suite " + one_line(str(folder / "evals")))
    if action == ACTION_REF:
        click.echo("then: in .github/workflows/openeval.yml, replace OWNER with where the "
                   "OpenEval Action is published (or pass --action OWNER/REPO@REF)")

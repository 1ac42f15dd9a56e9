"""The published copies of the schemas: ``schemas/v2/*.schema.json`` at the repository's root.

The package's schemas (this folder) are what OpenEval applies; the published copies are what an
editor or another tool points at, under stable paths named by version. A copy is its package
schema with one change, its ``$id``, which names the version (``.../schemas/v2/...``), so a
test keeps each copy identical to what :func:`published` makes from the package
(proposals/0192-published-schemas.md). Regenerate them from the repository's root with
``python -m openeval.schemas.publish``.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from pathlib import Path

VERSION = "v2"
"""The generation of the file formats the copies describe (result files' schema_version 2)."""

BASE_URL = "https://openeval.dev/schemas/"
"""Where every schema's ``$id`` lives; the package's own ids sit directly under it."""

PUBLISHED = ("testcase", "trace", "config", "result", "summary")
"""The schemas published, by name: the files people write (test cases, traces, the suite
configuration) and the ones a run writes (a case's result, ``summary.json``)."""

FOLDER = Path("schemas") / VERSION
"""Where the copies live, relative to the repository's root."""


def schema_url(name: str) -> str:
    """Return the versioned ``$id`` of schema ``name``: what ``"$schema"`` keys name."""
    return f"{BASE_URL}{VERSION}/{name}.schema.json"


def published() -> dict[str, bytes]:
    """Return every published copy by its path relative to the repository's root."""
    copies = {}
    for name in PUBLISHED:
        text = files("openeval.schemas").joinpath(f"{name}.schema.json").read_text("utf-8")
        own = f'"$id": "{BASE_URL}{name}.schema.json"'
        if text.count(own) != 1:
            raise ValueError(f"{name}.schema.json: expected one {own}")
        copies[(FOLDER / f"{name}.schema.json").as_posix()] = (
            text.replace(own, f'"$id": "{schema_url(name)}"').encode("utf-8"))
    return copies


def write(root: Path) -> list[Path]:
    """Write the copies under ``root`` (the repository's root); return the paths written."""
    written = []
    for relative, data in published().items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


if __name__ == "__main__":  # pragma: no cover - a maintainer's command, tested through write()
    write(Path(sys.argv[1] if len(sys.argv) > 1 else "."))

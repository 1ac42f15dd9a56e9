"""Guards on the words users read: the package's messages, schemas, report assets, the README
and the examples say "not applicable" one way, "n.a." (the spelling result records use)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
USER_FACING = (ROOT / "openeval", ROOT / "examples", ROOT / "README.md", ROOT / "action.yml")
TEXT_SUFFIXES = {".py", ".json", ".js", ".css", ".html", ".md", ".txt", ".toml", ".yml",
                 ".yaml", ".jinja", ".j2"}
OTHER_SPELLING = re.compile(r"(?<![\w/])n/a(?![\w/])", re.IGNORECASE)


def _text_files() -> list[Path]:
    files: list[Path] = []
    for place in USER_FACING:
        found = [place] if place.is_file() else sorted(place.rglob("*"))
        files += [p for p in found if p.is_file() and p.suffix in TEXT_SUFFIXES
                  and "__pycache__" not in p.parts]
    return files


def test_the_text_is_found() -> None:
    names = {path.name for path in _text_files()}
    assert {"README.md", "models.py", "result.schema.json", "expected.json"} <= names


def test_not_applicable_is_spelled_n_a_everywhere() -> None:
    problems = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for path in _text_files()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if OTHER_SPELLING.search(line)
    ]
    assert not problems, 'write "n.a.", as result records do:\n' + "\n".join(problems)


def test_the_guard_sees_the_other_spelling() -> None:
    assert OTHER_SPELLING.search("metric is n/a here") and OTHER_SPELLING.search("N/A")
    assert not OTHER_SPELLING.search("see docs/n/a.md or an/api or n.a.")

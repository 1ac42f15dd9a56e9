"""The README's table of the GitHub Action's inputs and outputs, generated from action.yml.

``python .ci/action_table.py`` rewrites the table in README.md (between its two
``action-table`` markers); tests/test_action.py fails when the two disagree.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[1]
START = "<!-- action-table:start (generated from action.yml by .ci/action_table.py) -->"
END = "<!-- action-table:end -->"


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render(action: dict[str, Any]) -> str:
    """Return the Markdown table of ``action``'s inputs, then its outputs."""
    lines = ["| | name | default | what it is |", "|---|---|---|---|"]
    for name, spec in action["inputs"].items():
        if spec.get("required"):
            default = "(required)"
        else:
            value = str(spec.get("default", ""))
            default = f"`{value}`" if value else "(empty)"
        lines.append(f"| input | `{name}` | {_cell(default)} | {_cell(spec['description'])} |")
    for name, spec in action["outputs"].items():
        lines.append(f"| output | `{name}` | | {_cell(spec['description'])} |")
    return "\n".join(lines) + "\n"


def load_action(path: Path = ROOT / "action.yml") -> dict[str, Any]:
    found: dict[str, Any] = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return found


def table_in(readme: str) -> str:
    """Return the text between the README's two markers."""
    return readme.split(START + "\n", 1)[1].split(END, 1)[0]


def main() -> int:
    readme_path = ROOT / "README.md"
    readme = readme_path.read_text(encoding="utf-8")
    if START not in readme or END not in readme:
        print(f"README.md holds no {START} ... {END} block", file=sys.stderr)
        return 1
    head, rest = readme.split(START + "\n", 1)
    tail = rest.split(END, 1)[1]
    readme_path.write_text(head + START + "\n" + render(load_action()) + END + tail,
                           encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

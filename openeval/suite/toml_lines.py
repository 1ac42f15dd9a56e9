"""Where each key of a TOML file is written: ``tomllib`` parses values but keeps no positions.

:func:`key_lines` scans the text once and maps every key path to the line it is declared on,
in the same spelling as :func:`openeval.schemas.json_path` (``gates.tool_selection_accuracy``,
``checks[1].threshold``), so an error found in the parsed document can name its line. It reads
tables (``[a.b]``), arrays of tables (``[[checks]]``, counted), dotted and quoted keys, and the
inline tables that open a line of a multi-line array; multi-line strings and arrays are skipped
so their contents never read as keys. It is only ever asked about a file ``tomllib`` accepted,
and it never raises: a path it did not see falls back to its nearest ancestor
(:func:`line_of`). Work is linear in the size of the text.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

MAX_PARTS = 80
"""Parts of a dotted key mapped, at most: a configuration nesting deeper is refused anyway
(``MAX_CONFIG_DEPTH``), and mapping every prefix of a key of a thousand parts on each of
many lines would hold the square of the file's size."""

_LAST_SEGMENT = re.compile(r"(\.[^.\[\]]+|\[[0-9]+\])$")


def _split_key(text: str) -> list[str]:
    """Return the parts of a (dotted, maybe quoted) key: ``a."b.c".d`` -> ``[a, b.c, d]``."""
    parts: list[str] = []
    current = ""
    quote: str | None = None
    i = 0
    while i < len(text):
        ch = text[i]
        if quote is not None:
            if ch == "\\" and quote == '"' and i + 1 < len(text):
                current += text[i + 1]
                i += 2
                continue
            if ch == quote:
                quote = None
            else:
                current += ch
        elif ch in "\"'":
            quote = ch
        elif ch == ".":
            parts.append(current.strip())
            current = ""
        else:
            current += ch
        i += 1
    parts.append(current.strip())
    return parts


def _split_assignment(line: str) -> tuple[str, str] | None:
    """Return ``(key, value text)`` of a ``key = value`` line, or None when it is not one."""
    quote: str | None = None
    for i, ch in enumerate(line):
        if quote is not None:
            if ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "=":
            return line[:i].strip(), line[i + 1:]
        elif ch == "#":
            return None
    return None


def _bracket_depth(text: str) -> int:
    """Return the brackets and braces ``text`` opens minus those it closes, outside strings."""
    depth = 0
    quote: str | None = None
    escaped = False
    for ch in text:
        if quote is not None:
            if escaped:
                escaped = False
            elif ch == "\\" and quote == '"':
                escaped = True
            elif ch == quote:
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch == "#":
            break
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
    return depth


def _opens_multiline_string(value: str) -> str | None:
    """Return the delimiter of a multi-line string that ``value`` opens and leaves open."""
    value = value.lstrip()
    for delimiter in ('"""', "'''"):
        if value.startswith(delimiter) and value.count(delimiter) == 1:
            return delimiter
    return None


class _Scanner:
    def __init__(self) -> None:
        self.lines: dict[str, int] = {}
        self.table = ""
        self.arrays: dict[str, int] = {}  # array-of-tables path -> tables seen so far
        self.string: str | None = None  # open multi-line string delimiter
        self.depth = 0  # brackets left open by a multi-line value
        self.array_key = ""  # the key whose multi-line array is being read
        self.array_items = 0

    def _resolve(self, parts: list[str], record: int | None = None) -> str:
        path = ""
        for part in parts:
            path = f"{path}.{part}" if path else part
            if path in self.arrays:
                path = f"{path}[{self.arrays[path] - 1}]"
            if record is not None:
                self._record(path, record)
        return path

    def _record(self, path: str, number: int) -> None:
        self.lines.setdefault(path, number)

    def line(self, number: int, raw: str) -> None:
        if self.string is not None:
            if self.string in raw:
                self.string = None
            return
        stripped = raw.strip()
        if self.depth > 0:
            if self.depth == 1 and stripped.startswith("{"):
                self._record(f"{self.array_key}[{self.array_items}]", number)
                self.array_items += 1
            self.depth += _bracket_depth(stripped)
            return
        if not stripped or stripped.startswith("#"):
            return
        if stripped.startswith("[["):
            name = stripped[2:stripped.find("]]")] if "]]" in stripped else stripped[2:]
            parts = _split_key(name)[:MAX_PARTS]
            parent = self._resolve(parts[:-1], record=number)
            path = f"{parent}.{parts[-1]}" if parent else parts[-1]
            self.arrays[path] = self.arrays.get(path, 0) + 1
            self.table = f"{path}[{self.arrays[path] - 1}]"
            self._record(path, number)
            self._record(self.table, number)
            return
        if stripped.startswith("["):
            name = stripped[1:stripped.find("]")] if "]" in stripped else stripped[1:]
            # The tables a header creates on its way (``[a.b]`` makes ``a``) are declared here
            # too, unless an earlier line did; an error about one of them then has a line.
            self.table = self._resolve(_split_key(name)[:MAX_PARTS], record=number)
            return
        assignment = _split_assignment(stripped)
        if assignment is None:
            return
        key, value = assignment
        path = self.table
        for part in _split_key(key)[:MAX_PARTS]:
            path = f"{path}.{part}" if path else part
            self._record(path, number)
        self.string = _opens_multiline_string(value)
        if self.string is None:
            self.depth = _bracket_depth(value)
            self.array_key, self.array_items = path, 0


def key_lines(text: str) -> dict[str, int]:
    """Return ``{key path: line number}`` for every key and table declared in ``text``."""
    scanner = _Scanner()
    for number, raw in enumerate(text.splitlines(), 1):
        scanner.line(number, raw)
    return scanner.lines


def line_of(lines: Mapping[str, int], path: str) -> int | None:
    """Return the line of ``path``, else of its nearest ancestor found; None when none is."""
    while path:
        found = lines.get(path)
        if found is not None:
            return found
        trimmed = _LAST_SEGMENT.sub("", path)
        if trimmed == path:
            return None
        path = trimmed
    return None

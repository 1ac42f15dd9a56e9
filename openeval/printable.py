"""Text from an input, made safe to print on one line of a terminal or a CI log.

A trace, a test case or a folder name is the attacker's text in a pull request. Printed raw, a
line break followed by ``::error ...`` forges a GitHub workflow command, ``\\x1b[2J`` clears a
terminal, and a lone surrogate (a file name that is not UTF-8) makes printing raise.
:func:`printable` escapes every control character, line separator and surrogate as a visible
``\\xNN`` / ``\\uNNNN`` sequence and leaves all other text as it is.
"""

from __future__ import annotations

_ESCAPES: dict[int, str] = {
    code: f"\\x{code:02x}" for code in (*range(0x00, 0x20), *range(0x7F, 0xA0)) if code != 0x09
}
_ESCAPES |= {0x2028: "\\u2028", 0x2029: "\\u2029", 0x85: "\\x85"}
_ESCAPES |= {code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)}


def printable(text: str) -> str:
    """Return ``text`` with control characters, line separators and surrogates escaped."""
    if text.isprintable():  # the usual case, without building a new string
        return text
    return text.translate(_ESCAPES)

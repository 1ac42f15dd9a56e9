"""How much one trace file may make OpenEval read and hold: the read limits and their defaults.

Every default is far above what real traces reach and low enough that a hostile file (a
decompression bomb, an endless line, millions of tiny steps) is an error naming the limit, not
an out-of-memory kill. See proposals/0015-io-layer.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from openeval.errors import TraceFormatError
from openeval.jsonio import text_nests_skeleton

if TYPE_CHECKING:
    from openeval.models import AgentTrace

MiB = 1024**2

DEFAULT_MAX_DECOMPRESSED_BYTES = 2 * 1024**3
DEFAULT_MAX_LINE_BYTES = 64 * MiB
DEFAULT_MAX_STEPS = 100_000
DEFAULT_MAX_TEXT_CHARS = 512 * MiB
DEFAULT_MAX_JSON_VALUES = 10_000_000


@dataclass(frozen=True)
class ReadLimits:
    """The limits one trace read is held to; the defaults are the documented ones."""

    max_decompressed_bytes: int = DEFAULT_MAX_DECOMPRESSED_BYTES
    """Most bytes of content read from one file: what a compressed file decompresses to, or
    the size of a plain one (2 GiB; ``--max-decompressed-bytes``)."""
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    """Longest line accepted in a JSON Lines stream (64 MiB; ``--max-line-bytes``)."""
    max_document_bytes: int | None = None
    """Largest file read whole as one JSON document; None means ``max_decompressed_bytes``."""
    max_steps: int = DEFAULT_MAX_STEPS
    """Most steps one trace may hold (100,000; a long agent run makes a few thousand)."""
    max_text_chars: int = DEFAULT_MAX_TEXT_CHARS
    """Most characters of text one trace may hold: its input and final output, its steps'
    content, results and errors, and its messages (512 Mi characters)."""
    max_json_values: int = DEFAULT_MAX_JSON_VALUES
    """Most JSON values in one trace document or JSON Lines line: objects, lists, strings,
    numbers, booleans and nulls, object keys not counted, an empty object or list counted
    twice (10 million). Python holds a value in 8 to 100 bytes, so this bounds what a document
    of tiny values costs, whatever its shape (proposals/0290-json-values-per-document.md)."""

    @property
    def document_bytes(self) -> int:
        """Return the size limit for a whole JSON document."""
        if self.max_document_bytes is not None:
            return self.max_document_bytes
        return self.max_decompressed_bytes

    def document_flag(self) -> str:
        """Return how to raise the document limit: the CLI flag, or the option when it is set."""
        if self.max_document_bytes is not None:
            return "LoadOptions.max_document_bytes"
        return "--max-decompressed-bytes"


class TraceBudget:
    """Counts the steps and text a reader has built so far and stops it at the limits.

    A streaming reader calls :meth:`add` for each step as it builds it, so a file of millions
    of tiny events fails early instead of filling memory.
    """

    def __init__(self, limits: ReadLimits, source: str | Path | None) -> None:
        self.limits = limits
        self.source = source
        self.steps = 0
        self.chars = 0

    def add(self, chars: int, *, steps: int = 1, where: str | None = None) -> None:
        """Count ``steps`` more steps holding ``chars`` characters; raise past a limit."""
        self.steps += steps
        self.chars += chars
        if self.steps > self.limits.max_steps:
            raise TraceFormatError(
                f"more than {self.limits.max_steps} steps in one trace (LoadOptions.max_steps); "
                "expected one agent run, not a flood of events",
                source=self.source,
                location=where,
            )
        if self.chars > self.limits.max_text_chars:
            raise TraceFormatError(
                f"more than {self.limits.max_text_chars} characters of text in one trace "
                "(LoadOptions.max_text_chars)",
                source=self.source,
                location=where,
            )


def json_values(data: bytes | bytearray, limit: int) -> int:
    """Return how many values the JSON text ``data`` holds, counted as
    :attr:`ReadLimits.max_json_values` counts them; when a cheap bound on that count is at
    most ``limit``, return the bound instead.

    A value follows each comma and each opening bracket outside strings, plus the document
    itself (an empty object or list counts two: it costs a container all the same). Commas and
    brackets anywhere bound that from above, so a few C counts settle most documents; only a
    document over the bound is read outside its strings. Each of those is one byte, so a text
    shorter than ``limit`` is settled by its length alone (a usual trace: no count at all).
    """
    if len(data) < limit:
        return 1 + len(data)
    bound = 1 + data.count(b",") + data.count(b"[") + data.count(b"{")
    if bound <= limit:
        return bound
    skeleton = text_nests_skeleton(data, keep=b",")
    return 1 + skeleton.count(b",") + skeleton.count(b"[")


def check_json_values(data: bytes, limits: ReadLimits, source: str | Path | None) -> None:
    """Raise TraceFormatError when the document ``data`` holds more values than ``limits``
    allow, before it is parsed: the parse is where the memory would go."""
    if json_values(data, limits.max_json_values) > limits.max_json_values:
        raise TraceFormatError(
            f"more than {limits.max_json_values:,} JSON values in one document "
            "(LoadOptions.max_json_values); expected one agent run, not a flood of values",
            source=source,
        )


def trace_chars(trace: AgentTrace) -> int:
    """Return the characters of text ``trace`` holds (what ``max_text_chars`` counts)."""
    total = len(trace.input) + len(trace.final_output)
    for step in trace.steps:
        total += len(step.content) + len(step.tool_result or "") + len(step.error or "")
    for message in trace.messages:
        total += len(message.content)
    return total


def check_trace(
    trace: AgentTrace, limits: ReadLimits, source: str | Path | None, *, size: int | None = None
) -> None:
    """Raise TraceFormatError when ``trace`` holds more steps or text than ``limits`` allow.

    Readers that build a whole trace at once are checked here, after the fact; the file-size
    and line limits have already bounded what they could read. ``size`` is the length of the
    JSON text the trace was decoded from, when it was one text: every character of its text
    is at least one byte there, so a text no longer than ``max_text_chars`` needs only its
    steps counted, not a walk of them (proposals/0315-score-read-once-per-line.md).
    """
    steps = len(trace.steps)
    if steps <= limits.max_steps and size is not None and size <= limits.max_text_chars:
        return
    chars = trace_chars(trace)
    if steps <= limits.max_steps and chars <= limits.max_text_chars:
        return  # within both: no budget to build (this runs once per trace read)
    TraceBudget(limits, source).add(chars, steps=steps)


MAX_TOML_LINE_DOTS = 1_000
"""Most dots on one line of TOML parsed: tomllib is quadratic on a long dotted key
(``a.a.a...``, 14 s for 100 KB), and no real key or line of floats needs more."""


def toml_shape_refusal(text: str) -> str | None:
    """Return why ``text`` is not given to the TOML parser (a shape it is slow on), or None."""
    if text.count(".") <= MAX_TOML_LINE_DOTS:
        return None
    for number, line in enumerate(text.splitlines(), 1):
        if line.count(".") > MAX_TOML_LINE_DOTS:
            return (f"line {number} holds {line.count('.'):,} dots, over the "
                    f"{MAX_TOML_LINE_DOTS:,} parsed on one line")
    return None

"""Inspect AI eval logs: the ``.eval`` zip Inspect writes and ``inspect log convert --to json``.

One trace per sample (and epoch). A sample's ``messages`` give the steps, in order:

- an ``assistant`` message is one model turn: its text, and one call per ``tool_calls`` entry
  (``function``, ``arguments`` already an object, or the ``parse_error`` Inspect recorded);
- a ``tool`` message is that call's result (paired by ``tool_call_id``); its ``error``
  (``{"type", "message"}``) is the step's error, and the types Inspect gives a call that never
  ran (``approval``: an approver rejected it; ``parsing``: its arguments did not parse) mark it
  ``denied``, so ``signals`` says ``denials``;
- ``system`` and ``user`` messages make no step; the first user text is the input.

Each model turn's tokens and time come from the sample's ``model`` events, in order, when they
are as many as the turns. The sample's scores, target, epoch and error go to ``metadata``.

The zip is read within the read limits: at most :data:`MAX_MEMBERS` members, each member's and
the sum of their sizes (as stored and as read) at most ``--max-decompressed-bytes``; only
``header.json`` and ``samples/*.json`` are read. See ``proposals/0140-own-json-trace-formats.md``.
"""

from __future__ import annotations

import io
import struct
import zipfile
from collections.abc import Iterator
from typing import Any

from openeval.adapters._chat import content_text
from openeval.adapters._run_steps import AskedCall, RunBuilder
from openeval.adapters._toolkit import Errors, only_trace, optional_str, to_plain, token_counts
from openeval.adapters._values import epoch_seconds
from openeval.adapters.base import TraceSource, apply_given
from openeval.adapters.tool_args import ToolArgs, parse_tool_args
from openeval.errors import TraceFormatError
from openeval.io.zstd import zstd_chunks
from openeval.jsonio import MAX_JSON_DEPTH, dump_json_compact, parse_json
from openeval.models import AgentTrace

ZIP_MAGIC = b"PK\x03\x04"
ZIP_ZSTD = 93
"""The zip compression method of Zstandard, which Inspect writes its members with."""
MAX_MEMBERS = 200_000
"""Most members a ``.eval`` zip may hold (a log has about two per sample)."""
_MEMBER_MARKS = (b"_journal/", b"samples/", b"header.json")
DENIED_ERRORS = frozenset({"approval", "parsing"})
"""Tool error types Inspect gives a call that never ran."""


def from_inspect_log(
    log: Any, *, sample: int | str | None = None, task_id: str | None = None,
    final_output: str = "", input: str | None = None,
    actual_state: dict[str, Any] | None = None, metadata: dict[str, Any] | None = None,
    initial_state: dict[str, Any] | None = None,
) -> AgentTrace:
    """Return the trace of one sample of an Inspect ``EvalLog`` (the object or its JSON).

    ``sample`` picks the sample by id (or by position when an int matches no id); it may be
    left out when the log holds one sample. The keywords replace what the sample says when
    given, as for every ``from_*`` entry point. Raises TraceFormatError naming the place of
    anything malformed, or when the choice of sample is ambiguous.
    """
    errors = Errors(None)
    document = to_plain(log, errors, "")
    document = errors.require_dict(document, "", "an Inspect eval log")
    samples = errors.require_list(document.get("samples"), "samples", "samples")
    index = _pick(samples, sample, errors)
    trace = _sample_trace(samples[index], f"samples[{index}]", document, errors, len(samples))
    if task_id:
        trace.task_id = task_id
    return apply_given(trace, final_output=final_output, input=input,
                       actual_state=actual_state, metadata=metadata,
                       initial_state=initial_state)


def _pick(samples: list[Any], wanted: int | str | None, errors: Errors) -> int:
    if wanted is None:
        if len(samples) != 1:
            raise errors(f"the log holds {len(samples)} samples; say which one with sample=")
        return 0
    for index, item in enumerate(samples):
        if isinstance(item, dict) and item.get("id") == wanted:
            return index
    if isinstance(wanted, int) and 0 <= wanted < len(samples):
        return wanted
    raise errors(f"no sample {wanted!r} in the log", "samples")


class InspectLogAdapter:
    """Reads Inspect AI eval logs, one trace per sample."""

    name = "inspect"
    description = (
        "Inspect AI eval log (.eval zip, or inspect log convert --to json), a trace per sample"
    )

    def refusal(self, source: TraceSource) -> str | None:
        """Return None for an Inspect log (zip with a header, or its JSON), else why not."""
        if source.head.startswith(ZIP_MAGIC):
            # Member names sit in the local headers; Inspect writes its journal and samples
            # first, its header last.
            if any(name in source.head for name in _MEMBER_MARKS):
                return None
            return "a zip without an Inspect log's _journal/, samples/ or header.json"
        document = source.document_or_none()
        if not isinstance(document, dict) or not isinstance(document.get("eval"), dict):
            return "no 'eval' object of an Inspect log"
        if "samples" not in document and "status" not in document:
            return "no 'samples' or 'status' of an Inspect log"
        return None

    def load(self, source: TraceSource) -> AgentTrace:
        """Return the one sample's trace; raise TraceFormatError when the log holds several."""
        return only_trace(
            self.load_many(source), source.path,
            several="holds {count} samples; score them all with openeval score (a trace per "
                    "sample), or read one with from_inspect_log(log, sample=...)",
            empty="the log holds no sample", empty_location="samples",
        )

    def load_many(self, source: TraceSource) -> Iterator[AgentTrace | TraceFormatError]:
        """Yield each sample's trace, or the error reading it (one sample's error never hides
        the others)."""
        errors = Errors(source.path)
        if source.head.startswith(ZIP_MAGIC):
            header, samples = _zip_log(source, errors)
        else:
            header = errors.require_dict(source.document(), "", "an Inspect eval log")
            listed = header.get("samples")
            listed = errors.require_list(listed if listed is not None else [], "samples",
                                         "samples")
            samples = [(f"samples[{i}]", lambda s=s: s) for i, s in enumerate(listed)]
        count = len(samples)
        for location, read in samples:
            try:
                yield _sample_trace(read(), location, header, errors, count)
            except TraceFormatError as exc:
                yield exc


ADAPTER = InspectLogAdapter()


def _zip_log(source: TraceSource, errors: Errors) -> tuple[dict[str, Any], list[Any]]:
    """Return the header and (location, reader) of each sample of a ``.eval`` zip."""
    limit = source.limits.max_decompressed_bytes
    data = b"".join(source.chunks())  # the file's size was checked against the limit
    # Counted from the end record before zipfile reads the directory: it builds an object per
    # member, so a file of millions of empty members would fill memory before any check.
    claimed = _claimed_members(data)
    if claimed is not None and claimed > MAX_MEMBERS:
        raise errors(f"its zip directory claims {claimed} members, over the {MAX_MEMBERS} an "
                     "Inspect log may hold")
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise errors(f"not a readable zip: {exc}") from None
    if len(members) > MAX_MEMBERS:
        raise errors(f"{len(members)} zip members, over the {MAX_MEMBERS} an Inspect log may "
                     "hold")
    declared = sum(member.file_size for member in members)
    if declared > limit:
        raise errors(f"its zip members hold {declared} bytes, over the {limit}-byte limit "
                     "(raise it with --max-decompressed-bytes)")
    budget = [limit]

    def read(member: zipfile.ZipInfo) -> Any:
        wanted = min(member.file_size, budget[0]) + 1
        try:
            if member.compress_type == ZIP_ZSTD:
                stored = _stored_bytes(data, member)
                raw = b"".join(zstd_chunks([stored], f"{source.path}:{member.filename}",
                                           wanted - 1))
            else:
                with archive.open(member) as handle:
                    raw = handle.read(wanted)
        except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError) as exc:
            raise errors(f"cannot read zip member: {exc}", member.filename) from None
        if len(raw) > member.file_size or len(raw) > budget[0]:
            raise errors("zip member larger than it says, or over the read limit",
                         member.filename)
        budget[0] -= len(raw)
        return parse_json(raw, source=f"{source.path}:{member.filename}",
                          error=TraceFormatError, max_depth=MAX_JSON_DEPTH)

    by_name = {member.filename: member for member in members}
    if "header.json" not in by_name:
        raise errors("no header.json in the .eval zip")
    header = errors.require_dict(read(by_name["header.json"]), "header.json", "a log header")
    samples = sorted(
        (m for m in members if m.filename.startswith("samples/") and m.filename.endswith(".json")),
        key=lambda m: m.filename,
    )
    return header, [(m.filename, lambda m=m: read(m)) for m in samples]


def _claimed_members(data: bytes) -> int | None:
    """Return the member count a zip's end record claims (zip64 too); None when there is no
    end record (zipfile then refuses the file)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - _END_SEARCH))
    if end < 0 or len(data) < end + 22:
        return None
    count: int = struct.unpack("<H", data[end + 10:end + 12])[0]
    locator = end - 20
    if count == 0xFFFF and locator >= 0 and data[locator:locator + 4] == b"PK\x06\x07":
        offset: int = struct.unpack("<Q", data[locator + 8:locator + 16])[0]
        record = data[offset:offset + 56]
        if len(record) == 56 and record[:4] == b"PK\x06\x06":
            count = struct.unpack("<Q", record[32:40])[0]
    return count


_END_SEARCH = 22 + 65_535
"""How far from the end a zip's end record may start (its fixed part plus the longest comment)."""


def _stored_bytes(data: bytes, member: zipfile.ZipInfo) -> bytes:
    """Return a member's compressed bytes, read past its local header (Python's zipfile
    before 3.14 cannot decompress the zstd members Inspect writes)."""
    start = member.header_offset
    header = data[start:start + _LOCAL_HEADER]
    if len(header) < _LOCAL_HEADER or header[:4] != ZIP_MAGIC:
        raise zipfile.BadZipFile("bad local header")
    name_length, extra_length = struct.unpack("<HH", header[26:30])
    begin = start + _LOCAL_HEADER + name_length + extra_length
    stored = data[begin:begin + member.compress_size]
    if len(stored) != member.compress_size:
        raise zipfile.BadZipFile("member cut short")
    return stored


_LOCAL_HEADER = 30


def _sample_trace(
    value: Any, location: str, header: dict[str, Any], errors: Errors, count: int
) -> AgentTrace:
    sample = errors.require_dict(value, location, "a sample")
    messages = errors.require_list(sample.get("messages"), f"{location}.messages", "messages")
    builder = RunBuilder()
    denied = False
    for index, message in enumerate(messages):
        at = f"{location}.messages[{index}]"
        message = errors.require_dict(message, at, "a message")
        role = message.get("role")
        if role in ("system", "user"):
            builder.say(role, content_text(message.get("content"), errors, f"{at}.content"))
        elif role == "assistant":
            calls = [_call(call, f"{at}.tool_calls[{n}]", errors)
                     for n, call in enumerate(_list(message.get("tool_calls")))]
            builder.model_turn(
                content_text(message.get("content"), errors, f"{at}.content"), calls,
                model=optional_str(message, "model"),
            )
        elif role == "tool":
            error = message.get("error")
            kind = optional_str(error, "type") if isinstance(error, dict) else None
            text = optional_str(error, "message") if isinstance(error, dict) else None
            refused = kind in DENIED_ERRORS
            denied = denied or refused
            builder.tool_run(
                optional_str(message, "function"), None,
                content_text(message.get("content"), errors, f"{at}.content",
                             placeholders=True),
                error=(f"{kind}: {text}" if kind and text else text or kind) if error else None,
                call_id=optional_str(message, "tool_call_id"), denied=refused,
            )
        else:
            raise errors(f"unknown role {role!r}; expected system, user, assistant or tool",
                         f"{at}.role")
    _model_telemetry(builder, sample, location, errors)
    sample_id = sample.get("id")
    shown_id = sample_id if isinstance(sample_id, (str, int)) else index_of(location)
    epoch = sample.get("epoch")
    task_id = str(shown_id)
    if isinstance(epoch, int) and epoch > 1:
        task_id = f"{task_id}_epoch_{epoch}"
    metadata = _metadata(sample, header, count)
    what = "no message of a model turn, tool or user"
    trace = builder.trace(task_id, errors, what=what, metadata=metadata, signals=["denials"])
    if not any(m.role == "user" for m in trace.messages):
        trace.input = _input_text(sample.get("input"))
    return trace


def index_of(location: str) -> str:
    """Return a sample's place as its id when it has none (``samples[2]`` -> ``sample-2``)."""
    digits = "".join(ch for ch in location if ch.isdigit())
    return f"sample-{digits or 0}"


def _call(value: Any, location: str, errors: Errors) -> AskedCall:
    call = errors.require_dict(value, location, "a tool call")
    name = errors.require_str(call, "function", location)
    arguments = parse_tool_args(call.get("arguments"))
    problem = optional_str(call, "parse_error")
    if problem:
        arguments = ToolArgs(None, arguments.raw or dump_json_compact(call.get("arguments")),
                             f"arguments did not parse: {problem}")
    return AskedCall(name, arguments, optional_str(call, "id"))


def _model_telemetry(
    builder: RunBuilder, sample: dict[str, Any], location: str, errors: Errors
) -> None:
    """Give each model turn the tokens and time of its ``model`` event, when the events and
    the turns are as many (else the pairing would be a guess)."""
    events = [e for e in _list(sample.get("events"))
              if isinstance(e, dict) and e.get("event") == "model"]
    thoughts = [step for step in builder.steps if step.type == "thought"]
    if not events or len(events) != len(thoughts):
        return
    for number, (event, step) in enumerate(zip(events, thoughts, strict=True)):
        at = f"{location}.events(model {number})"
        output = event.get("output")
        usage = output.get("usage") if isinstance(output, dict) else None
        if isinstance(usage, dict):
            step.tokens = token_counts([
                ("input", usage.get("input_tokens")), ("output", usage.get("output_tokens")),
                ("cache_read", usage.get("input_tokens_cache_read")),
                ("cache_write", usage.get("input_tokens_cache_write")),
                ("reasoning", usage.get("reasoning_tokens")),
            ])
        start = epoch_seconds(event.get("timestamp"), errors, f"{at}.timestamp")
        end = epoch_seconds(event.get("completed"), errors, f"{at}.completed")
        if start is not None:
            step.timestamp = start
            for call in builder.steps:
                if call.type == "tool_call" and call.turn == step.turn and not call.timestamp:
                    call.timestamp = start
        if start is not None and end is not None and end >= start:
            step.latency_ms = round((end - start) * 1000.0, 3)
        if isinstance(output, dict) and step.finish_reason is None:
            choices = output.get("choices")
            first = choices[0] if isinstance(choices, list) and choices else None
            if isinstance(first, dict):
                step.finish_reason = optional_str(first, "stop_reason")


def _metadata(sample: dict[str, Any], header: dict[str, Any], count: int) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    found = header.get("eval")
    info: dict[str, Any] = found if isinstance(found, dict) else {}
    for key, name in (("task", "inspect_task"), ("model", "inspect_model"),
                      ("run_id", "inspect_run_id")):
        value = optional_str(info, key)
        if value:
            metadata[name] = value
    if count > 1:
        metadata["inspect_samples"] = count
    for key in ("id", "epoch", "target", "scores", "error", "total_time", "working_time"):
        value = sample.get(key)
        if value is not None:
            metadata[f"inspect_{'sample_id' if key == 'id' else key}"] = value
    return metadata


def _input_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    for message in _list(value):
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, str):
                return content
    return ""


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []

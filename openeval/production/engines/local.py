"""The local engine of ``openeval score``: files read one after the other, rows streamed.

Memory holds one line (or, for OTel/LangSmith files, the traces still open and a line
number per trace of the file) plus the summary, whatever the number of traces. With a
sample, a first pass reads every trace to find the cut (:mod:`.sample`), the second scores.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from openeval.errors import SuiteError
from openeval.production.records import TraceRecord, Unreadable, read_records
from openeval.production.rows import score_record
from openeval.production.sample import BottomK, sample_key

if TYPE_CHECKING:
    from openeval.adapters.base import LoadOptions
    from openeval.production.inputs import ScoreInput
    from openeval.production.plan import ScorePlan


def sample_threshold(items: Iterable[TraceRecord | Unreadable], k: int) -> int | None:
    """Return the cut of a bottom-``k`` sample of the traces in ``items`` (None: keep all)."""
    bottom = BottomK(k)
    for item in items:
        if isinstance(item, TraceRecord):
            bottom.add(sample_key(item.trace_id))
    return bottom.threshold()


def local_records(
    files: Sequence[ScoreInput], *, trace_format: str | None = None,
    options: LoadOptions | None = None,
) -> Iterator[TraceRecord | Unreadable]:
    """Yield the records of ``files`` in order (an input already unreadable, as it is)."""
    for file in files:
        if isinstance(file, Unreadable):
            yield file
        else:
            yield from read_records(file, trace_format=trace_format, options=options)


def local_rows(
    files: Sequence[ScoreInput], plan: ScorePlan, *, sample: int | None = None,
    trace_format: str | None = None, options: LoadOptions | None = None,
) -> Iterator[dict[str, Any]]:
    """Yield one row per record of ``files``, in order, scored by ``plan`` (the ``sample``
    traces with the smallest keys only, when given)."""
    threshold = None
    if sample is not None:
        threshold = sample_threshold(
            local_records(files, trace_format=trace_format, options=options), sample)
    for item in local_records(files, trace_format=trace_format, options=options):
        yield score_record(item, plan, sample_threshold=threshold)


def score_rows(
    files: Sequence[ScoreInput], plan: ScorePlan, *, address: str | None = None,
    sample: int | None = None, trace_format: str | None = None,
    options: LoadOptions | None = None,
) -> Iterator[dict[str, Any]]:
    """The registered ``local`` engine: :func:`local_rows`, refusing a cluster ``address``."""
    if address is not None:
        raise SuiteError(f"--address {address}: a cluster address applies to the ray engine")
    return local_rows(files, plan, sample=sample, trace_format=trace_format, options=options)

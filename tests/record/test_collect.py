"""The receiver's bookkeeping: spans of many traces, in any batching, come out one trace each,
only once the root has come and settled; hostile payloads are refused with the JSON path."""

from __future__ import annotations

import base64

import pytest

from openeval.errors import OpenEvalError
from openeval.record.collect import TraceCollector, hex_id


def _span(trace: int, span: int, parent: int | None) -> dict[str, object]:
    return {"traceId": f"{trace:032x}", "spanId": f"{span:016x}",
            "parentSpanId": f"{parent:016x}" if parent is not None else "", "name": f"s{span}"}


def _request(*spans: dict[str, object], service: str = "agent") -> dict[str, object]:
    resource = {"attributes": [{"key": "service.name", "value": {"stringValue": service}}]}
    return {"resourceSpans": [{"resource": resource,
                               "scopeSpans": [{"scope": {"name": "s"}, "spans": list(spans)}]}]}


def test_interleaved_batches_give_one_trace_each_after_the_root_settles() -> None:
    collector = TraceCollector(settle_seconds=1.0)
    collector.add(_request(_span(1, 2, 1), _span(2, 5, 4)), now=0.0)
    collector.add(_request(_span(1, 1, None), _span(2, 6, 4)), now=0.5)
    assert list(collector.finished(now=1.0)) == []  # trace 1 rooted at 0.5: not settled yet
    done = list(collector.finished(now=1.5))
    assert [(t.trace_id, t.span_count, t.rooted) for t in done] == [(f"{1:032x}", 2, True)]
    assert collector.open_traces == 1  # trace 2 has no root yet
    left = list(collector.drain())
    assert [(t.span_count, t.rooted) for t in left] == [(2, False)]


def test_a_late_span_delays_the_trace() -> None:
    collector = TraceCollector(settle_seconds=1.0)
    collector.add(_request(_span(1, 1, None)), now=0.0)
    collector.add(_request(_span(1, 2, 1)), now=0.9)
    assert list(collector.finished(now=1.5)) == []
    assert [t.span_count for t in collector.finished(now=2.0)] == [2]


def test_spans_keep_their_resource_and_scope() -> None:
    collector = TraceCollector(settle_seconds=0)
    collector.add(_request(_span(1, 2, 1), service="tools"), now=0)
    collector.add(_request(_span(1, 1, None), service="agent"), now=0)
    (trace,) = collector.finished(now=0)
    services = [r["resource"]["attributes"][0]["value"]["stringValue"]
                for r in trace.document["resourceSpans"]]
    assert services == ["tools", "agent"]


def test_base64_ids_from_the_protobuf_mapping_become_hex() -> None:
    raw = bytes(range(16))
    assert hex_id(base64.b64encode(raw).decode(), 16, "x") == raw.hex()
    assert hex_id("AB" * 8, 8, "x") == "ab" * 8


@pytest.mark.parametrize(("payload", "where"), [
    ([], "$"),
    ({"resourceSpans": {"x": 1}}, "$"),
    ({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "zz", "spanId": "00"}]}]}]},
     "resourceSpans[0].scopeSpans[0].spans[0].traceId"),
    ({"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId": "0" * 32, "spanId": 7}]}]}]},
     "resourceSpans[0].scopeSpans[0].spans[0].spanId"),
])
def test_what_is_not_otlp_is_refused_with_its_path(payload: object, where: str) -> None:
    with pytest.raises(OpenEvalError) as raised:
        TraceCollector().add(payload, now=0)
    assert raised.value.location == where

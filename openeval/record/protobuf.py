"""OTLP/HTTP protobuf bodies, decoded into the OTLP JSON the rest of ``record`` reads.

Needs the ``opentelemetry-proto`` package (extra ``openeval-core[record]``), imported only when a
protobuf body arrives: a receiver fed OTLP JSON alone needs nothing beyond the core.
"""

from __future__ import annotations

from typing import Any

from openeval.errors import OpenEvalError

INSTALL = "openeval-core[record]"


def decode_export_request(body: bytes) -> dict[str, Any]:
    """Return an ``ExportTraceServiceRequest`` body as OTLP JSON (ids still base64).

    Raises OpenEvalError when the body is not such a message, or when the extra is missing.
    """
    try:
        from google.protobuf import json_format
        from google.protobuf.message import DecodeError
        from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
            ExportTraceServiceRequest,
        )
    except ImportError:
        raise OpenEvalError(f"a protobuf body needs the opentelemetry-proto package: pip "
                            f"install \"{INSTALL}\" (or send OTLP JSON)") from None
    request = ExportTraceServiceRequest()
    try:
        request.ParseFromString(body)
    except DecodeError as exc:
        raise OpenEvalError(f"not an OTLP ExportTraceServiceRequest: {exc}") from None
    decoded: dict[str, Any] = json_format.MessageToDict(request, use_integers_for_enums=True)
    return decoded

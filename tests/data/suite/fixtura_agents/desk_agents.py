"""Two help-desk agents, as their teams would describe them to Fixtura, and a recorder.

``support`` answers order questions and ``billing`` issues refunds; ``support_v2`` is the
support agent after a change (a new system prompt, a wider ``lookup_order`` schema). Each spec
function is an ``--agent-spec`` / ``agent_spec`` target (``desk_agents:support``).
:func:`record` writes a short Fixtura recording of one agent with Fixtura's own recorder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fixtura.agent_spec import AgentSpec
from fixtura.recorder.recorder import ExecutionRecorder
from fixtura.security.permission_engine import CapabilityToken
from pydantic import BaseModel


class LookupArgs(BaseModel):
    order_id: str


class LookupArgsV2(BaseModel):
    order_id: str
    include_history: bool = False


class RefundArgs(BaseModel):
    order_id: str
    amount: float


class Tool:
    """What Fixtura fingerprints of a tool: its name, flags and input schema."""

    def __init__(self, name: str, schema: type[BaseModel], *, idempotent: bool) -> None:
        self.name = name
        self.schema_cls = schema
        self.is_idempotent = idempotent
        self.is_reversible = idempotent


def _token() -> CapabilityToken:
    token = CapabilityToken()
    token.http.allowed_domains = ["shop.example.com"]
    return token


def _spec(tools: list[Tool], prompt: str) -> AgentSpec:
    return AgentSpec(tools={t.name: t for t in tools}, system_prompt=prompt,
                     capability_token=_token(), policy_root=Path(__file__).parent)


def support() -> AgentSpec:
    """The support agent as recorded."""
    return _spec([Tool("lookup_order", LookupArgs, idempotent=True)],
                 "You answer questions about orders.")


def support_v2() -> AgentSpec:
    """The support agent after a change: new prompt, and lookup_order takes include_history."""
    return _spec([Tool("lookup_order", LookupArgsV2, idempotent=True)],
                 "You answer questions about orders, politely.")


def billing() -> AgentSpec:
    """The billing agent."""
    return _spec([Tool("lookup_order", LookupArgs, idempotent=True),
                  Tool("refund_payment", RefundArgs, idempotent=False)],
                 "You issue refunds within policy.")


def record(path: Path, agent: AgentSpec, tool: str, arguments: dict[str, Any]) -> Path:
    """Record one model turn and one tool call of ``agent`` in ``path`` (a .trace file)."""
    recorder = ExecutionRecorder(path, fingerprint=agent.fingerprint())
    recorder.record_event({
        "event_type": "llm_call", "step_id": "step-000001", "timestamp": 1_800_000_000.0,
        "prompt": "Where is order A-17?", "completion": "", "provider": "openai",
        "model": "gpt-4o", "finish_reason": "tool_calls",
    })
    recorder.record_event({
        "event_type": "tool_call", "step_id": "step-000002", "timestamp": 1_800_000_001.0,
        "tool_name": tool, "arguments": arguments, "permission_decision": "allowed",
        "response": "ok",
    })
    recorder.record_event({
        "event_type": "llm_call", "step_id": "step-000003", "timestamp": 1_800_000_002.0,
        "prompt": "", "completion": "Done.", "provider": "openai", "model": "gpt-4o",
        "finish_reason": "stop",
    })
    return path

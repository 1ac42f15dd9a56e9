"""LangChain: run trees and LangSmith exports (:mod:`.runs`), and message lists (:mod:`.messages`).

One format name, ``langchain``, reads both: a file of runs (``Run.dict()`` with
``child_runs``, a list of root runs, a flat LangSmith export, JSON or JSON Lines), and a
conversation saved as LangChain messages (LangGraph's ``result["messages"]``, bare or as
``{"messages": [...]}``, in ``messages_to_dict`` form, ``model_dump()`` form or ``dumpd``
form). The mapping is in ``proposals/0011-langchain-adapter.md``.
"""

from __future__ import annotations

from openeval.adapters.langchain.adapter import (
    ADAPTER,
    DEFAULT_TASK_ID,
    MESSAGES_KEY,
    LangChainAdapter,
    RunGrouping,
    from_langchain_messages,
    from_langchain_run,
)
from openeval.adapters.langchain.runs import PAYLOAD_KEY, RUN_TYPES, run_tree_document

__all__ = [
    "ADAPTER",
    "DEFAULT_TASK_ID",
    "MESSAGES_KEY",
    "PAYLOAD_KEY",
    "RUN_TYPES",
    "LangChainAdapter",
    "RunGrouping",
    "from_langchain_messages",
    "from_langchain_run",
    "run_tree_document",
]

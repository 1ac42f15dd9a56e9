"""Checks users write in Python, counted exactly like built-in checks
(docs/semantics.md#user-checks).

A test case names one in its ``checks`` list with ``{"code": "checks/refund_rules.py"}``
(a file beside the test case holding a class ``Check`` or a function ``evaluate``),
``{"code": "checks/rules.py:refund_limit"}`` or ``{"code": "mypkg.checks:refund_rule"}``.
The function declares the inputs it wants by name (``types.INPUTS``) and returns a bool, a
number, a :class:`CheckResponse`, a ``(value, explanation)`` tuple, a ``Score`` or ``Scores``.

A code check runs the user's own code, in the OpenEval process, with the user's rights; only a
check entry that names it makes OpenEval run it. Design, loading rules, isolation and time
limits: proposals/0070-code-checks-and-pytest.md. The time limit's default and entry key are
``loader.DEFAULT_TIME_LIMIT`` (5 s) and ``loader.TIME_LIMIT_KEY`` (``time_limit``).
"""

from __future__ import annotations

from openeval.code_checks.call import as_scores, build_inputs, run_code_check
from openeval.code_checks.loader import CodeCheckRef, LoadedCheck, load_check, resolve_reference
from openeval.code_checks.types import CheckResponse, CodeBasedCheck, CodeCheckError, InputName

__all__ = [
    "CheckResponse",
    "CodeBasedCheck",
    "CodeCheckError",
    "CodeCheckRef",
    "InputName",
    "LoadedCheck",
    "as_scores",
    "build_inputs",
    "load_check",
    "resolve_reference",
    "run_code_check",
]

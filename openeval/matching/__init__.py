"""Matching expected tool calls and values against what an agent did.

:mod:`~openeval.matching.matchers` compiles expected values with argument matchers
(``{"$approx": 59.9}``, docs/semantics.md#argument-matchers); :mod:`~openeval.matching.trajectory`
aligns the executed tool calls with the expected ones in one of five modes
(docs/semantics.md#trajectory-matching);
:mod:`~openeval.matching.validate` checks both when a test case file is read.
"""

"""Matching expected tool calls and values against what an agent did.

:mod:`~openeval.matching.matchers` compiles expected values with argument matchers
(``{"$approx": 59.9}``, CONTRACT 6.2); :mod:`~openeval.matching.trajectory` aligns the executed
tool calls with the expected ones in one of five modes (CONTRACT 6.1);
:mod:`~openeval.matching.validate` checks both when a test case file is read.
"""

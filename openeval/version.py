"""The version of OpenEval, in one place (pyproject reads it too)."""

__version__ = "1.0.0.dev0"

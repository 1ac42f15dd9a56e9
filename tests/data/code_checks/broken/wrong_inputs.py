"""Checks whose parameters are not inputs OpenEval knows."""


def evaluate(output, ctx):
    return True


def by_position(*values):
    return True


def positional_only(model_output, /):
    return True

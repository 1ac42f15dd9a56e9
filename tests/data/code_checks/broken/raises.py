"""Checks that raise while they run, directly, in a helper, and inside the standard library."""

import json


def evaluate(tool_calls):
    return tool_calls[0].tool_args["currency"] == "EUR"


def _total(steps):
    return sum(step.tool_args["amount"] for step in steps)


def in_helper(steps):
    return _total(steps) < 100


def in_stdlib(model_output):
    return json.loads(model_output)["ok"]


class PolicyError(Exception):
    def __str__(self):
        raise RuntimeError("cannot describe myself")


def unprintable(model_output):
    raise PolicyError

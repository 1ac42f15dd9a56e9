"""A check file with neither a class Check nor a function evaluate."""


def refund_limit(tool_calls):
    return True


LIMIT = 100

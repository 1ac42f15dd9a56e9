"""A check file whose import fails: it needs a package that is not installed."""

import openeval_no_such_package


def evaluate(model_output):
    return openeval_no_such_package.ok(model_output)

"""A check that returns a verdict on one branch only: on the other it returns None."""


def evaluate(model_output):
    if "voucher" in model_output:
        return False

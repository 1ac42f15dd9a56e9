"""A check file that does not compile: the def line lacks its colon."""

def evaluate(model_output)
    return "refund" in model_output

"""A check that raises KeyboardInterrupt, as Ctrl-C would while it runs."""


def evaluate(model_output):
    raise KeyboardInterrupt

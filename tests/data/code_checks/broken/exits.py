"""Checks that try to end the process."""

import sys


def evaluate(model_output):
    sys.exit(0)


def with_message(model_output):
    sys.exit("refund policy violated")

"""Checks that run too long: one spins forever, one sleeps past any test's time limit."""

import time


def spins(model_output):
    while True:
        pass


def sleeps(model_output):
    time.sleep(1.0)
    return True


def swallows(model_output):
    try:
        while True:
            pass
    except BaseException:
        return True


def ignores_every_stop(model_output):
    while True:
        try:
            while True:
                pass
        except BaseException:
            pass

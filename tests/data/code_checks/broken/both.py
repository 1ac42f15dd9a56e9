"""A check file with both a class Check and a function evaluate: which one runs is unclear."""


class Check:
    @staticmethod
    def evaluate(model_output):
        return True


def evaluate(model_output):
    return False

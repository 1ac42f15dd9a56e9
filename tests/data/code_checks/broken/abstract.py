"""A class Check built on CodeBasedCheck that forgot to define evaluate."""

from openeval.code_checks import CodeBasedCheck


class Check(CodeBasedCheck):
    pass

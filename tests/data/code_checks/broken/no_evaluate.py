"""A class Check without an evaluate method."""


class Check:
    name = "polite"

"""``python -m openeval``: the same command line as the ``openeval`` script."""

from openeval.cli import main

main(prog_name="openeval")

"""``python -m openeval``: the same command line as the ``openeval`` script."""

from openeval.cli import main

if __name__ == "__main__":
    main(prog_name="openeval")

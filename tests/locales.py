"""A Latin-1 locale for the tests that hold output independent of the machine's locale (the
folder it lives in is the ``latin_1_locales`` fixture of tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

LATIN_1 = "en_US.ISO-8859-1"
"""A locale whose filesystem encoding is not UTF-8: what a runner with LANG unset may have."""


def locale_env(locale: str, locales: Path) -> dict[str, str]:
    """The environment of a child process under ``locale`` (found in ``locales``), with
    Python's own UTF-8 modes off so the locale decides the filesystem encoding."""
    return {**os.environ, "LC_ALL": locale, "LOCPATH": str(locales), "PYTHONUTF8": "0",
            "PYTHONCOERCECLOCALE": "0"}

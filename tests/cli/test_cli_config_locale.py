"""``openeval config`` reads the suite root, its files and a case's test case path as UTF-8 under
a Latin-1 locale too, as result names are (tests/production/test_locale_names.py): under
Latin-1, ``suite-€`` was shown as ``suite-â\\x82¬`` before, in the text and in the JSON."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from locales import LATIN_1, locale_env

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "data" / "suites" / "mixed" / "a-good"



def _config(args: list[str], locale: str, locales: Path) -> bytes:
    env = {**locale_env(locale, locales), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "openeval", "config", *args], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_config_names_the_suite_the_same_in_every_locale(
    tmp_path: Path, latin_1_locales: Path, output_format: str
) -> None:
    suite = tmp_path / "suite-€"
    shutil.copytree(GOOD, suite / "ünï-€")
    (suite / "openeval.toml").write_text("max_steps = 30\n")
    args = ["--suite", str(suite), "ünï-€", "--format", output_format]
    utf_8, latin = (_config(args, locale, latin_1_locales) for locale in ("C.UTF-8", LATIN_1))
    assert "suite-€/ünï-€/testcase.json".encode() in utf_8
    if output_format == "json":  # UTF-8 bytes in every locale, as result files are
        assert latin == utf_8
    else:  # the same text in the terminal's encoding (€ has none in Latin-1)
        assert latin == utf_8.decode().encode("latin-1", "backslashreplace")

"""``openeval config`` reads the suite root, its files and a case's test case path as UTF-8 under
a Latin-1 locale too, as result names are (tests/production/test_locale_names.py): under
Latin-1, ``suite-€`` was shown as ``suite-â\\x82¬`` before, in the text and in the JSON."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD = ROOT / "tests" / "data" / "suites" / "mixed" / "a-good"
LATIN_1 = "en_US.ISO-8859-1"


@pytest.fixture(scope="module")
def latin_1(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("locales")
    if shutil.which("localedef") is None:
        pytest.skip("needs localedef to build a Latin-1 locale")
    built = subprocess.run(["localedef", "-i", "en_US", "-f", "ISO-8859-1",
                            str(folder / LATIN_1)], capture_output=True, timeout=120)
    if not (folder / LATIN_1).exists():
        pytest.skip(f"localedef could not build {LATIN_1}: {built.stderr[-200:]!r}")
    yield folder


def _config(args: list[str], locale: str, locales: Path) -> bytes:
    env = {**os.environ, "LC_ALL": locale, "LOCPATH": str(locales), "PYTHONUTF8": "0",
           "PYTHONCOERCECLOCALE": "0", "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "openeval", "config", *args], env=env,
                          capture_output=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.mark.parametrize("output_format", ["text", "json"])
def test_config_names_the_suite_the_same_in_every_locale(
    tmp_path: Path, latin_1: Path, output_format: str
) -> None:
    suite = tmp_path / "suite-€"
    shutil.copytree(GOOD, suite / "ünï-€")
    (suite / "openeval.toml").write_text("max_steps = 30\n")
    args = ["--suite", str(suite), "ünï-€", "--format", output_format]
    utf_8, latin = (_config(args, locale, latin_1) for locale in ("C.UTF-8", LATIN_1))
    assert "suite-€/ünï-€/testcase.json".encode() in utf_8
    if output_format == "json":  # UTF-8 bytes in every locale, as result files are
        assert latin == utf_8
    else:  # the same text in the terminal's encoding (€ has none in Latin-1)
        assert latin == utf_8.decode().encode("latin-1", "backslashreplace")

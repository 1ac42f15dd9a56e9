"""Result files are the same bytes under a UTF-8 and a Latin-1 locale (issue 24, smaller).

Under a Latin-1 filesystem encoding a folder named ``ünï-€`` reached Python as ``Ã¼nÃ¯-â\\x82¬``:
its case id, its result file's name and score's ``file`` column all changed with the machine's
locale. The Latin-1 locale is built with ``localedef`` into a temporary folder (``LOCPATH``).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from locales import LATIN_1, locale_env

GOOD = Path(__file__).resolve().parents[1] / "data" / "suites" / "mixed" / "a-good"



def _openeval(args: list[str], locale: str, locales: Path) -> None:
    env = locale_env(locale, locales)
    code = "import sys; print(sys.getfilesystemencoding())"
    encoding = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=60).stdout.strip()
    assert encoding == ("utf-8" if "UTF" in locale else "iso8859-1")
    done = subprocess.run([sys.executable, "-m", "openeval", *args], env=env,
                          capture_output=True, timeout=120)
    assert b"Traceback" not in done.stderr
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("command", ["run", "score"])
def test_the_same_files_under_a_latin_1_locale(command: str, tmp_path: Path,
                                               latin_1_locales: Path) -> None:
    suite = tmp_path / "suite-€"
    shutil.copytree(GOOD, suite / "ünï-€")
    outputs = []
    for locale in ("C.UTF-8", LATIN_1):
        out = tmp_path / locale
        if command == "run":
            args = ["run", "--suite", str(suite), "--output", str(out)]
        else:
            args = ["score", str(suite / "ünï-€" / "trace.json"), "--output-dir", str(out),
                    "-q"]
        _openeval(args, locale, latin_1_locales)
        outputs.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert outputs[0] == outputs[1]

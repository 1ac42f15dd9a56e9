"""Write the result files of ``run`` and ``score`` on fixed inputs, to compare two builds byte
for byte.

A refactor or a speed-up must not change a single byte of what users gate on. Run this once on
the old build and once on the new, into two folders, then compare them (a ``summary.json``
that only gained ``result_digests`` counts as the same: that key is the one intended change
of proposals/0232)::

    python benchmarks/same_bytes.py /tmp/before           # on the old commit
    python benchmarks/same_bytes.py /tmp/after            # on the new commit
    python benchmarks/same_bytes.py --compare /tmp/before /tmp/after

The inputs: every suite under ``examples/`` (``run --suite``, results and the Markdown report),
a generated suite of ``--cases`` cases (``benchmarks/bench.py``'s generator) and a generated
production export of ``--traces`` traces in five formats (``benchmarks/gen_production.py``),
scored with ``openeval score`` and its default checks. Folder-dependent text (the absolute
paths of the inputs) is the same in both runs because the inputs are generated under a fixed
work folder.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

WORK = Path("/tmp/openeval-same-bytes-inputs")


def _openeval(*args: str) -> int:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"}
    done = subprocess.run(
        [sys.executable, "-m", "openeval", *args], env=env, cwd=ROOT,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
    )
    return done.returncode


def write(out: Path, cases: int, traces: int) -> None:
    """Write every result folder under ``out`` (emptied first)."""
    import bench
    import gen_production

    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    codes: list[str] = []
    for suite in sorted(p for p in (ROOT / "examples").iterdir() if p.is_dir()):
        target = out / "examples" / suite.name
        code = _openeval("run", "--suite", str(suite), "--output", str(target))
        codes.append(f"run examples/{suite.name}: {code}")
        if (target / "summary.json").exists():
            code = _openeval("report", "--input", str(target), "--format", "markdown",
                             "--output", str(target / "report.md"))
            codes.append(f"report examples/{suite.name}: {code}")
    bench.WORK = WORK
    suite = bench.generate(cases, seed=7)
    code = _openeval("run", "--suite", str(suite), "--output", str(out / "generated"))
    codes.append(f"run generated {cases}: {code}")
    production = WORK / f"production-{traces}"
    if not production.exists():
        gen_production.generate(traces, production)
    code = _openeval("score", str(production), "--output", str(out / "score"))
    codes.append(f"score generated {traces}: {code}")
    (out / "exit_codes.txt").write_text("\n".join(codes) + "\n")


def _same_but_digests(before: bytes, after: Path, mapped: bytes) -> bool:
    """True when ``after`` is the summary.json ``before`` was, plus the one intended change:
    ``result_digests`` (proposals/0232-results-written-once.md), each naming its case file's
    true size and SHA-256. ``mapped`` is ``after``'s bytes with folder paths mapped."""
    import hashlib

    import orjson

    if after.name != "summary.json":
        return False
    try:
        old, new = orjson.loads(before), orjson.loads(mapped)
    except orjson.JSONDecodeError:
        return False
    if not isinstance(new, dict) or "result_digests" not in new or "result_digests" in old:
        return False
    digests = new.pop("result_digests")
    if old != new or sorted(digests) != sorted(new.get("result_files", [])):
        return False
    for name, recorded in digests.items():
        data = (after.parent / name).read_bytes()  # the file as written, paths unmapped
        if recorded != {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}:
            return False
    from openeval.jsonio import dump_json

    return dump_json(old) == before


def compare(a: Path, b: Path, mapping: list[tuple[bytes, bytes]] | None = None) -> list[str]:
    """Return the relative paths whose bytes differ (or that only one side has), save a
    summary.json that differs only by the ``result_digests`` it gained. ``mapping`` holds
    ``(b's text, a's text)`` pairs replaced in b's bytes first (the checkouts' folders)."""
    differ: list[str] = []

    def walk(cmp: filecmp.dircmp[str], prefix: str) -> None:
        differ.extend(prefix + name for name in cmp.left_only + cmp.right_only)
        for name in cmp.common_files:
            left, right = Path(cmp.left) / name, Path(cmp.right) / name
            before, after = left.read_bytes(), right.read_bytes()
            for theirs, ours in mapping or ():
                after = after.replace(theirs, ours)
            if before != after and not _same_but_digests(before, right, after):
                differ.append(prefix + name)
        for name, sub in sorted(cmp.subdirs.items()):
            walk(sub, f"{prefix}{name}/")

    walk(filecmp.dircmp(a, b, ignore=[".openeval.lock"]), "")
    return sorted(differ)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", type=Path, nargs="+")
    parser.add_argument("--compare", action="store_true", help="compare two written folders")
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--map", action="append", default=[], metavar="AFTER=BEFORE",
                        help="with --compare: read this text in the second folder's files as "
                             "that (the two checkouts' folders, such as a worktree's and "
                             "main's)")
    args = parser.parse_args()
    if args.compare:
        mapping = [tuple(part.encode() for part in m.split("=", 1)) for m in args.map]
        differ = compare(*args.folders, mapping=mapping)  # type: ignore[arg-type]
        for path in differ:
            print(f"differs: {path}")
        print(f"{len(differ)} files differ")
        sys.exit(1 if differ else 0)
    write(args.folders[0], args.cases, args.traces)
    print((args.folders[0] / "exit_codes.txt").read_text(), end="")


if __name__ == "__main__":
    main()

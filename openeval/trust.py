"""What a run may trust: the opt-in that lets a suite's files run code.

In a pull request the test cases, configuration files and check files are the author's, while
the runner holds secrets. So nothing in them runs code by itself: a check entry's ``code`` and a
test case's (or configuration's) ``agent_spec`` run only when whoever starts the run says so on
the command line, which no file of the pull request can change (proposals/0160-code-opt-in.md).

:class:`CodePolicy` is that word, carried by :class:`~openeval.adapters.base.LoadOptions` to
every process that reads and scores a case:

- ``files``: check files may run, when they lie inside ``root`` (links resolved), the suite
  folder in a suite run (``--allow-code``);
- ``modules``: ``package.module:name`` entries and agent specs may import these modules and
  their submodules, and nothing else (``--allow-code-module NAME``, repeatable).

The default refuses both. The Python API that scores a case the caller built in code
(``openeval.testing.assert_case``) uses :data:`TRUSTED`: the caller's own code is already
running.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

ALLOW_CODE_FLAG = "--allow-code"
"""The flag that lets check files inside the suite run."""
ALLOW_MODULE_FLAG = "--allow-code-module"
"""The flag that lets one module (and its submodules) be imported by code entries and agent
specs."""


@dataclass(frozen=True)
class CodePolicy:
    """Which user code a run may run; picklable, so every engine's workers carry it."""

    files: bool = False
    """Check files may run (only inside ``root`` when it is set)."""
    modules: tuple[str, ...] = ()
    """Modules (with their submodules) that code entries and agent specs may import."""
    root: str | None = None
    """The folder check files must lie in, links resolved; None: anywhere (the Python API)."""
    any_module: bool = False
    """Every module may be imported (the Python API only; no flag gives it)."""

    def file_refusal(self, file: str) -> str | None:
        """Return why the check file ``file`` may not run here; None when it may."""
        if not self.files:
            return (f"runs the code in {file}; code checks run only when the run is started "
                    f"with {ALLOW_CODE_FLAG} (pytest: --openeval{ALLOW_CODE_FLAG[1:]})")
        if self.root is None:
            return None
        real = os.path.realpath(file)
        root = self.root
        if real == root or real.startswith(root.rstrip(os.sep) + os.sep):
            return None
        return (f"names the check file {file}, which lies outside {root} (links resolved); "
                "check files are run only from inside the suite folder")

    def module_refusal(self, module: str) -> str | None:
        """Return why importing ``module`` is not allowed; None when it is."""
        if self.any_module:
            return None
        for allowed in self.modules:
            if module == allowed or module.startswith(allowed + "."):
                return None
        named = ", ".join(self.modules) if self.modules else "none"
        return (f"imports module {module!r}, which this run does not allow (allowed: {named}); "
                f"start the run with {ALLOW_MODULE_FLAG} {module.partition('.')[0]} (pytest: "
                f"--openeval{ALLOW_MODULE_FLAG[1:]}) to let it run")

    def confined_to(self, root: str | None) -> CodePolicy:
        """Return this policy with check files confined to ``root`` (resolved); None lifts it."""
        real = None if root is None else os.path.realpath(root)
        return CodePolicy(self.files, self.modules, real, self.any_module)


REFUSE_ALL = CodePolicy()
"""No user code runs: what a run gets without a flag."""

TRUSTED = CodePolicy(files=True, any_module=True)
"""Every check file and module may run: the caller's own Python code asked for it."""

"""openeval-core 0.2.1's Python API, kept working as deprecated shims, all in one corner.

Real clients call it: fixtura 2.0.1's ``fixtura eval`` imports ``openeval.runner.run_eval``,
and teams wrote ``run_suite(path, [metric objects])`` and subclasses of ``BaseMetric``. Each
shim warns with a :class:`DeprecationWarning` naming its replacement and returns what 0.2.1
returned. The old import paths (``openeval.runner``, ``openeval.metrics.BaseMetric``,
``openeval.legacy``, ``openeval.deprecation``) re-export these objects. The migration is in
the README ("Moving from openeval-core 0.2.1").

- :mod:`.legacy`: ``run_eval``, ``run_suite_021`` and the wrapper that gives today's
  ``run_suite`` its 0.2.1 form;
- :mod:`.metric`: ``BaseMetric``;
- :mod:`.deprecation`: the warning and 0.2.1's display names of metrics.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from openeval.lazy import lazy_exports

_LAZY: dict[str, str] = {
    "BaseMetric": "openeval.compat.metric",
    "ScoresATrace": "openeval.compat.legacy",
    "deprecated": "openeval.compat.deprecation",
    "display_name": "openeval.compat.deprecation",
    "run_eval": "openeval.compat.legacy",
    "run_suite_021": "openeval.compat.legacy",
}

if TYPE_CHECKING:
    from openeval.compat.deprecation import deprecated, display_name
    from openeval.compat.legacy import ScoresATrace, run_eval, run_suite_021
    from openeval.compat.metric import BaseMetric

__all__ = [
    "BaseMetric",
    "ScoresATrace",
    "deprecated",
    "display_name",
    "run_eval",
    "run_suite_021",
]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY, __all__)

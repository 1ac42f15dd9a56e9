"""Old import path of the Ray engine, :mod:`openeval.production.engines.ray`.

The README's ``openeval.distributed.ray.score_dataset`` keeps working: this name is bound to
that very module (not a copy of its names), so patching or pickling through either path
reaches the same functions. Importing it loads no Ray.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from openeval.production.engines import ray as _engine

if TYPE_CHECKING:  # what type checkers see here; at run time the name is the module itself
    from openeval.production.engines.ray import (
        CONNECT_TIMEOUT_S,
        RESULT_COLUMNS,
        result_rows,
        score_dataset,
        score_rows,
    )

__all__ = ["CONNECT_TIMEOUT_S", "RESULT_COLUMNS", "result_rows", "score_dataset", "score_rows"]

sys.modules[__name__] = _engine

"""Old import path of the Ray engine, :mod:`openeval.production.engines.ray`.

The README's ``openeval.distributed.ray.score_dataset`` keeps working: this name is bound to
that very module (not a copy of its names), so patching or pickling through either path
reaches the same functions. Importing it loads no Ray.
"""

from __future__ import annotations

import sys

from openeval.production.engines import ray as _engine

sys.modules[__name__] = _engine

"""The old home of openeval-core 0.2.1's shims; they live in :mod:`openeval.compat.legacy`."""

from __future__ import annotations

from openeval.compat.legacy import ScoresATrace as ScoresATrace
from openeval.compat.legacy import run_eval as run_eval
from openeval.compat.legacy import run_suite_021 as run_suite_021

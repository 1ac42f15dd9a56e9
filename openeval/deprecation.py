"""The old home of the 0.2.1 deprecation helpers; they live in
:mod:`openeval.compat.deprecation`."""

from __future__ import annotations

from openeval.compat.deprecation import deprecated as deprecated
from openeval.compat.deprecation import display_name as display_name

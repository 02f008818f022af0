"""How long the app waits for something that may come back: a database another process
has locked, a model server that refused or could not be reached.

The waits are the app's own (the constants next to each); ``ASSISTA_WAIT_SCALE`` (a
number above 0 and at most 1) shortens every one of them by that factor, so the same
retries run in milliseconds: the tests use it to go through the whole schedule without
waiting seconds for it. Anything else (unset, not a number, above 1) leaves them as
they are.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping

WAIT_SCALE_VARIABLE = "ASSISTA_WAIT_SCALE"


def wait_scale(environ: Mapping[str, str] | None = None) -> float:
    """The factor for every retry wait and busy timeout: 1.0 unless shortened."""
    raw = (os.environ if environ is None else environ).get(WAIT_SCALE_VARIABLE, "")
    try:
        scale = float(raw)
    except ValueError:
        return 1.0
    return scale if math.isfinite(scale) and 0 < scale <= 1 else 1.0


def scaled(seconds: float, environ: Mapping[str, str] | None = None) -> float:
    return seconds * wait_scale(environ)

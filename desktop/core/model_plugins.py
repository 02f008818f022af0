"""No pydantic plugins in the app's own process.

pydantic looks for plugins (the ``pydantic`` entry-point group) when it makes its first
model: it reads the metadata of every installed distribution (~160 in a development
environment, 67 in the bundle), 5-10 ms of every start before a question typed at once
can be sent (tests/bench/bench_shipped_startup.py). And a plugin found there (an observability
package's, say) would see every message and setting the app validates: the user's
chats, which stay on this machine.

So the app runs its models without them, with pydantic's own switch
(``PYDANTIC_DISABLE_PLUGINS``), set in ``os.environ`` only: the C environment, which
the processes the app starts inherit, stays as the user started the app (the same split
as :mod:`desktop.tools.process_guard`), so a program the model runs or an MCP server
keeps the user's own plugins. A value the user set is left as it is.
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping

VARIABLE = "PYDANTIC_DISABLE_PLUGINS"


def keep_plugins_out(environ: MutableMapping[str, str] | None = None) -> bool:
    """Switch pydantic's plugins off for this process (before its first model); False
    when the user's environment already says what to do with them."""
    env = os.environ if environ is None else environ
    if VARIABLE in env:
        return False
    env[VARIABLE] = "__all__"
    if environ is None:
        os.unsetenv(VARIABLE)  # (the C environment only: os.environ keeps the value)
    return True

"""Which environment variables hold secrets (API keys, tokens, passwords).

:func:`looks_secret` is broad: a command the model runs gets none of these (see
:mod:`desktop.tools.builtins._cmdenv`). :func:`holds_secret_value` is the narrower set
the app removes from its own environment block at start (see
:mod:`desktop.tools.process_guard`): it keeps what libraries read from the C environment
to reach the desktop (D-Bus and session addresses, agent sockets).
"""

from __future__ import annotations

import re

_SECRET = re.compile(
    r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|COOKIE|SESSION|PRIVATE|"
    r"SIGNATURE|DSN|CONNECTION_STRING|DATABASE_URL)(_|$)|^AWS_|^AZURE_|^GCP_|^GOOGLE_|"
    r"^GH_|^GITHUB_|^ASSISTA_|^OPENAI|^ANTHROPIC|^GEMINI|^OPENROUTER|^SSH_AUTH_SOCK$|"
    r"^GPG_AGENT|^KUBECONFIG$|^NPM_CONFIG_.*AUTH|^DOCKER_AUTH",
)
# Secret-looking names that are addresses the desktop libraries need, not secrets.
_DESKTOP = re.compile(r"^(XDG_.*|DBUS_.*|DESKTOP_SESSION|SESSION_MANAGER|KDE_SESSION_.*|"
                      r"GNOME_DESKTOP_SESSION_ID|SSH_AUTH_SOCK|GPG_AGENT_INFO|KUBECONFIG)$")


def looks_secret(name: str) -> bool:
    """True for names like ``*_API_KEY``, ``*_TOKEN``, ``*_PASSWORD``, ``AWS_*``."""
    upper = name.upper()
    return bool(_SECRET.search(upper)) and upper != "PWD"


def holds_secret_value(name: str) -> bool:
    """True for the secret-looking names that are not desktop session addresses."""
    return looks_secret(name) and not _DESKTOP.match(name.upper())

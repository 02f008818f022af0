"""Assista Desktop: a native desktop chat client for large language models."""

from __future__ import annotations

import sys

# httpx's own command line (``httpx._main``: click, Pygments' lexers and rich when they are
# installed) is never used here, and httpx imports it whenever it can: ~13 ms of every
# start. A None in sys.modules makes that import fail, and httpx then defines a ``main``
# that says its command line is not installed (tests/test_http_client_factory.py).
sys.modules.setdefault("httpx._main", None)  # type: ignore[arg-type]

APP_NAME = "Assista"
APP_ID = "assista-desktop"


def __getattr__(name: str) -> str:
    # ``__version__`` is read from the installed metadata on first use: importing
    # importlib.metadata costs ~20 ms, which the window's start should not pay.
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            value = version("assista-desktop")
        except PackageNotFoundError:  # running from a source tree without installing
            value = "0.0.0+source"
        globals()["__version__"] = value
        return value
    raise AttributeError(f"module 'desktop' has no attribute {name!r}")

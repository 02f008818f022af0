"""One TLS context for the providers' HTTPS clients, made once per process.

httpx makes a new SSL context for every client, reading the whole CA bundle (about
150 certificates: 15-20 ms here, 50 ms and more on a busy machine) each time — for
the model list right after the window is filled in, and for each provider's client.
:func:`shared_context` makes it once per choice of certificates and hands out the
same one; the window makes it as a loading step (desktop/gui/), before
it is filled in. An ``SSLContext`` may serve several clients and threads at once.

The certificates are those httpx would choose: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR``
when the client honours the environment (``trust_env``), else certifi's bundle.
"""

from __future__ import annotations

import functools
import os
import ssl


def shared_context(trust_env: bool = True) -> ssl.SSLContext:
    if trust_env and os.environ.get("SSL_CERT_FILE"):
        return _context(os.environ["SSL_CERT_FILE"], None)
    if trust_env and os.environ.get("SSL_CERT_DIR"):
        return _context(None, os.environ["SSL_CERT_DIR"])
    import certifi

    return _context(certifi.where(), None)


@functools.lru_cache(maxsize=8)
def _context(cafile: str | None, capath: str | None) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=cafile, capath=capath)

"""A loopback ``socketserver`` served on a daemon thread, and stopped at once.

``serve_forever`` looks at its stop flag only between polls of its socket, so
``shutdown()`` alone waits for the poll to time out: on average half the poll
interval, for every server every test stops. :func:`stop` sets the flag and then
connects once, which ends the poll at once (the server reads an empty request and
closes it)."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import threading

#: How long a poll lasts when nothing wakes it (a stop from elsewhere still ends).
POLL_S = 0.05


def serve(server: socketserver.BaseServer, name: str = "loopback server") -> threading.Thread:
    """Serve ``server`` on a daemon thread, started."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": POLL_S},
                              name=name, daemon=True)
    thread.start()
    return thread


def stop(server: socketserver.BaseServer, thread: threading.Thread | None = None) -> None:
    """Stop serving, close the socket and join ``thread``."""
    stopping = threading.Thread(target=server.shutdown, name="loopback stop", daemon=True)
    stopping.start()
    address = server.server_address
    while stopping.is_alive():  # (the first wake may come before the flag is set)
        if isinstance(address, tuple):
            with contextlib.suppress(OSError):
                socket.create_connection(address[:2], timeout=1).close()
        stopping.join(POLL_S / 5)
    server.server_close()
    if thread is not None:
        thread.join(timeout=5)

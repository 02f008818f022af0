"""Which addresses ``fetch_url`` may connect to: public unicast only, unless allowed.

A model that reads a web page can be told by that page to fetch
``http://169.254.169.254/`` or ``http://localhost:8080/admin`` (server-side request
forgery). So every connection ``fetch_url`` makes is checked *where it is made*: the
name is resolved here, every address it resolves to must be globally routable
unicast, and the connection goes to the address that was checked (a name that
resolves to a public address for the check and to 127.0.0.1 for the connection --
DNS rebinding -- cannot slip through). Redirects open new connections, so each hop
is checked the same way.

Resolving through the system resolver also decodes every legacy notation the
connection itself would accept (``2130706433``, ``0x7f.1``, ``0177.0.0.1``, ``0``);
IPv6 forms that carry an IPv4 address (``::ffff:127.0.0.1``, 6to4, NAT64, Teredo)
are judged by that address.

With a proxy the proxy resolves the name, so only what the URL says literally can be
checked: :func:`literal_refusal` refuses private address literals in any notation and
``localhost`` names before the request is sent.

The user's allow-list (Settings -> Tools, ``fetch_allow_hosts``) takes host names
(``intranet.example``), suffixes (``.corp.example``), addresses and networks
(``127.0.0.1``, ``10.0.0.0/8``).
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Iterable
from typing import Any, cast

import httpx

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")


class BlockedAddress(Exception):
    """The host is (or resolves to) an address fetch_url does not reach."""

    def __init__(self, host: str, address: str) -> None:
        self.host = host
        self.address = address
        shown = host if host == address else f"{host} ({address})"
        super().__init__(
            f"{shown} is a local, private or otherwise non-public address; fetch_url does not "
            "reach those unless the user adds the host to the fetch allow-list in "
            "Settings -> Tools."
        )


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    packed = int(address)
    if packed >> 32 == 0 and packed > 1:  # deprecated IPv4-compatible ::a.b.c.d
        return ipaddress.IPv4Address(packed)
    return None


def is_public(address: IPAddress) -> bool:
    """Globally routable unicast (an embedded IPv4 address judged by itself)."""
    if isinstance(address, ipaddress.IPv6Address):
        if address in _NAT64_LOCAL:
            return False
        inner = _embedded_ipv4(address)
        if inner is not None:
            return is_public(inner)
    return address.is_global and not address.is_multicast


def parse_literal(host: str) -> IPAddress | None:
    """The address a host written as an address means, in any notation the C library
    accepts (dotted, one integer, hex, octal, shortened like ``127.1``); None for names."""
    text = host.strip().strip("[]").rstrip(".")
    if "%" in text:  # fe80::1%eth0: the zone does not change what the address is
        text = text.split("%", 1)[0]
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        pass
    if not text or any(c not in "0123456789abcdefxABCDEFX." for c in text):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(text))
    except OSError:
        return None


class AllowList:
    """Hosts the user lets fetch_url reach even when they are private."""

    def __init__(self, entries: Iterable[str] = ()) -> None:
        self.names: set[str] = set()
        self.suffixes: list[str] = []
        self.networks: list[ipaddress.IPv4Network | ipaddress.IPv6Network] = []
        for raw in entries:
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            try:
                self.networks.append(ipaddress.ip_network(entry.strip("[]"), strict=False))
                continue
            except ValueError:
                pass
            if entry.startswith("."):
                self.suffixes.append(entry)
            else:
                self.names.add(entry)

    def allows(self, host: str, address: IPAddress | None = None) -> bool:
        name = host.strip("[]").lower().rstrip(".")
        if name in self.names or any(name.endswith(s) for s in self.suffixes):
            return True
        literal = parse_literal(name)
        for candidate in (literal, address):
            if candidate is not None and any(candidate in net for net in self.networks):
                return True
        return False


def is_local_name(host: str) -> bool:
    name = host.lower().rstrip(".")
    return name == "localhost" or name.endswith(".localhost")


def literal_refusal(host: str, allow: AllowList) -> BlockedAddress | None:
    """Why ``host`` as written may not be fetched (None: it may, as far as the text
    says); used before every request, and the only check possible through a proxy."""
    if allow.allows(host):
        return None
    if is_local_name(host):
        return BlockedAddress(host, "loopback")
    literal = parse_literal(host)
    if literal is not None and not is_public(literal):
        return BlockedAddress(host, str(literal))
    return None


async def resolve_checked(host: str, port: int, allow: AllowList) -> str:
    """The address to connect to for ``host``: every address it resolves to must be
    public (or the host allowed); BlockedAddress otherwise."""
    refusal = literal_refusal(host, allow)
    if refusal is not None:
        raise refusal
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = [parse_literal(str(info[4][0])) for info in infos]
    chosen: str | None = None
    for address in addresses:
        if address is None:
            continue
        if not is_public(address) and not allow.allows(host, address):
            raise BlockedAddress(host, str(address))
        chosen = chosen or str(address)
    if chosen is None:
        raise OSError(f"{host} did not resolve to an address")
    return chosen


class GuardedBackend:
    """An httpcore network backend that resolves and checks before connecting."""

    def __init__(self, inner: Any, allow: AllowList) -> None:
        self.inner = inner
        self.allow = allow

    async def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                          local_address: str | None = None,
                          socket_options: Iterable[Any] | None = None) -> Any:
        address = await resolve_checked(host, port, self.allow)
        return await self.inner.connect_tcp(address, port, timeout=timeout,
                                            local_address=local_address,
                                            socket_options=socket_options)

    async def connect_unix_socket(self, *args: Any, **kwargs: Any) -> Any:
        raise BlockedAddress("unix socket", "unix socket")

    async def sleep(self, seconds: float) -> None:
        await self.inner.sleep(seconds)


def guarded_transport(allow: AllowList) -> Any:
    """An ``httpx.AsyncHTTPTransport`` whose every direct connection is checked."""
    transport = httpx.AsyncHTTPTransport()
    pool = transport._pool  # httpcore.AsyncConnectionPool: the backend is not a parameter
    pool._network_backend = cast(Any, GuardedBackend(pool._network_backend, allow))
    return transport


__all__ = ["AllowList", "BlockedAddress", "guarded_transport", "is_public", "literal_refusal",
           "parse_literal", "resolve_checked"]

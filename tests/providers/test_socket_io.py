"""The stream thread's sockets (desktop.providers.socket_io): a provider's stream is read
with the loop backend, over plain HTTP and over TLS from two servers we did not write
(Python's ``ssl`` and nginx's OpenSSL), through a CONNECT proxy, with the same events,
errors and timeouts as httpx's own (anyio) backend gives; bytes that have arrived are
read without a step of the loop, and a read waiting for a silent server is cancelled
at once."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest

from desktop.core.events import EndEvent, ErrorEvent, StreamEvent, TextDelta
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest
from desktop.core.proxy import Proxy
from desktop.providers.openai_chat import OpenAIChatProvider
from desktop.providers.retry import RetryPolicy
from desktop.providers.socket_io import LoopBackend, _SocketStream
from tests.support.async_proxy import StreamingProxy
from tests.support.nginx_tls import NginxTLSFront, needs_nginx
from tests.support.openai_server import FakeOpenAIServer, ScriptedResponse, text_stream
from tests.support.pproxy_server import PProxy
from tests.support.tls_certs import Certs, make_certs

REQUEST = ChatRequest(model="gpt-test", messages=[Message.user("hi")])
LONG = "".join(f"Line {i}: the quick brown fox jumps over the lazy dog.\n" for i in range(4000))


@pytest.fixture
def certs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Certs:
    made = make_certs(tmp_path / "certs")
    monkeypatch.setenv("SSL_CERT_FILE", str(made.ca))  # what the app's clients trust
    return made


@pytest.fixture
def plain() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


class TLSServer:
    """The fake's answers over HTTPS: ``url`` is where a client connects."""

    def __init__(self, fake: FakeOpenAIServer, url: str) -> None:
        self.fake, self.url = fake, url


@pytest.fixture(params=["python-ssl", pytest.param("nginx", marks=needs_nginx)])
def tls_server(request: pytest.FixtureRequest, certs: Certs,
               tmp_path: Path) -> Iterator[TLSServer]:
    if request.param == "python-ssl":
        with FakeOpenAIServer(tls=certs.server_context()) as fake:
            yield TLSServer(fake, fake.url)
        return
    with FakeOpenAIServer() as fake:
        front = NginxTLSFront(fake.port, certs, tmp_path / "nginx")
        try:
            yield TLSServer(fake, front.url)
        finally:
            front.stop()


async def read_all(provider: OpenAIChatProvider) -> list[StreamEvent]:
    try:
        return [event async for event in provider.stream(REQUEST)]
    finally:
        await provider.aclose()


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def app_provider(url: str, **kwargs: object) -> OpenAIChatProvider:
    """As the app makes it: it owns its client, so it reads on the stream thread."""
    return OpenAIChatProvider(f"{url}/v1", "sk-test", retry=RetryPolicy.disabled(),
                              **kwargs)  # type: ignore[arg-type]


def anyio_provider(url: str, client: httpx.AsyncClient) -> OpenAIChatProvider:
    """The same, on a client httpx made with its own backend (read on this loop)."""
    return OpenAIChatProvider(f"{url}/v1", "sk-test", retry=RetryPolicy.disabled(),
                              client=client)


async def test_the_stream_thread_reads_with_the_loop_backend(plain: FakeOpenAIServer) -> None:
    plain.enqueue_text("hello")
    with StreamingProxy() as proxy:
        provider = app_provider(plain.url, proxy=Proxy(proxy.url, no_proxy="example.org"))
        events = [event async for event in provider.stream(REQUEST)]
        client = provider._thread_client
        assert client is not None
        transports = [client._transport, *client._mounts.values()]
        pools = [t.inner._pool for t in transports if t is not None]  # type: ignore[attr-defined]
        await provider.aclose()
    assert text_of(events) == "hello"
    assert len(pools) >= 2  # the proxy's and the direct one (the bypassed host)
    assert all(isinstance(pool._network_backend, LoopBackend) for pool in pools)


async def test_an_answer_streams_over_tls_as_with_httpx_own_backend(
        tls_server: TLSServer, certs: Certs) -> None:
    for _ in range(2):
        tls_server.fake.enqueue(ScriptedResponse(chunks=text_stream(LONG, chunk_size=97)))
    ours = await read_all(app_provider(tls_server.url))
    async with httpx.AsyncClient(verify=certs.client_context()) as client:
        theirs = await read_all(anyio_provider(tls_server.url, client))
    assert text_of(ours) == LONG  # ~230 KB: many TLS records, reads split across them
    assert isinstance(ours[-1], EndEvent)
    assert ours[-1] == theirs[-1]


async def test_one_connection_serves_the_next_answer_too(tls_server: TLSServer) -> None:
    tls_server.fake.enqueue_text("first")
    tls_server.fake.enqueue_text("second")
    provider = app_provider(tls_server.url)
    try:
        first = [event async for event in provider.stream(REQUEST)]
        second = [event async for event in provider.stream(REQUEST)]
    finally:
        await provider.aclose()
    assert (text_of(first), text_of(second)) == ("first", "second")
    if tls_server.fake.tls is not None:  # (nginx opens its own to the fake)
        ports = {request.client_port for request in tls_server.fake.chat_requests}
        assert len(ports) == 1


async def test_an_untrusted_certificate_is_refused_as_with_httpx_own_backend(
        tls_server: TLSServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE")  # the usual CA bundle: not our test authority
    ours = await read_all(app_provider(tls_server.url))
    async with httpx.AsyncClient() as client:
        theirs = await read_all(anyio_provider(tls_server.url, client))
    for events in (ours, theirs):
        assert len(events) == 1 and isinstance(events[0], ErrorEvent)
        assert events[0].code == "connection_error"
        assert "CERTIFICATE_VERIFY_FAILED" in events[0].message
    assert tls_server.fake.chat_requests == []


async def test_https_through_a_connect_proxy(certs: Certs) -> None:
    with FakeOpenAIServer(tls=certs.server_context()) as fake, StreamingProxy() as proxy:
        fake.enqueue_text("through the tunnel")
        events = await read_all(app_provider(fake.url, proxy=Proxy(proxy.url)))
        assert proxy.seen == [f"CONNECT 127.0.0.1:{fake.port}"]
    assert text_of(events) == "through the tunnel"


async def test_a_silent_server_stalls_into_the_same_timeout(tls_server: TLSServer,
                                                            certs: Certs) -> None:
    for _ in range(2):
        tls_server.fake.enqueue(ScriptedResponse(chunks=text_stream("Hello there", chunk_size=5),
                                                  hold_after=2))
    ours = await read_all(app_provider(tls_server.url, timeout=0.5))
    async with httpx.AsyncClient(verify=certs.client_context(),
                                 timeout=httpx.Timeout(0.5)) as client:
        provider = anyio_provider(tls_server.url, client)
        provider.timeout = 0.5
        theirs = await read_all(provider)
    assert text_of(ours) == text_of(theirs) == "Hello"
    assert isinstance(ours[-1], ErrorEvent) and ours[-1].code == "timeout"
    assert ours[-1].message == theirs[-1].message
    assert "the stream stalled: no data received for 0.5 s" in ours[-1].message


@pytest.fixture
async def pair() -> AsyncIterator[tuple[_SocketStream, socket.socket]]:
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    stream = _SocketStream(ours)
    yield stream, theirs
    await stream.aclose()
    theirs.close()


async def test_bytes_that_arrived_are_read_without_a_step_of_the_loop(
        pair: tuple[_SocketStream, socket.socket], monkeypatch: pytest.MonkeyPatch) -> None:
    stream, theirs = pair
    loop = asyncio.get_running_loop()
    waits: list[int] = []
    sock_recv = loop.sock_recv

    async def counted(sock: socket.socket, size: int) -> bytes:
        waits.append(size)
        return await sock_recv(sock, size)

    monkeypatch.setattr(loop, "sock_recv", counted)
    theirs.sendall(b"data: one\n\n")
    theirs.sendall(b"data: two\n\n")
    assert await stream.read(65536, timeout=1.0) == b"data: one\n\ndata: two\n\n"
    assert waits == []
    reading = asyncio.ensure_future(stream.read(65536, timeout=5.0))
    await asyncio.sleep(0)
    theirs.sendall(b"data: three\n\n")
    assert await reading == b"data: three\n\n"
    assert waits == [65536]  # nothing had arrived: it waited on the loop


async def test_a_read_waiting_for_a_silent_server_is_cancelled_at_once(
        pair: tuple[_SocketStream, socket.socket]) -> None:
    stream, theirs = pair
    reading = asyncio.ensure_future(stream.read(65536, timeout=60.0))
    await asyncio.sleep(0)
    reading.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reading
    theirs.sendall(b"later")  # the socket is no longer watched: the next read gets it
    assert await stream.read(65536, timeout=1.0) == b"later"


async def test_a_reader_that_caught_up_leaves_the_socket_be_for_a_pause() -> None:
    """Each event of a stream comes in a write of its own: read one by one, every event
    costs a wake-up. Once a read finds nothing, the reader sleeps out the pause since
    the last read that waited and then takes what came meanwhile in one read; the
    first bytes after a silence are read at once, and a request's answer is awaited
    at once."""
    ours, theirs = socket.socketpair()
    ours.setblocking(False)
    pause = 0.25
    slept: list[float] = []
    during_sleep: list[bytes] = []

    async def sleep(delay: float) -> None:
        slept.append(delay)
        if during_sleep:
            theirs.sendall(during_sleep.pop(0))

    stream = _SocketStream(ours, pause, sleep)

    async def waited_for(data: bytes) -> bytes:
        reading = asyncio.ensure_future(stream.read(65536, timeout=5.0))
        await asyncio.sleep(0)
        assert not reading.done()
        theirs.sendall(data)
        return await reading

    try:
        theirs.sendall(b"first")
        assert await stream.read(65536) == b"first"  # there already: no pause
        assert await waited_for(b"second") == b"second"  # nothing for a while: waited
        assert slept == []
        during_sleep.append(b"third, fourth, fifth")
        assert await stream.read(65536) == b"third, fourth, fifth"  # after a pause
        assert len(slept) == 1 and 0 < slept[0] <= pause
        assert await waited_for(b"sixth") == b"sixth"  # slept, nothing came: waits
        assert len(slept) == 2
        await stream.write(b"next request")
        assert await waited_for(b"its answer") == b"its answer"  # no pause first
        assert len(slept) == 2
    finally:
        await stream.aclose()
        theirs.close()


@pytest.mark.parametrize("scheme", ["socks5", "http", "http+ssl"])
@pytest.mark.parametrize("origin", ["http", "https"])
async def test_through_a_proxy_we_did_not_write_as_with_httpx_own_backend(
        scheme: str, origin: str, certs: Certs) -> None:
    """pproxy: SOCKS5, an HTTP proxy, and an HTTPS one (TLS to the proxy, then TLS to
    the server inside it, for an https origin)."""
    tls = certs.server_context() if origin == "https" else None
    with FakeOpenAIServer(tls=tls) as fake, PProxy(scheme, certs) as proxy:
        for _ in range(2):
            fake.enqueue(ScriptedResponse(chunks=text_stream(LONG[:20000], chunk_size=50)))
        ours = await read_all(app_provider(fake.url, proxy=Proxy(proxy.url)))
        mounts = Proxy(proxy.url).mounts()
        async with httpx.AsyncClient(mounts=mounts, trust_env=False,
                                     verify=certs.client_context()) as client:
            theirs = await read_all(anyio_provider(fake.url, client))
        assert len(fake.chat_requests) == 2
    assert text_of(ours) == text_of(theirs) == LONG[:20000]
    assert isinstance(ours[-1], EndEvent) and ours[-1] == theirs[-1]


@pytest.fixture
def blackhole() -> Iterator[int]:
    """A port whose connections are never answered: a listener with its queue full,
    whose further SYNs the kernel drops (as a route that loses packets does)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(0)
    port = int(listener.getsockname()[1])
    filling = []
    for _ in range(8):
        sock = socket.socket()
        sock.setblocking(False)
        with contextlib.suppress(BlockingIOError):
            sock.connect(("127.0.0.1", port))
        filling.append(sock)
    yield port
    for sock in filling:
        sock.close()
    listener.close()


async def test_an_address_that_does_not_answer_is_not_waited_out(
        plain: FakeOpenAIServer, blackhole: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A name with two addresses, the first one dropping packets (an IPv6 route that
    does not work, say): the second is tried beside it after a moment, and wins."""
    loop = asyncio.get_running_loop()

    async def getaddrinfo(host: str, port: int, **_kwargs: object) -> list[object]:
        assert host == "two-addresses.test"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", blackhole)),
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("127.0.0.1", plain.port))]

    monkeypatch.setattr(loop, "getaddrinfo", getaddrinfo)
    stream = await LoopBackend().connect_tcp("two-addresses.test", 443, timeout=30.0)
    try:
        assert stream.get_extra_info("server_addr") == ("127.0.0.1", plain.port)
    finally:
        await stream.aclose()


def test_the_families_take_turns() -> None:
    from desktop.providers.socket_io import _interleaved

    v6 = [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (f"::{i}", 1)) for i in range(3)]
    v4 = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (f"10.0.0.{i}", 1)) for i in range(2)]
    assert _interleaved([*v6, *v4]) == [v6[0], v4[0], v6[1], v4[1], v6[2]]
    assert _interleaved([]) == []


def test_an_idle_connection_the_server_closed_is_not_used_again() -> None:
    """httpcore's pool asks whether an idle connection reads as readable: then the
    server closed it (or sent what it should not have), and a new one is opened."""
    from desktop.providers.socket_io import _readable

    ours, theirs = socket.socketpair()
    stream = _SocketStream(ours)
    assert stream.get_extra_info("is_readable") is False
    theirs.close()
    assert stream.get_extra_info("is_readable") is True
    ours.close()
    assert _readable(ours) is True

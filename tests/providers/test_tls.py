"""The providers' clients share one TLS context, with the certificates httpx would
choose (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when the environment counts)."""

from __future__ import annotations

from pathlib import Path

import certifi
import pytest

from desktop.core.proxy import Proxy
from desktop.providers.http_clients import make_async_client
from desktop.providers.tls import shared_context


def first_certificate(path: str) -> str:
    text = Path(path).read_text(encoding="ascii")
    start = text.index("-----BEGIN CERTIFICATE-----")
    end = text.index("-----END CERTIFICATE-----", start) + len("-----END CERTIFICATE-----")
    return text[start:end] + "\n"


def client_context(client: object) -> object:
    pool = client._transport._pool  # type: ignore[attr-defined]  # (httpx/httpcore inside)
    return pool._ssl_context


async def test_every_client_uses_the_one_context(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    first = make_async_client(proxy=Proxy())
    second = make_async_client(proxy=Proxy())
    direct = make_async_client()  # (no proxy setting: the environment counts)
    try:
        assert client_context(first) is client_context(second) is shared_context(False)
        assert client_context(direct) is shared_context(True)
        assert len(shared_context(False).get_ca_certs()) > 100  # certifi's bundle
    finally:
        for client in (first, second, direct):
            await client.aclose()
    unverified = make_async_client(verify=False)
    try:
        assert client_context(unverified) is not shared_context(False)
    finally:
        await unverified.aclose()


def test_ssl_cert_file_is_honoured_only_where_the_environment_counts(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    bundle = tmp_path / "one.pem"
    bundle.write_text(first_certificate(certifi.where()), encoding="ascii")
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    assert len(shared_context(True).get_ca_certs()) == 1
    assert shared_context(True) is shared_context(True)
    assert len(shared_context(False).get_ca_certs()) > 100

"""Sync through S3 servers nobody here wrote (unlike the moto setup): s3rver from npm and
its fork @20minutes/s3rver, which checks SigV4 signatures. Their listings come in another
XML namespace; two data folders end with the union of their chats, nothing readable is
on the server, an emptied bucket gets everything again, and bad credentials are refused
with the user's data untouched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from httpx_auth import AWS4Auth

from desktop.sync.errors import SyncError
from tests.sync.conftest import Device, Place
from tests.sync.s3rver_server import KEY_ID, PACKAGES, SECRET, S3rver

S3RVER_NS = "http://doc.s3.amazonaws.com/2006-03-01/"
SECRETS = (b"Zanzibar", b"Stonetown", b"Quokka", b"Rottnest")
EVERYTHING = {"book the ferry to Stonetown", "quokkas live on Rottnest"}


def _place(root: Path, package: str) -> Iterator[Place]:
    server = S3rver(root, package)
    try:
        yield Place("s3", server.url, server.environ, server.stored, server, server.wipe)
    finally:
        server.stop()


@pytest.fixture(params=PACKAGES)
def s3rver(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Place]:
    yield from _place(tmp_path / "s3rver-root", request.param)


@pytest.fixture
def checking(tmp_path: Path) -> Iterator[Place]:
    """The fork that verifies SigV4 signatures."""
    yield from _place(tmp_path / "s3rver-root", "@20minutes/s3rver")


@pytest.fixture
def unchecking(tmp_path: Path) -> Iterator[Place]:
    """s3rver 3.7.1, which does not."""
    yield from _place(tmp_path / "s3rver-root", "s3rver")


def _device(tmp_path: Path, name: str, place: Place) -> Device:
    (tmp_path / name).mkdir()
    return Device(tmp_path / name, place)


def _two_devices_synced(tmp_path: Path, place: Place) -> tuple[Device, Device]:
    a, b = _device(tmp_path, "a", place), _device(tmp_path, "b", place)
    a.chat("Zanzibar itinerary", "book the ferry to Stonetown")
    b.chat("Quokka facts", "quokkas live on Rottnest")
    a.sync()
    b.sync()
    a.sync()
    return a, b


def test_listings_come_in_a_namespace_other_than_aws(s3rver: Place, tmp_path: Path) -> None:
    """The quirk these tests are about is really there (else they would prove nothing)."""
    server: S3rver = s3rver.server
    a, b = _two_devices_synced(tmp_path, s3rver)
    reply = httpx.get(f"{server.endpoint}/{server.bucket}",
                      params={"list-type": "2", "prefix": "assista/"},
                      auth=AWS4Auth(KEY_ID, SECRET, "us-east-1", "s3"), trust_env=False)
    assert reply.status_code == 200, reply.text
    assert f'<ListBucketResult xmlns="{S3RVER_NS}">' in reply.text
    assert "<Key>assista/" in reply.text  # the sync wrote its files there
    a.db.close()
    b.db.close()


def test_two_data_folders_end_with_the_union(s3rver: Place, tmp_path: Path) -> None:
    a, b = _two_devices_synced(tmp_path, s3rver)
    assert a.texts() == b.texts() == EVERYTHING
    keys: list[str] = s3rver.server.keys()
    assert any(key.startswith("assista/devices/") for key in keys)
    a.db.close()
    b.db.close()


def test_nothing_readable_is_stored_on_the_server(s3rver: Place, tmp_path: Path) -> None:
    a, b = _two_devices_synced(tmp_path, s3rver)
    stored = s3rver.stored()  # every file the server keeps: objects and their metadata
    assert any("devices" in name for name in stored)
    for name, data in stored.items():
        for secret in SECRETS:
            assert secret not in data, f"{secret!r} in plaintext in {name}"
            assert secret.decode() not in name
    a.db.close()
    b.db.close()


def test_an_emptied_bucket_gets_everything_again(s3rver: Place, tmp_path: Path) -> None:
    a, b = _two_devices_synced(tmp_path, s3rver)
    s3rver.wipe()
    assert s3rver.server.keys() == []
    b.sync()  # b sees the target empty and uploads all it has
    assert s3rver.server.keys()
    c = _device(tmp_path, "c", s3rver)
    c.sync()
    assert c.texts() == EVERYTHING
    a.sync()  # and the device that synced before the reset still agrees
    assert a.texts() == EVERYTHING
    for device in (a, b, c):
        device.db.close()


def _refused(tmp_path: Path, place: Place, **environ: str) -> None:
    """A sync with ``environ``'s credentials fails with 403, changing nothing anywhere."""
    wrong = Place("s3", place.url, {**place.environ, **environ}, place.stored)
    a = _device(tmp_path, "a", wrong)
    a.chat("Zanzibar itinerary", "book the ferry to Stonetown")
    before = a.user_data()
    with pytest.raises(SyncError, match="403"):
        a.sync()
    assert a.user_data() == before
    assert place.server.keys() == []
    a.db.close()


def test_an_unknown_access_key_is_refused_in_plain_words(s3rver: Place, tmp_path: Path) -> None:
    _refused(tmp_path, s3rver, AWS_ACCESS_KEY_ID="NOBODY")


def test_a_wrong_secret_is_refused_by_a_server_checking_signatures(
        checking: Place, tmp_path: Path) -> None:
    _refused(tmp_path, checking, AWS_SECRET_ACCESS_KEY="wrong")


def test_s3rver_3_does_not_check_sigv4_signatures(unchecking: Place, tmp_path: Path) -> None:
    """Recorded so docs/conformance.md stays true: s3rver 3.7.1 accepts a SigV4 request
    signed with a wrong secret (only the key id is checked)."""
    wrong = Place("s3", unchecking.url,
                  {**unchecking.environ, "AWS_SECRET_ACCESS_KEY": "wrong"}, unchecking.stored)
    a = _device(tmp_path, "a", wrong)
    a.chat("Chat", "hello")
    a.sync()
    assert unchecking.server.keys()
    a.db.close()

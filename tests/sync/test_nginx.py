"""Sync through nginx's WebDAV (Debian's nginx with the DAV and dav-ext modules), with
the upload limit nginx has by default (``client_max_body_size 1m``): two data folders
end with the union of their chats, a large chat split below the limit, nothing
readable on the server; a single message over the limit names its chat."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from desktop.sync.errors import SyncError
from tests.sync.conftest import Device, Place, _files
from tests.sync.nginx_server import PASSWORD, NginxWebDav, needs_nginx

pytestmark = needs_nginx
MB = 1024 * 1024


def _noise(size: int) -> str:
    """Text that does not compress much (as photos pasted into a chat)."""
    return base64.b64encode(os.urandom(size * 3 // 4)).decode("ascii")


@pytest.fixture
def nginx(tmp_path: Path) -> Iterator[Place]:
    root = tmp_path / "nginx-root"
    server = NginxWebDav(root, tmp_path / "nginx-run")
    try:
        yield Place("webdav", server.url, {"ASSISTA_SYNC_PASSWORD": PASSWORD}, _files(root),
                    server)
    finally:
        server.stop()


@pytest.fixture
def two(nginx: Place, tmp_path: Path) -> Iterator[tuple[Device, Device]]:
    made = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        made.append(Device(tmp_path / name, nginx))
    yield made[0], made[1]
    for device in made:
        device.db.close()


def test_two_data_folders_end_with_the_union_below_nginxs_upload_limit(
        two: tuple[Device, Device], nginx: Place) -> None:
    a, b = two
    b.chat("Quokka facts", "quokkas live on Rottnest")
    b.sync()
    scans = a.chat("Zanzibar scans")
    for i in range(60):  # 2.4 MB of chat: more than nginx takes in one upload
        a.say(scans, f"page {i} {_noise(40_000)}")
    a.sync()
    assert "quokkas live on Rottnest" in a.texts()  # received before sending
    b.sync()
    assert len(b.sessions.load_messages(scans)) == 60
    assert a.texts() == b.texts()
    stored = nginx.stored()
    assert max(len(data) for data in stored.values()) <= MB
    assert sum(1 for name in stored if "/devices/" in f"/{name}") > 3  # split
    for name, data in stored.items():
        for secret in (b"Zanzibar", b"Quokka", b"Rottnest", b"page 1 "):
            assert secret not in data, f"{secret!r} in plaintext in {name}"


def test_a_single_message_over_nginxs_limit_names_its_chat(two: tuple[Device, Device]) -> None:
    a, b = two
    b.chat("From B", "hello from B")
    b.sync()
    big = a.chat("Holiday photos")
    photo = a.say(big, _noise(1_500_000))
    a.chat("Small talk", "how are you")
    with pytest.raises(SyncError, match="“Holiday photos”") as caught:
        a.sync()
    assert "client_max_body_size" in str(caught.value)
    assert "hello from B" in a.texts()
    a.sessions.delete_message(photo.id)  # what the message tells the user to do
    a.sync()
    b.sync()
    assert "how are you" in b.texts()

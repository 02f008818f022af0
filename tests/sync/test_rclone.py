"""Sync through a second real WebDAV server, rclone's: two data folders end with the
union of their chats, and nothing readable is on the server."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.sync.conftest import Device, Place, _files
from tests.sync.rclone_server import PASSWORD, RcloneWebDav, needs_rclone

pytestmark = needs_rclone


@pytest.fixture
def rclone(tmp_path: Path) -> Iterator[Place]:
    root = tmp_path / "rclone-root"
    server = RcloneWebDav(root)
    try:
        yield Place("webdav", server.url, {"ASSISTA_SYNC_PASSWORD": PASSWORD}, _files(root),
                    server, server.wipe)
    finally:
        server.stop()


def _device(tmp_path: Path, name: str, place: Place) -> Device:
    (tmp_path / name).mkdir()
    return Device(tmp_path / name, place)


def test_two_data_folders_end_with_the_union_through_rclone_webdav(
    rclone: Place, tmp_path: Path
) -> None:
    a, b = _device(tmp_path, "a", rclone), _device(tmp_path, "b", rclone)
    a.chat("Zanzibar itinerary", "book the ferry to Stonetown")
    b.chat("Quokka facts", "quokkas live on Rottnest")
    a.sync()
    b.sync()
    a.sync()
    everything = {"book the ferry to Stonetown", "quokkas live on Rottnest"}
    assert a.texts() == b.texts() == everything
    stored = rclone.stored()
    assert any("devices/" in name for name in stored)
    for name, data in stored.items():
        for secret in (b"Zanzibar", b"Stonetown", b"Quokka", b"Rottnest"):
            assert secret not in data, f"{secret!r} in plaintext in {name}"
    # Emptied, it gets everything again from the next device that syncs.
    rclone.wipe()
    b.sync()
    c = _device(tmp_path, "c", rclone)
    c.sync()
    assert c.texts() == everything
    for device in (a, b, c):
        device.db.close()

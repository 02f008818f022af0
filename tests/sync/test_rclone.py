"""Sync through a second real WebDAV server, rclone's: two data folders end with the
union of their chats, nothing readable is on the server, and temporary files of
uploads that never finished are cleaned up."""

from __future__ import annotations

import os
import time
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


def test_unfinished_uploads_left_on_rclone_are_removed(rclone: Place, tmp_path: Path) -> None:
    """Temporary files as a run killed between its PUT and its MOVE leaves them: this
    device's own at its next sync, any device's once they are a day old; an upload of
    another device going on now is left alone. (Written on rclone's disk while it is
    stopped: its directory cache would not see them otherwise.)"""
    a, b = _device(tmp_path, "a", rclone), _device(tmp_path, "b", rclone)
    a.chat("From A", "alpha")
    b.chat("From B", "beta")
    a.sync()
    b.sync()
    server = rclone.server
    server.stop()
    sync_root = server.root / "sync"
    own, other = sorted((sync_root / "devices").iterdir(),
                        key=lambda d: d.name != _own_folder(a, sync_root))
    long_ago = time.time() - 2 * 86400
    (own / ".part-killed-mid-move").write_bytes(b"a sealed segment, never moved")
    for old in (sync_root / ".part-of-a-key-file", other / ".part-of-b"):
        old.write_bytes(b"half an upload")
        os.utime(old, (long_ago, long_ago))
    (sync_root / ".part-in-flight").write_bytes(b"an upload going on now")
    restarted = RcloneWebDav(server.root, server.port)
    try:
        report = a.sync()
        left = sorted(name for name in rclone.stored() if "/.part-" in name)
        assert left == ["sync/.part-in-flight"]
        assert report.stale_parts == 3
        b.sync()
        assert a.texts() == b.texts() == {"alpha", "beta"}
    finally:
        restarted.stop()
        a.db.close()
        b.db.close()


def _own_folder(device: Device, sync_root: Path) -> str:
    """The name of ``device``'s folder on the target (the one holding what it sent)."""
    from desktop.sync.segments import device_dir
    from desktop.sync.state import device_id

    with device.db.snapshot() as conn:
        return device_dir(device_id(conn)).rsplit("/", 1)[-1]

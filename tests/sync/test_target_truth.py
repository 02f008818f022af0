"""What the target holds is the truth, not this device's record of what it sent: a new
or emptied target gets everything again, and uploads a server threw away fail the sync
(and are sent by the next one) instead of being reported as sent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from desktop.sync.errors import SyncError
from tests.sync.conftest import Device, Place, _emptier, _files
from tests.sync.servers import Environ, S3Server, StartResponse, WebDavServer

MakeDevice = Callable[[str], Device]

CHATS = {f"Chat {i}": f"message {i}" for i in range(7)}


def _write_chats(device: Device) -> None:
    for title, text in CHATS.items():
        device.chat(title, text)


def _folder_place(root: Path) -> Place:
    return Place("folder", root.as_uri(), {}, _files(root), None, _emptier(root))


def test_a_new_target_gets_what_was_sent_elsewhere(
    devices: MakeDevice, place: Place, tmp_path: Path
) -> None:
    a, b, c = devices("a"), devices("b"), devices("c")
    first = _folder_place(tmp_path / "first-target")
    a.place = c.place = first
    _write_chats(a)
    c.chat("Written on C", "from the third device")
    c.sync()
    a.sync()  # A sends its chats and receives C's
    report = a.sync()
    assert report.uploaded == 0

    a.place = place  # the user points A at a new target
    report = a.sync()
    b.sync()  # B has only ever used the new target
    assert len(b.sessions.list_sessions()) == 8
    assert b.texts() == {*CHATS.values(), "from the third device"}
    assert report.uploaded > 0 and report.resent, report.summary()
    assert a.sync().uploaded == 0  # once held, not sent again


def test_an_emptied_target_gets_everything_again(devices: MakeDevice, place: Place) -> None:
    a, b = devices("a"), devices("b")
    _write_chats(a)
    a.sync()
    place.wipe()  # the server was reset, or the user emptied the folder
    report = a.sync()
    b.sync()
    assert b.texts() == set(CHATS.values())
    assert report.uploaded > 0 and report.resent, report.summary()


def _device(tmp_path: Path, name: str, place: Place) -> Device:
    (tmp_path / name).mkdir()
    return Device(tmp_path / name, place)


def test_a_webdav_server_that_drops_uploads_fails_the_sync(
    webdav: Place, tmp_path: Path
) -> None:
    a, b = _device(tmp_path, "a", webdav), _device(tmp_path, "b", webdav)
    _write_chats(a)
    server: WebDavServer = webdav.server
    server.faults.mode = "lose"  # answers 201 to PUT and MOVE, stores nothing
    with pytest.raises(SyncError, match="does not hold") as caught:
        a.sync()
    assert "\n" not in str(caught.value)
    with pytest.raises(SyncError, match="does not hold"):
        a.sync()  # not "sent 0 segments": what is missing is sent again, and checked
    server.faults.mode = None
    assert a.sync().uploaded > 0
    b.sync()
    assert b.texts() == set(CHATS.values())
    a.db.close()
    b.db.close()


def _losing_puts(app: Any) -> Any:
    def wrapped(environ: Environ, start_response: StartResponse) -> Any:
        if environ["REQUEST_METHOD"] == "PUT" and "/devices/" in environ["PATH_INFO"]:
            environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
            start_response("200 OK", [("Content-Length", "0"), ("ETag", '"0"')])
            return [b""]
        return app(environ, start_response)

    return wrapped


def test_an_s3_server_that_drops_uploads_fails_the_sync(tmp_path: Path) -> None:
    server = S3Server(_losing_puts)
    try:
        place = Place("s3", server.url, server.environ, server.objects, server)
        a = _device(tmp_path, "a", place)
        _write_chats(a)
        with pytest.raises(SyncError, match="does not hold"):
            a.sync()
        a.db.close()
    finally:
        server.stop()


def test_the_windows_engine_sets_up_an_emptied_target_again(
    devices: MakeDevice, place: Place
) -> None:
    from desktop.sync.run import SyncEngine
    from desktop.sync.targets.address import open_target
    from tests.sync.conftest import PASSPHRASE

    a, b = devices("a"), devices("b")
    _write_chats(a)
    target = open_target(place.url, place.environ)
    engine = SyncEngine(a.db, target, PASSPHRASE)  # kept between runs, as the window does
    try:
        engine.run()
        place.wipe()  # sync.json too: the key derived before opens nothing there now
        engine.run()
    finally:
        target.close()
    b.sync()
    assert b.texts() == set(CHATS.values())

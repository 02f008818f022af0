"""Servers with limits: an answer too large is refused unread; a server refusing large
uploads (413, nginx's client_max_body_size) gets them split, and still sends the
other devices' changes to this one; a single message too large names its chat."""

from __future__ import annotations

import base64
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from desktop.sync import run, state
from desktop.sync.errors import SyncError
from tests.sync.conftest import PASSPHRASE, Device, Place
from tests.sync.servers import Environ, S3Server, StartResponse, WebDavServer

MB = 1024 * 1024
#: The test server's client_max_body_size (nginx's default is 1 MB; a quarter of it here:
#: the same splitting with a quarter of the data to seal and store).
LIMIT = 256 * 1024


def _noise(size: int) -> str:
    """Text that does not compress much (as photos pasted into a chat)."""
    return base64.b64encode(os.urandom(size * 3 // 4)).decode("ascii")


@pytest.fixture
def two(webdav: Place, tmp_path: Path) -> Iterator[tuple[Device, Device, WebDavServer]]:
    made = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        made.append(Device(tmp_path / name, webdav))
    yield made[0], made[1], webdav.server
    for device in made:
        device.db.close()


@pytest.mark.parametrize("announce", [True, False], ids=["announced", "chunked"])
def test_a_huge_answer_for_the_key_file_is_refused_unread(
    two: tuple[Device, Device, WebDavServer], announce: bool
) -> None:
    a, _b, server = two
    a.chat("Mine", "kept")
    before = a.user_data()
    server.faults.mode = "huge"  # "10 GB" of sync.json (the test server stops at 256 MB)
    server.faults.announce = announce
    server.faults.huge_size = 256 * MB
    with pytest.raises(SyncError, match=r"more than 64 KB while reading sync\.json"):
        a.sync()
    assert server.faults.sent < 32 * MB
    assert a.user_data() == before


def test_a_segment_larger_than_any_is_refused_unread(
    two: tuple[Device, Device, WebDavServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    a, b, _server = two
    a.chat("Large", _noise(300_000))
    a.sync()
    monkeypatch.setattr(run, "FILE_LIMIT", 128 * 1024)  # as if it were over 256 MB
    with pytest.raises(SyncError, match=r"more than 128 KB while reading devices/"):
        b.sync()
    assert b.sessions.list_sessions() == []


def test_a_large_chat_is_split_below_the_servers_upload_limit(
    two: tuple[Device, Device, WebDavServer], webdav: Place
) -> None:
    a, b, server = two
    b.chat("From B", "hello from B")
    b.sync()
    chat = a.chat("Scans")
    for i in range(60):
        a.say(chat, f"page {i} {_noise(10_000)}")
    server.faults.mode = "limit"  # 413 for a body over LIMIT
    server.faults.body_limit = LIMIT
    a.sync()
    assert "hello from B" in a.texts()
    assert server.faults.refused, "the server never refused an upload: nothing was tested"
    assert max(len(data) for data in webdav.stored().values()) <= LIMIT
    b.sync()
    assert len(b.sessions.load_messages(chat)) == 60
    # The limit is remembered: the next run splits at once.
    server.faults.refused.clear()
    for i in range(30):
        a.say(chat, f"more {i} {_noise(10_000)}")
    a.sync()
    assert server.faults.refused == []
    b.sync()
    assert len(b.sessions.load_messages(chat)) == 90
    # A week later the server's limit may have been raised: it is tried again.
    server.faults.mode = None
    with a.db.transaction() as conn:
        key = next(k for (k,) in conn.execute("SELECT key FROM sync_meta")
                   if k.startswith(state.TARGET_PREFIX))
        record = state.target_record(conn, key.removeprefix(state.TARGET_PREFIX))
        state.save_target_record(conn, key.removeprefix(state.TARGET_PREFIX),
                                 replace(record, limit_at=record.limit_at - 8 * 86400))
    for i in range(45):
        a.say(chat, f"later {i} {_noise(10_000)}")
    a.sync()
    assert max(len(data) for data in webdav.stored().values()) > LIMIT


def test_a_single_message_over_the_limit_names_its_chat(
    two: tuple[Device, Device, WebDavServer],
) -> None:
    a, b, server = two
    b.chat("From B", "hello from B")
    b.sync()
    big = a.chat("Holiday photos")
    photo = a.say(big, _noise(LIMIT * 3 // 2))
    a.chat("Small talk", "how are you")
    server.faults.mode = "limit"
    server.faults.body_limit = LIMIT
    with pytest.raises(SyncError, match="“Holiday photos”") as caught:
        a.sync()
    assert "client_max_body_size" in str(caught.value)
    assert "hello from B" in a.texts()  # received before sending
    a.sessions.delete_message(photo.id)  # what the message tells the user to do
    a.sync()
    b.sync()
    assert "how are you" in b.texts()
    assert {s.title for s in b.sessions.list_sessions()} >= {"Holiday photos", "Small talk"}


def test_the_configured_maximum_bounds_every_upload(folder: Place, tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    a = Device(tmp_path / "a", folder)
    chat = a.chat("Scans")
    for i in range(20):
        a.say(chat, f"page {i} {_noise(40_000)}")
    a.sync(max_upload=200 * 1024)
    sizes = [len(data) for name, data in folder.stored().items() if "devices/" in name]
    assert len(sizes) > 3 and max(sizes) <= 200 * 1024
    a.db.close()


def test_the_sync_command_takes_a_maximum_upload(
    folder: Place, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from desktop.__main__ import main

    (tmp_path / "a").mkdir()
    a = Device(tmp_path / "a", folder)
    chat = a.chat("Scans")
    for i in range(20):
        a.say(chat, f"page {i} {_noise(40_000)}")
    a.db.close()
    monkeypatch.setenv("ASSISTA_SYNC_PASSPHRASE", PASSPHRASE)
    assert main(["sync", "--data-dir", str(a.path), "--target", folder.url,
                 "--max-upload-mb", "0.2"]) == 0, capsys.readouterr().err
    sizes = [len(data) for name, data in folder.stored().items() if "devices/" in name]
    assert len(sizes) > 3 and max(sizes) <= 0.2 * MB
    assert main(["sync", "--data-dir", str(a.path), "--target", folder.url,
                 "--max-upload-mb", "0"]) == 1
    assert "--max-upload-mb must be more than 0" in capsys.readouterr().err


def test_an_s3_listing_that_never_ends_is_refused(tmp_path: Path) -> None:
    asked: list[int] = []

    def endless(app: Any) -> Any:
        def wrapped(environ: Environ, start_response: StartResponse) -> Any:
            if "list-type" not in environ.get("QUERY_STRING", ""):
                return app(environ, start_response)
            asked.append(1)
            more = "true" if len(asked) < 1000 else "false"  # (the old code looped on)
            body = (f"<ListBucketResult><IsTruncated>{more}</IsTruncated>"
                    "<NextContinuationToken>again</NextContinuationToken>"
                    "</ListBucketResult>").encode()
            start_response("200 OK", [("Content-Type", "application/xml"),
                                      ("Content-Length", str(len(body)))])
            return [body]

        return wrapped

    server = S3Server(endless)
    try:
        (tmp_path / "a").mkdir()
        a = Device(tmp_path / "a", Place("s3", server.url, server.environ, server.objects))
        a.chat("Chat", "hello")
        with pytest.raises(SyncError, match="never ends"):
            a.sync()
        assert len(asked) < 5
        a.db.close()
    finally:
        server.stop()

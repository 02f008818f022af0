"""What real servers do differently: S3 listings in another XML namespace (s3rver,
local-s3-server), temporary files left by a MOVE that never finished, and a proxy
set in Preferences that every sync request must go through."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from desktop.app import AppContext
from desktop.core.proxy import Proxy
from desktop.storage.sessions import SessionStore
from desktop.sync.errors import SyncError
from desktop.sync.run import SyncEngine
from desktop.sync.targets.address import open_target
from tests.support.proxy_server import LoopbackProxy
from tests.sync.conftest import PASSPHRASE, Device, Place
from tests.sync.servers import S3Server, WebDavServer, rewrite_listings

AWS_NS = b"http://s3.amazonaws.com/doc/2006-03-01/"
S3RVER_NS = b"http://doc.s3.amazonaws.com/2006-03-01/"


def _device(tmp_path: Path, name: str, place: Place) -> Device:
    (tmp_path / name).mkdir()
    return Device(tmp_path / name, place)


def test_s3_listings_in_the_namespace_of_s3rver_are_read(tmp_path: Path) -> None:
    server = S3Server(rewrite_listings(AWS_NS, S3RVER_NS))
    try:
        place = Place("s3", server.url, server.environ, server.objects, server)
        a, b = _device(tmp_path, "a", place), _device(tmp_path, "b", place)
        a.chat("From A", "alpha")
        b.chat("From B", "beta")
        a.sync()
        b.sync()
        a.sync()
        assert a.texts() == b.texts() == {"alpha", "beta"}
        a.db.close()
        b.db.close()
    finally:
        server.stop()


def test_a_move_that_never_finished_leaves_nothing_after_the_next_sync(
    webdav: Place, tmp_path: Path
) -> None:
    a = _device(tmp_path, "a", webdav)
    a.chat("Chat", "hello")
    a.sync()
    a.chat("Later", "again")
    server: WebDavServer = webdav.server
    server.faults.mode = "move-503"  # the PUT of the temporary file worked, the MOVE not
    with pytest.raises(SyncError, match="unavailable"):
        a.sync()
    parts = [n for n in webdav.stored() if "/.part-" in n]
    assert all("/devices/" in n for n in parts)
    assert parts, "no temporary file was left: nothing was tested"
    server.faults.mode = None
    report = a.sync()
    assert [n for n in webdav.stored() if "/.part-" in n] == []
    assert report.stale_parts == len(parts)
    a.db.close()


def test_webdav_requests_go_through_the_given_proxy(webdav: Place, tmp_path: Path) -> None:
    a = _device(tmp_path, "a", webdav)
    a.chat("Chat", "through the proxy")
    with LoopbackProxy() as proxy:
        target = open_target(webdav.url, webdav.environ, proxy=Proxy(proxy.url))
        try:
            SyncEngine(a.db, target, PASSPHRASE).run()
        finally:
            target.close()
    methods = {line.split()[0] for line in proxy.seen}
    assert {"GET", "PROPFIND", "PUT", "MOVE"} <= methods
    assert all(str(webdav.server.port) in line for line in proxy.seen)
    a.db.close()


def test_s3_requests_go_through_the_given_proxy(s3: Place, tmp_path: Path) -> None:
    a = _device(tmp_path, "a", s3)
    a.chat("Chat", "through the proxy")
    with LoopbackProxy() as proxy:
        target = open_target(s3.url, s3.environ, proxy=Proxy(proxy.url))
        try:
            SyncEngine(a.db, target, PASSPHRASE).run()
        finally:
            target.close()
    assert {"GET", "PUT"} <= {line.split()[0] for line in proxy.seen}
    a.db.close()


def test_the_sync_command_uses_the_proxy_of_preferences(
    webdav: Place, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from desktop.__main__ import main

    folder = tmp_path / "data"
    with LoopbackProxy() as proxy:
        ctx = AppContext.open(folder, log_to_stderr=False)
        try:
            ctx.settings.update(proxy_url=proxy.url, no_proxy="")
            SessionStore(ctx.db).create_session("Chat")
        finally:
            ctx.close()
        for name in ("HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "ALL_PROXY",
                     "all_proxy", "NO_PROXY", "no_proxy"):
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("ASSISTA_SYNC_PASSPHRASE", PASSPHRASE)
        for key, value in webdav.environ.items():
            monkeypatch.setenv(key, value)
        rc = main(["sync", "--data-dir", str(folder), "--target", webdav.url])
    assert rc == 0, capsys.readouterr().err
    assert any(line.startswith("PROPFIND ") for line in proxy.seen)


def test_old_temporary_files_of_any_device_are_removed(webdav: Place, tmp_path: Path) -> None:
    a, b = _device(tmp_path, "a", webdav), _device(tmp_path, "b", webdav)
    b.chat("From B", "beta")
    b.sync()
    sync_root = webdav.server.root / "sync"
    (b_folder,) = (sync_root / "devices").iterdir()
    long_ago = time.time() - 2 * 86400
    for old in (sync_root / ".part-of-a-key-file", b_folder / ".part-of-b"):
        old.write_bytes(b"half an upload")
        os.utime(old, (long_ago, long_ago))
    (sync_root / ".part-in-flight").write_bytes(b"an upload going on now")
    a.chat("From A", "alpha")
    report = a.sync()
    left = sorted(name for name in webdav.stored() if "/.part-" in name)
    assert left == ["sync/.part-in-flight"]
    assert report.stale_parts == 2
    a.db.close()
    b.db.close()

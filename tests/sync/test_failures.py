"""A target that fails mid-way: the local data is as it was, the message says why, and
the next sync completes. A device killed with SIGKILL mid-upload leaves nothing valid."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.sync.errors import CorruptDataError, SyncError
from tests.sync.conftest import PASSPHRASE, Device, Place
from tests.sync.servers import WebDavServer

MakeDevice = Callable[[str], Device]


@pytest.fixture
def place(webdav: Place) -> Place:  # these tests need the fault switch of the WebDAV server
    return webdav


def _faults(place: Place) -> WebDavServer:
    server: WebDavServer = place.server
    return server


def _shared(devices: MakeDevice) -> tuple[Device, Device]:
    a, b = devices("a"), devices("b")
    a.chat("From A", "alpha one", "alpha two")
    a.sync()
    b.chat("From B", "beta one")
    return a, b


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        ("corrupt", "damaged or was altered"),
        ("drop", "dropped the connection"),
        ("503", r"unavailable \(503"),
    ],
)
def test_a_failed_download_changes_nothing_here(
    devices: MakeDevice, place: Place, mode: str, message: str
) -> None:
    a, b = _shared(devices)
    before = b.user_data()
    _faults(place).faults.mode = mode
    with pytest.raises(SyncError, match=message) as caught:
        b.sync()
    if mode == "corrupt":
        assert isinstance(caught.value, CorruptDataError)
    assert "\n" not in str(caught.value)
    assert b.user_data() == before
    _faults(place).faults.mode = None
    b.sync()
    a.sync()
    assert a.texts() == b.texts() == {"alpha one", "alpha two", "beta one"}


def test_a_full_server_507_keeps_the_changes_queued(devices: MakeDevice, place: Place) -> None:
    a, b = _shared(devices)
    b.sync()
    b.chat("Written while the server was full", "gamma")
    before = b.user_data()
    _faults(place).faults.mode = "507"
    with pytest.raises(SyncError, match="out of space"):
        b.sync()
    assert b.user_data() == before
    _faults(place).faults.mode = None
    b.sync()
    a.sync()
    assert "gamma" in a.texts()


def test_a_device_killed_mid_upload_leaves_nothing_valid(
    devices: MakeDevice, place: Place, tmp_path: Path
) -> None:
    a, b = devices("a"), devices("b")
    chat = a.chat("Big chat")
    for i in range(400):
        a.say(chat, f"message number {i} " + "lorem ipsum dolor sit amet " * 20)
    a.db.close()  # the child process syncs this data folder
    b.sync()  # sets the target up, at the tests' key-derivation cost (the child reads it)
    server = _faults(place)
    server.faults.mode = "pause"
    env = {**os.environ, **place.environ, "ASSISTA_SYNC_PASSPHRASE": PASSPHRASE}
    child = subprocess.Popen(
        [sys.executable, "-m", "desktop", "sync", "--data-dir", str(a.path),
         "--target", place.url],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        assert server.faults.paused.wait(60), "the upload never started"
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    finally:
        server.faults.release.set()
        if child.poll() is None:
            child.kill()
    assert child.returncode == -signal.SIGKILL
    server.faults.mode = None
    b.sync()  # reads nothing of A's half upload, and fails on nothing
    assert b.sessions.list_sessions() == []
    assert any("/.part-" in n for n in place.stored())  # what the killed upload left
    # The killed device's next sync completes; then B gets the whole chat.
    done = subprocess.run(
        [sys.executable, "-m", "desktop", "sync", "--data-dir", str(a.path),
         "--target", place.url],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert [n for n in place.stored() if "/.part-" in n] == []  # its half upload is gone
    b.sync()
    assert len(b.sessions.load_messages(chat)) == 400

"""Two runs on one data folder take turns (the window and ``assista sync`` in two
processes); a copied data folder becomes a device of its own."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from desktop.sync import guard
from desktop.sync.guard import SyncBusyError
from desktop.sync.run import SyncEngine
from desktop.sync.status import read_status
from desktop.sync.targets.address import open_target
from tests.sync.conftest import PASSPHRASE, Device, Place
from tests.sync.servers import WebDavServer

MakeDevice = Callable[[str], Device]

_HOLD_LOCK = """
import sys
from pathlib import Path
from desktop.sync.guard import run_lock
with run_lock(Path(sys.argv[1])):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.fixture
def place(folder: Place) -> Place:
    return folder


def test_a_second_run_is_refused_while_another_process_syncs(devices: MakeDevice) -> None:
    a = devices("a")
    a.chat("Waiting", "queued while the other run holds the folder")
    child = subprocess.Popen([sys.executable, "-c", _HOLD_LOCK, str(a.path)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline() == "held\n"
        with pytest.raises(SyncBusyError, match="Another sync of this data folder"):
            a.sync()
        assert a.place.stored() == {}  # it wrote nothing, not even the key file
        assert read_status(a.db).error is None  # busy is not a failure of this device
        child.send_signal(signal.SIGKILL)  # the OS releases a killed run's lock
        child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
    assert a.sync().uploaded > 0


def test_the_window_waits_out_assista_sync_in_another_process(
    webdav: Place, tmp_path: Path
) -> None:
    from tests.sync.conftest import Device as MakeOne

    (tmp_path / "a").mkdir()
    a = MakeOne(tmp_path / "a", webdav)
    chat = a.chat("Big chat")
    for i in range(300):
        a.say(chat, f"message {i} " + "lorem ipsum dolor sit amet " * 20)
    target = open_target(webdav.url, webdav.environ)
    try:  # set up at the tests' key-derivation cost (the child reads it)
        SyncEngine(a.db, target, PASSPHRASE).unlock()
    finally:
        target.close()
    server: WebDavServer = webdav.server
    server.faults.mode = "pause"  # the child's upload stops half-way, holding the lock
    env = {**os.environ, **webdav.environ, "ASSISTA_SYNC_PASSPHRASE": PASSPHRASE}
    child = subprocess.Popen(
        [sys.executable, "-m", "desktop", "sync", "--data-dir", str(a.path),
         "--target", webdav.url],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert server.faults.paused.wait(60), "the child's upload never started"
        with pytest.raises(SyncBusyError):
            a.sync()
        server.faults.mode = None
        server.faults.release.set()
        _out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
    finally:
        server.faults.release.set()
        if child.poll() is None:
            child.kill()
    report = a.sync()
    assert report.uploaded == 0  # the child sent it all, under numbers nobody reused
    a.db.close()


def _copy(a: Device, devices: MakeDevice, name: str) -> Device:
    a.db.close()  # checkpoints the WAL into the file that is copied
    copy = devices(name)
    copy.db.close()
    for leftover in copy.path.iterdir():
        leftover.unlink()
    shutil.copy2(a.path / "assista.sqlite3", copy.path / "assista.sqlite3")
    copy.__post_init__()  # reopen on the copied file
    a.__post_init__()
    return copy


def test_a_copied_data_folder_becomes_a_new_device(devices: MakeDevice) -> None:
    a = devices("a")
    a.chat("Before the copy", "written on A")
    first = a.sync()
    c = _copy(a, devices, "c")

    report = c.sync()
    assert report.device != first.device
    assert report.downloaded == 0  # what it uploaded as A is not read back
    c.chat("On the copy", "written on C")
    c.sync()
    a.chat("On the original", "written on A later")
    assert a.sync().device == first.device  # the original keeps its id
    c.sync()
    b = devices("b")
    b.sync()
    everything = {"written on A", "written on C", "written on A later"}
    assert a.texts() == b.texts() == c.texts() == everything
    assert set(a.place.stored()) >= {f"devices/{first.device}/seg-000000000001.bin",
                                     f"devices/{report.device}/seg-000000000001.bin"}


def test_the_same_folder_on_another_machine_is_a_new_device(
    devices: MakeDevice, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = devices("a")
    a.chat("Chat", "hello")
    first = a.sync().device
    assert a.sync().device == first
    monkeypatch.setattr(guard, "machine_id", lambda: "another-machine")
    assert a.sync().device != first


def test_a_device_from_before_the_check_keeps_its_id(devices: MakeDevice) -> None:
    a = devices("a")
    a.chat("Chat", "hello")
    first = a.sync().device
    a.db.execute("DELETE FROM sync_meta WHERE key = ?", (guard.DEVICE_HOME,))
    assert a.sync().device == first

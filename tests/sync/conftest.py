"""Devices (data folders) and targets (folder, WebDAV, S3 on real loopback servers)."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from desktop.core.messages import Message, TextPart
from desktop.storage.assistants import AssistantStore
from desktop.storage.database import Database
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_store import SettingsStore
from desktop.sync.run import SyncEngine, SyncReport
from desktop.sync.targets.address import open_target
from tests.sync.servers import PASSWORD, S3Server, WebDavServer

PASSPHRASE = "correct horse battery staple"


@dataclass
class Place:
    """A target as a device sees it (URL and environment) and as the server stores it."""

    kind: str
    url: str
    environ: dict[str, str]
    stored: Callable[[], dict[str, bytes]]
    server: Any = None
    wipe: Callable[[], None] = lambda: None  # empty the target (the user reset it)


@dataclass
class Device:
    path: Path
    place: Place
    db: Database = field(init=False)
    sessions: SessionStore = field(init=False)

    def __post_init__(self) -> None:
        self.db = Database(self.path / "assista.sqlite3")
        self.sessions = SessionStore(self.db)

    @property
    def assistants(self) -> AssistantStore:
        return AssistantStore(self.db)

    @property
    def settings(self) -> SettingsStore:
        return SettingsStore(self.db)

    def sync(self, passphrase: str = PASSPHRASE, **kwargs: Any) -> SyncReport:
        target = open_target(self.place.url, self.place.environ)
        try:
            return SyncEngine(self.db, target, passphrase, **kwargs).run()
        finally:
            target.close()

    def chat(self, title: str, *texts: str) -> str:
        info = self.sessions.create_session(title)
        for text in texts:
            self.say(info.id, text)
        return info.id

    def say(self, chat_id: str, text: str, *, parent: str | None = None,
            role: str = "user") -> Message:
        message = Message(role=role, parts=[TextPart(text=text)])  # type: ignore[arg-type]
        if parent is None:
            self.sessions.save_message(chat_id, message)
        else:
            self.sessions.add_message(chat_id, message, parent)
        return message

    def user_data(self) -> list[Any]:
        """Everything the user sees (to check a failed sync changed nothing)."""
        rows: list[Any] = []
        for sql in (
            "SELECT * FROM sessions ORDER BY id",
            "SELECT id, session_id, parent_id, parts, status FROM messages ORDER BY id",
            "SELECT * FROM assistants ORDER BY id",
            "SELECT * FROM settings ORDER BY key",
        ):
            rows.append([tuple(r) for r in self.db.query(sql)])
        return rows

    def texts(self) -> set[str]:
        return {m.text for s in self.sessions.list_sessions()
                for m in self.sessions.load_all_messages(s.id)}


def _files(root: Path) -> Callable[[], dict[str, bytes]]:
    def stored() -> dict[str, bytes]:
        return {str(p.relative_to(root)): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    return stored


def _emptier(root: Path) -> Callable[[], None]:
    def wipe() -> None:
        for child in root.iterdir() if root.exists() else []:
            if child.is_dir():
                shutil.rmtree(child)
            else:
                child.unlink()

    return wipe


@pytest.fixture
def webdav(tmp_path: Path) -> Iterator[Place]:
    root = tmp_path / "webdav-root"
    root.mkdir()
    server = WebDavServer(root)
    try:
        yield Place("webdav", server.url, {"ASSISTA_SYNC_PASSWORD": PASSWORD}, _files(root),
                    server, _emptier(root))
    finally:
        server.stop()


@pytest.fixture
def s3() -> Iterator[Place]:
    server = S3Server()
    try:
        yield Place("s3", server.url, server.environ, server.objects, server, server.wipe)
    finally:
        server.stop()


@pytest.fixture
def folder(tmp_path: Path) -> Place:
    root = tmp_path / "shared-folder"
    return Place("folder", root.as_uri(), {}, _files(root), None, _emptier(root))


@pytest.fixture(params=["folder", "webdav", "s3"])
def place(request: pytest.FixtureRequest) -> Place:
    result: Place = request.getfixturevalue(request.param)
    return result


@pytest.fixture
def devices(tmp_path: Path, place: Place) -> Iterator[Callable[[str], Device]]:
    made: list[Device] = []

    def make(name: str) -> Device:
        path = tmp_path / f"device-{name}"
        path.mkdir()
        device = Device(path, place)
        made.append(device)
        return device

    yield make
    for device in made:
        device.db.close()

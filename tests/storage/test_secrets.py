"""SecretStore: keyring when usable, else a private file. Never the real keyring."""

from __future__ import annotations

import json
import logging
import os
import stat
from pathlib import Path
from typing import ClassVar

import keyring.backend
import pytest
from keyring.backends import chainer, fail, null

from desktop.core.errors import StorageError
from desktop.core.messages import Message
from desktop.core.settings import AppSettings, ProviderConfig
from desktop.storage import logs
from desktop.storage.database import Database
from desktop.storage.export import export_sessions
from desktop.storage.paths import DataPaths
from desktop.storage.secrets import INSECURE_NOTICE, SERVICE_NAME, SecretStore
from desktop.storage.sessions import SessionStore
from desktop.storage.settings_store import SettingsStore

from .conftest import BrokenKeyring, MemoryKeyring

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")
KEY = "sk-proj-SUPERSECRETvalue0123456789abcdef"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_file_backend_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    secrets = SecretStore(path, force_file=True)
    assert not secrets.is_secure
    assert secrets.backend_name == "file"
    assert secrets.notice == INSECURE_NOTICE
    assert secrets.get("p1") is None
    assert not path.exists()  # nothing written until a key is set

    secrets.set("p1", f"  {KEY}\n")
    secrets.set("p2", "other-key")
    assert secrets.get("p1") == KEY
    assert SecretStore(path, force_file=True).get("p2") == "other-key"
    assert json.loads(path.read_text()) == {"version": 1, "keys": {"p1": KEY, "p2": "other-key"}}

    secrets.delete("p1")
    secrets.delete("p1")  # missing is fine
    assert secrets.get("p1") is None
    secrets.set("p2", "")  # empty deletes
    assert secrets.get("p2") is None
    assert [p.name for p in tmp_path.iterdir()] == ["secrets.json"]  # no temp files left


@posix_only
def test_file_is_0600_even_with_permissive_umask(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    old = os.umask(0o000)
    try:
        SecretStore(path, force_file=True).set("p", KEY)
        assert _mode(path) == 0o600
        SecretStore(path, force_file=True).set("q", KEY)  # replaced file too
        assert _mode(path) == 0o600
    finally:
        os.umask(old)


@posix_only
def test_loosened_file_is_tightened(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "secrets.json"
    SecretStore(path, force_file=True).set("p", KEY)
    path.chmod(0o644)
    with caplog.at_level(logging.WARNING):
        assert SecretStore(path, force_file=True).get("p") == KEY
    assert _mode(path) == 0o600
    assert "readable by others" in caplog.text


def test_corrupt_file_raises_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    path.write_text("{nope")
    with pytest.raises(StorageError, match="cannot be read"):
        SecretStore(path, force_file=True).get("p")
    path.write_text("[]")
    with pytest.raises(StorageError, match="unexpected format"):
        SecretStore(path, force_file=True).get("p")


def test_keyring_backend_is_used_when_usable(tmp_path: Path) -> None:
    backend = MemoryKeyring()
    path = tmp_path / "secrets.json"
    secrets = SecretStore(path, backend=backend)
    assert secrets.is_secure
    assert secrets.notice is None
    assert secrets.backend_name == MemoryKeyring.name
    secrets.set("p1", KEY)
    assert backend.store == {(SERVICE_NAME, "p1"): KEY}
    assert secrets.get("p1") == KEY
    assert not path.exists()
    secrets.delete("p1")
    secrets.delete("p1")
    assert backend.store == {}


def test_default_backend_comes_from_keyring(tmp_path: Path) -> None:
    # conftest patches keyring.get_keyring to return a MemoryKeyring.
    secrets = SecretStore(tmp_path / "s.json")
    assert secrets.is_secure
    assert secrets.backend_name == MemoryKeyring.name


class _EmptyChainer(chainer.ChainerBackend):
    backends: ClassVar[list[object]] = []


@pytest.mark.parametrize("backend_cls", [fail.Keyring, null.Keyring, _EmptyChainer])
def test_unusable_backends_fall_back_to_file(
    tmp_path: Path, backend_cls: type[keyring.backend.KeyringBackend]
) -> None:
    path = tmp_path / "secrets.json"
    secrets = SecretStore(path, backend=backend_cls())
    assert not secrets.is_secure
    assert secrets.backend_name == "file"
    secrets.set("p", KEY)
    assert secrets.get("p") == KEY
    assert path.exists()


def test_backend_failing_on_use_falls_back(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "secrets.json"
    secrets = SecretStore(path, backend=BrokenKeyring())
    assert secrets.is_secure  # not known until used
    with caplog.at_level(logging.WARNING):
        secrets.set("p", KEY)
    assert not secrets.is_secure
    assert secrets.get("p") == KEY
    assert json.loads(path.read_text())["keys"] == {"p": KEY}
    assert "failed (PasswordSetError)" in caplog.text
    assert KEY not in caplog.text


def test_probe_detects_broken_backend_early(tmp_path: Path) -> None:
    assert not SecretStore(tmp_path / "s.json", backend=BrokenKeyring(), probe=True).is_secure
    assert SecretStore(tmp_path / "s.json", backend=MemoryKeyring(), probe=True).is_secure


def test_file_keys_move_to_keyring_when_it_works(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    SecretStore(path, force_file=True).set("p", KEY)
    backend = MemoryKeyring()
    secrets = SecretStore(path, backend=backend)
    assert secrets.get("p") == KEY
    assert backend.store == {(SERVICE_NAME, "p"): KEY}
    assert json.loads(path.read_text())["keys"] == {}


def test_setting_in_keyring_removes_file_copy(tmp_path: Path) -> None:
    path = tmp_path / "secrets.json"
    SecretStore(path, force_file=True).set("p", "old-key-value")
    SecretStore(path, backend=MemoryKeyring()).set("p", KEY)
    assert "old-key-value" not in path.read_text()


def test_empty_provider_id_is_rejected(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        SecretStore(tmp_path / "s.json", force_file=True).set(" ", KEY)


def test_keys_never_reach_database_export_or_logs(paths: DataPaths) -> None:
    log_file = logs.setup_logging(paths, logging.DEBUG)
    secrets = SecretStore(paths.secrets_path, force_file=True)
    with Database(paths.db_path) as db:
        sessions = SessionStore(db)
        settings = SettingsStore(db)
        provider = ProviderConfig(name="OpenAI", base_url="https://api.openai.com/v1")
        settings.save_provider(provider)
        secrets.set(provider.id, KEY)
        settings.save(AppSettings(active_provider_id=provider.id))
        s = sessions.create_session("chat", provider_id=provider.id, model="gpt")
        for i in range(20):
            sessions.save_message(s.id, Message.user(f"question {i}"))
        assert secrets.get(provider.id) == KEY
        logging.getLogger("test").info("using key %s for %s", secrets.get(provider.id), provider.id)

        exported = export_sessions(sessions, None, "json") + export_sessions(
            sessions, None, "markdown"
        )
        assert KEY not in exported
        wal = Path(f"{paths.db_path}-wal")
        assert wal.exists()  # checked while the WAL holds the recent writes
        for file in (paths.db_path, wal):
            assert KEY.encode() not in file.read_bytes()
    assert KEY.encode() not in paths.db_path.read_bytes()
    logs.shutdown_logging()
    text = log_file.read_text()
    assert "using key [REDACTED]" in text
    assert KEY not in text
    assert KEY in paths.secrets_path.read_text()  # it is where it should be


def test_damaged_file_does_not_block_working_keyring(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "secrets.json"
    path.write_text("{damaged")
    backend = MemoryKeyring()
    secrets = SecretStore(path, backend=backend)
    with caplog.at_level(logging.WARNING):
        assert secrets.get("p") is None
        secrets.set("p", KEY)
        assert secrets.get("p") == KEY
        secrets.delete("p")
    assert backend.store == {}
    assert "Ignoring it" in caplog.text


def test_data_paths_location(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    portable = DataPaths.resolve(tmp_path / "portable")
    secrets = SecretStore(portable)
    assert secrets.path == portable.secrets_path
    assert not secrets.is_secure  # portable data folders carry their keys in the file
    assert SecretStore(portable, force_file=False).is_secure

    monkeypatch.setattr(
        "platformdirs.user_data_dir", lambda *a, **k: str(tmp_path / "user" / "Assista")
    )
    installed = DataPaths.resolve()
    assert SecretStore(installed).is_secure  # the (in-memory) keyring
    assert not SecretStore(installed, force_file=True).is_secure

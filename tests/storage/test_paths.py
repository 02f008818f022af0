"""DataPaths resolution and the --data-dir flag."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import platformdirs
import pytest

from desktop.core.errors import StorageError
from desktop.storage.paths import DataPaths, data_dir_from_argv

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permissions")


@posix_only
def test_portable_dir_is_created_private(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        paths = DataPaths.resolve(tmp_path / "portable" / "data")
    finally:
        os.umask(old)
    assert paths.portable
    assert paths.root == (tmp_path / "portable" / "data").absolute()
    assert paths.db_path == paths.root / "assista.sqlite3"
    assert paths.secrets_path == paths.root / "secrets.json"
    assert paths.logs_dir == paths.root / "logs"
    assert paths.log_file == paths.logs_dir / "assista.log"
    for folder in (paths.root, paths.logs_dir):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    # Intermediate folders are not forced private.
    assert stat.S_IMODE((tmp_path / "portable").stat().st_mode) == 0o755


def test_default_uses_platformdirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, object]] = []

    def fake_user_data_dir(appname: str, appauthor: object = None) -> str:
        seen.append((appname, appauthor))
        return str(tmp_path / "user-data" / appname)

    monkeypatch.setattr(platformdirs, "user_data_dir", fake_user_data_dir)
    paths = DataPaths.resolve()
    assert seen == [("Assista", False)]
    assert not paths.portable
    assert paths.root == tmp_path / "user-data" / "Assista"
    assert paths.logs_dir.is_dir()
    assert DataPaths.resolve("  ").root == paths.root  # blank means default


def test_no_create(tmp_path: Path) -> None:
    paths = DataPaths.resolve(tmp_path / "x", create=False)
    assert not paths.root.exists()
    paths.ensure()
    assert paths.logs_dir.is_dir()


def test_existing_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "afile"
    target.write_text("x")
    with pytest.raises(StorageError, match="not a folder"):
        DataPaths.resolve(target)


def test_tilde_is_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    assert DataPaths.resolve("~/portable", create=False).root == tmp_path / "portable"


def test_data_dir_from_argv() -> None:
    assert data_dir_from_argv([]) is None
    assert data_dir_from_argv(["--verbose"]) is None
    assert data_dir_from_argv(["--data-dir", "/x"]) == "/x"
    assert data_dir_from_argv(["--data-dir=/y", "--other"]) == "/y"
    assert data_dir_from_argv(["--", "--data-dir", "/z"]) is None
    with pytest.raises(StorageError, match="needs a folder"):
        data_dir_from_argv(["--data-dir"])
    with pytest.raises(StorageError, match="needs a folder"):
        data_dir_from_argv(["--data-dir="])

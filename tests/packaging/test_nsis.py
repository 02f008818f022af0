"""The Windows installer script compiles (around a placeholder payload) with makensis."""

from __future__ import annotations

import shutil
from pathlib import Path

import app_identity
import nsis
import pytest

pytestmark = pytest.mark.skipif(shutil.which("makensis") is None,
                                reason="needs makensis (apt-get install nsis)")


def test_installer_compiles_with_version_info(tmp_path: Path) -> None:
    installer = nsis.check(tmp_path)
    ident = app_identity.identity()
    assert installer.name == f"Assista-{ident.version}-windows-x64-setup.exe"
    data = installer.read_bytes()
    assert data[:2] == b"MZ"
    # The version resource is stored uncompressed, in UTF-16.
    for text in ("ProductVersion", ident.version, ident.dotted_numeric, "Assista Desktop"):
        assert text.encode("utf-16-le") in data, text


def test_missing_defines_fail_clearly(tmp_path: Path) -> None:
    bundle = nsis.placeholder_bundle(tmp_path)
    with pytest.raises(nsis.NsisError, match="makensis failed"):
        nsis.compile_installer(bundle, tmp_path / "out.exe", makensis="false")


def test_script_is_per_user_with_start_menu_and_uninstaller() -> None:
    script = nsis.SCRIPT.read_text(encoding="utf-8")
    assert "RequestExecutionLevel user" in script
    assert "$LOCALAPPDATA\\Programs" in script
    assert "CreateShortcut \"$SMPROGRAMS\\" in script
    assert "WriteUninstaller" in script and 'Section "Uninstall"' in script
    assert "HKCU \"${REG_UNINSTALL}\"" in script and "HKLM" not in script

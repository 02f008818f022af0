"""macOS plists and scripts, the CI workflow and the spec's settings, checked as files."""

from __future__ import annotations

import plistlib
import shutil
import subprocess
from pathlib import Path

import app_identity
import bundle_check
import pytest

PACKAGING = Path(__file__).resolve().parents[2] / "packaging"


def test_info_plist() -> None:
    with (PACKAGING / "macos" / "Info.plist").open("rb") as handle:
        info = plistlib.load(handle)
    assert info["CFBundleName"] == app_identity.APP_NAME
    assert info["CFBundlePackageType"] == "APPL"
    assert info["NSHighResolutionCapable"] is True
    assert float(info["LSMinimumSystemVersion"]) >= 13  # Qt 6.11's minimum
    # The spec fills these from pyproject.toml; a copy here would go stale.
    assert "CFBundleShortVersionString" not in info and "CFBundleVersion" not in info


def test_entitlements_are_minimal() -> None:
    with (PACKAGING / "macos" / "entitlements.plist").open("rb") as handle:
        entitlements = plistlib.load(handle)
    assert entitlements == {"com.apple.security.cs.allow-unsigned-executable-memory": True}


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("script", ["macos/make_dmg.sh", "macos/sign_and_notarize.sh",
                                    "linux/appimage/AppRun"])
def test_shell_scripts_parse(script: str) -> None:
    subprocess.run(["bash", "-n", str(PACKAGING / script)], check=True)


def test_notarization_is_off_without_secrets(tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run(["bash", str(PACKAGING / "macos" / "sign_and_notarize.sh"),
                           str(tmp_path / "x.dmg")], capture_output=True, text=True, env=env,
                          check=False)
    assert done.returncode == 0
    assert "notarization skipped" in done.stdout


def test_ci_matrix_tests_builds_smokes_and_uploads() -> None:
    yaml = pytest.importorskip("yaml")
    workflow_file = PACKAGING.parent / ".github" / "workflows" / "installers.yml"
    workflow = yaml.safe_load(workflow_file.read_text("utf-8"))
    test = workflow["jobs"]["test"]
    assert {os.split("-")[0] for os in test["strategy"]["matrix"]["os"]} == {
        "ubuntu", "windows", "macos"}
    assert any(step.get("run") == "python packaging/dev.py test" for step in test["steps"])
    build = workflow["jobs"]["build"]
    assert build["needs"] == "test"
    oses = {entry["os"].split("-")[0] for entry in build["strategy"]["matrix"]["include"]}
    assert oses == {"ubuntu", "windows", "macos"}
    runs = "\n".join(step.get("run", "") for step in build["steps"])
    assert "python packaging/build.py --smoke" in runs
    assert "--version" in runs and "--smoke" in runs
    assert any(step.get("uses", "").startswith("actions/upload-artifact")
               for step in build["steps"])
    triggers = workflow.get("on", workflow.get(True))
    assert triggers["push"]["tags"] == ["v*"]


@pytest.mark.parametrize("platform", ["linux", "win32", "darwin"])
def test_layout_and_requirements_per_platform(platform: str, tmp_path: Path) -> None:
    where = bundle_check.layout(tmp_path, platform)
    plugins = bundle_check.required_plugins(platform)
    modules = bundle_check.required_modules(platform)
    assert "desktop.gui" in modules and "certifi" in modules
    if platform == "win32":
        assert where.executable.name == "assista.exe"
        assert "platforms/qwindows.dll" in plugins and "win32ctypes" in modules
    elif platform == "darwin":
        assert where.executable.parts[-3:] == ("Contents", "MacOS", "assista")
        assert "platforms/libqcocoa.dylib" in plugins
        assert "keyring.backends.macOS" in modules
    else:
        assert "platforms/libqxcb.so" in plugins and "platforms/libqwayland.so" in plugins
        assert "keyring.backends.SecretService" in modules and "jeepney" in modules


def test_check_reports_a_missing_bundle(tmp_path: Path) -> None:
    result = bundle_check.check_bundle(tmp_path, "linux")
    assert result.problems == [f"no executable at {tmp_path / 'assista' / 'assista'}"]


@pytest.mark.parametrize(("level", "deflated"), [(0, False), (6, True)])
def test_the_check_tells_a_stored_module_from_a_deflated_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, level: int, deflated: bool) -> None:
    """The bundle's modules are stored, not deflated (packaging/build.py's
    PYZ_COMPRESSION_LEVEL); the check reads an archive PyInstaller itself wrote."""
    pytest.importorskip("PyInstaller")
    from PyInstaller.archive import writers
    from PyInstaller.archive.readers import ZlibArchiveReader

    source = tmp_path / "sample.py"
    source.write_text("TEXT = 'a line of text' * 50\n" * 40)
    code = compile(source.read_text(), str(source), "exec")
    monkeypatch.setattr(writers.ZlibArchiveWriter, "_COMPRESSION_LEVEL", level)
    archive = tmp_path / "modules.pyz"
    writers.ZlibArchiveWriter(str(archive), [("sample", str(source), "PYMODULE")],
                              {"sample": code})
    assert bundle_check.entry_deflated(ZlibArchiveReader(str(archive)), "sample") is deflated

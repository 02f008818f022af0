"""What the bundle keeps: Qt plugins, modules, data, and Linux libraries left to the system."""

from __future__ import annotations

import sys
from pathlib import Path

import bundle_policy as policy
import pytest


@pytest.mark.parametrize(
    ("src", "dest", "kept"),
    [
        ("/x/libqxcb.so", "PySide6/Qt/plugins/platforms", True),
        ("/x/libqwayland.so", "PySide6/Qt/plugins/platforms", True),
        ("/x/libqoffscreen.so", "PySide6/Qt/plugins/platforms", True),
        ("/x/libqeglfs.so", "PySide6/Qt/plugins/platforms", False),
        ("/x/libqvnc.so", "PySide6/Qt/plugins/platforms", False),
        ("/x/libqgtk3.so", "PySide6/Qt/plugins/platformthemes", False),
        ("/x/libqxdgdesktopportal.so", "PySide6/Qt/plugins/platformthemes", True),
        ("/x/libqsvg.so", "PySide6/Qt/plugins/imageformats", True),
        ("/x/libqpdf.so", "PySide6/Qt/plugins/imageformats", False),
        ("/x/libqsvgicon.so", "PySide6/Qt/plugins/iconengines", True),
        ("/x/libqopensslbackend.so", "PySide6/Qt/plugins/tls", False),
        ("/x/libqevdevmouseplugin.so", "PySide6/Qt/plugins/generic", False),
        ("/x/libxdg-shell.so", "PySide6/Qt/plugins/wayland-shell-integration", True),
        ("/x/libivi-shell.so", "PySide6/Qt/plugins/wayland-shell-integration", False),
        ("C:/x/qwindows.dll", "PySide6\\plugins\\platforms", True),
        ("C:/x/qdirect2d.dll", "PySide6\\plugins\\platforms", False),
        ("C:/x/qmodernwindowsstyle.dll", "PySide6\\plugins\\styles", True),
        ("/x/libqcocoa.dylib", "PySide6/Qt/plugins/platforms", True),
        ("/x/libqmacstyle.dylib", "PySide6/Qt/plugins/styles", True),
        ("/x/libQt6Core.so.6", "PySide6/Qt/lib", True),  # not a plugin
    ],
)
def test_qt_plugin_rules(src: str, dest: str, kept: bool) -> None:
    assert policy.keep_qt_plugin(src, dest) is kept


def test_filter_keeps_order_and_non_plugins() -> None:
    binaries = [("/a/libqxcb.so", "PySide6/Qt/plugins/platforms"),
                ("/a/libqeglfs.so", "PySide6/Qt/plugins/platforms"),
                ("/a/libQt6Gui.so.6", "PySide6/Qt/lib")]
    assert policy.filter_qt_binaries(binaries) == [binaries[0], binaries[2]]


@pytest.mark.parametrize(
    ("name", "system"),
    [
        ("libfontconfig.so.1", True), ("libfreetype.so.6", True), ("libstdc++.so.6", True),
        ("libgcc_s.so.1", True), ("libX11.so.6", True), ("libX11-xcb.so.1", True),
        ("libxcb-render.so.0", True), ("libxcb-xkb.so.1", True), ("libdbus-1.so.3", True),
        # carried: the xcb-util family (the classic "could not load the Qt platform plugin
        # xcb" failure on systems without libxcb-cursor0), xkbcommon, Python's libraries
        ("libxcb-cursor.so.0", False), ("libxcb-render-util.so.0", False),
        ("libxcb-icccm.so.4", False), ("libxkbcommon.so.0", False), ("libssl.so.3", False),
        ("libpython3.11.so.1.0", False), ("libglib-2.0.so.0", False),
    ],
)
def test_linux_system_libraries(name: str, system: bool) -> None:
    assert policy.is_linux_system_lib(name) is system


def test_data_rules() -> None:
    assert policy.keep_data("PySide6/Qt/translations/qtbase_de.qm")  # a translated language
    assert not policy.keep_data("PySide6/Qt/translations/qtbase_ru.qm")
    assert not policy.keep_data("PySide6/Qt/translations/qt_help_de.qm")
    assert policy.keep_data("resources/icons/assista.svg")
    assert policy.keep_data("certifi/cacert.pem")


def test_excluded_modules_spare_what_the_app_needs() -> None:
    needed = {"PySide6.QtCore", "PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg",
              "sqlite3", "ssl", "asyncio", "email", "json", "certifi"}
    assert not needed & set(policy.EXCLUDED_MODULES)


def test_the_bundle_leaves_out_what_only_the_tools_need() -> None:
    import app_identity
    import runtime_deps

    left_out = set(runtime_deps.outside_closure(app_identity.identity().name))
    # the test tools and what they pulled in (lxml: 9.7 MiB of the bundle, from python-docx)
    assert {"lxml", "pytest", "hypothesis", "docx", "openai"} <= left_out
    # what the app imports stays, and no standard-library module is named
    assert not {"httpx", "PySide6", "openpyxl", "keyring", "pydantic", "qasync", "certifi",
                "mcp", "numpy", "desktop"} & left_out
    assert not left_out & set(sys.stdlib_module_names)
    spec = (Path(__file__).resolve().parents[2] / "packaging/assista.spec").read_text()
    assert "runtime_deps.outside_closure(IDENT.name)" in spec  # (what the Analysis excludes)


def test_a_build_on_metadata_older_than_pyproject_stops_with_what_to_run(tmp_path: Path) -> None:
    """The bundle takes its dependencies from the installed metadata: a dependency
    declared since the venv's install was made would be left out (msgspec once was, and
    only the bundle's smoke test found it), so the build names it before PyInstaller."""
    import app_identity
    import runtime_deps

    name = app_identity.identity().name
    declared = app_identity.dependencies()
    assert "msgspec>=0.18" in declared
    assert runtime_deps.not_installed_as_declared(name, declared) == []  # (dev.py's install)
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[project]\nname = "x"\nversion = "1"\ndependencies = '
                         '["httpx>=0.27", "Not_Yet.Installed[extra]>=2; python_version > \'3\'"]\n',
                         encoding="utf-8")
    assert runtime_deps.not_installed_as_declared(
        name, app_identity.dependencies(pyproject)) == ["Not_Yet.Installed"]
    assert runtime_deps.not_installed_as_declared("no-such-distribution", ["httpx"]) == ["httpx"]
    build = (Path(__file__).resolve().parents[2] / "packaging/build.py").read_text()
    assert "require_current_metadata(ident.name)" in build

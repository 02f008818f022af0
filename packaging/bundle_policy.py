"""What goes into the PyInstaller bundle: Qt plugins kept, Python modules and data left out.

Read by ``assista.spec`` and by the Qt hooks in ``pyinstaller_hooks/`` (which filter Qt
plugins *before* PyInstaller scans them for shared-library dependencies, so a dropped
plugin's libraries — GTK for the gtk3 theme, EGLFS, QtNetwork, QtPdf — are never pulled
in). Standard library only; no PyInstaller import, so tests can check the rules.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePath

#: Qt plugin directory -> plugin stems kept (file name without ``lib`` prefix and
#: extension). A directory not listed is dropped entirely; ``None`` keeps everything.
QT_PLUGINS_KEPT: dict[str, frozenset[str] | None] = {
    # Window-system backends: X11 and Wayland on Linux, native on Windows/macOS, and
    # offscreen for headless runs (CI smoke tests, QT_QPA_PLATFORM=offscreen).
    "platforms": frozenset({"qxcb", "qwayland", "qoffscreen", "qwindows", "qcocoa"}),
    "platforms/darwin": None,  # macOS permission plugins
    # Native widget looks: Windows 11 / Vista styles, macOS style.
    "styles": None,
    # Images the app shows: SVG icons, ICO (Windows), photos users may attach.
    "imageformats": frozenset({"qsvg", "qico", "qjpeg", "qgif", "qwebp"}),
    "iconengines": frozenset({"qsvgicon"}),
    # GL integration of the xcb backend (QtWidgets itself draws in software).
    "xcbglintegrations": frozenset({"qxcb-egl-integration", "qxcb-glx-integration"}),
    # Dead keys / compose sequences, and input methods (CJK) through IBus.
    "platforminputcontexts": frozenset({
        "composeplatforminputcontextplugin", "ibusplatforminputcontextplugin",
    }),
    # Portal file dialogs and colour scheme (Flatpak/Snap, QT_QPA_PLATFORMTHEME).
    # Not gtk3: it links GTK, which cannot be carried reliably and is optional anyway.
    "platformthemes": frozenset({"qxdgdesktopportal"}),
    # Client side of Wayland: window decorations, xdg-shell, EGL buffers.
    "wayland-decoration-client": frozenset({"adwaita", "bradient"}),
    "wayland-shell-integration": frozenset({"xdg-shell"}),
    "wayland-graphics-integration-client": frozenset({"qt-plugin-wayland-egl"}),
}

#: Python modules never bundled: other Qt modules, tests, tk, developer tools that a
#: dependency imports optionally (pydantic's mypy plugin, httpx's CLI, pdb), terminal
#: line editing (``readline`` would carry the GPL-3.0 libreadline), and ``requests``
#: (jsonschema imports it only to fetch remote schemas, which we never do).
EXCLUDED_MODULES: tuple[str, ...] = (
    "tkinter", "_tkinter", "turtle", "turtledemo", "idlelib", "readline", "curses",
    "unittest", "doctest", "pdb", "pydoc", "pydoc_data", "lib2to3", "test",
    "pytest", "_pytest", "pytestqt", "pytest_asyncio", "ruff",
    "mypy", "mypyc", "ast_serialize", "pydantic.mypy", "pydantic.v1.mypy",
    # click stays: uvicorn (imported by the mcp SDK's client modules) needs it.
    "httpx._main", "rich", "requests", "urllib3", "charset_normalizer",
    "setuptools", "pkg_resources", "pip", "IPython",
    "PySide6.QtNetwork", "PySide6.QtDBus", "PySide6.QtQml", "PySide6.QtQuick",
    "PySide6.QtQuickWidgets", "PySide6.QtOpenGL", "PySide6.QtOpenGLWidgets",
    "PySide6.QtPrintSupport", "PySide6.QtSql", "PySide6.QtTest", "PySide6.QtXml",
    "PySide6.QtConcurrent", "PySide6.QtHelp", "PySide6.QtDesigner", "PySide6.QtUiTools",
    "PySide6.QtSvgWidgets", "PySide6.QtPdf", "PySide6.QtPdfWidgets",
    "PySide6.scripts", "shiboken6.scripts",
)

#: Data files left out, by destination folder: Qt's QML/metatype data, and Qt's own UI
#: translations except those below.
EXCLUDED_DATA_DIRS: tuple[str, ...] = (
    "PySide6/Qt/translations", "PySide6/Qt/qml", "PySide6/Qt/metatypes",
    "PySide6/Qt/resources/qtwebengine",
)
#: Qt's own translations kept (standard buttons, file dialogs, context menus) for the
#: languages the app is translated into (packaging/translations.py LANGUAGES).
QT_TRANSLATIONS_KEPT: frozenset[str] = frozenset(
    f"PySide6/Qt/translations/qtbase_{language}.qm"
    for language in ("zh_CN", "es", "de", "ja", "fr"))

#: Linux libraries the bundle takes from the system although PyInstaller would carry
#: them (PyInstaller already leaves glibc, libGL/libEGL, libdrm, libxcb and libwayland
#: to the system). Each must match something outside the bundle:
LINUX_SYSTEM_LIBS: tuple[str, ...] = (
    # the system's /etc/fonts configuration (an older bundled fontconfig warns about
    # or ignores newer config syntax)
    r"libfontconfig\.so", r"libfreetype\.so",
    # the GPU driver that libGL/libEGL load links the system libstdc++; a bundled, older
    # copy loaded first makes it fail with "GLIBCXX_3.4.x not found"
    r"libstdc\+\+\.so", r"libgcc_s\.so",
    # the X11 client libraries the system's libGL/libxcb are built with, and every
    # extension library of the libxcb source package (same version as libxcb.so.1)
    r"libX11(-xcb)?\.so", r"libXau\.so", r"libXdmcp\.so", r"libXext\.so", r"libXrender\.so",
    r"libxcb-(composite|damage|dbe|dpms|dri2|dri3|glx|present|randr|record|render|res"
    r"|screensaver|shape|shm|sync|xf86dri|xfixes|xinerama|xinput|xkb|xtest|xv|xvmc)\.so",
    # the system D-Bus library (and with it libsystemd, libgcrypt, lz4, zstd, libcap)
    r"libdbus-1\.so",
)

#: Distributions whose files PyInstaller's own hooks collect (the spec skips them when
#: it gathers the data files of the runtime dependencies).
HOOKED_DISTRIBUTIONS: tuple[str, ...] = ("PySide6-Essentials", "PySide6", "shiboken6")

#: Files never collected as package data.
DATA_EXCLUDES: tuple[str, ...] = (
    "**/*.pyi", "**/py.typed", "**/__pycache__", "**/*.pyx", "**/*.pxd", "**/*.c", "**/*.h",
    "**/tests/**", "**/test/**",
)

_LINUX_SYSTEM = re.compile(r"^(?:" + "|".join(LINUX_SYSTEM_LIBS) + r")(?:\.\d+)*$")


def is_linux_system_lib(name: str) -> bool:
    """Whether a library file name is one the Linux bundle leaves to the system."""
    return bool(_LINUX_SYSTEM.match(name))


# PySide6/Qt/plugins/<kind> on Linux and macOS, PySide6/plugins/<kind> on Windows.
_PLUGIN_DIR = re.compile(r"(?:^|/)(?:Qt\d?|PySide6)/plugins/(?P<kind>.+)$")
_LIB_SUFFIX = re.compile(r"\.(?:so(?:\.\d+)*|dylib|dll)$")


def plugin_stem(filename: str) -> str:
    """``libqxcb.so`` -> ``qxcb``; ``qwindows.dll`` -> ``qwindows``."""
    name = _LIB_SUFFIX.sub("", PurePath(filename).name)
    return name[3:] if name.startswith("lib") else name


def plugin_kind(dest_dir: str) -> str | None:
    """The plugin type (``platforms``, ``imageformats``...) for a bundle folder, else None."""
    match = _PLUGIN_DIR.search(dest_dir.replace("\\", "/"))
    return match.group("kind") if match else None


def keep_qt_plugin(src: str, dest_dir: str) -> bool:
    """Whether a file collected into ``dest_dir`` passes the Qt plugin rules."""
    kind = plugin_kind(dest_dir)
    if kind is None:
        return True  # not a plugin
    if kind not in QT_PLUGINS_KEPT:
        return False
    kept = QT_PLUGINS_KEPT[kind]
    return kept is None or plugin_stem(src) in kept


def filter_qt_binaries(binaries: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Hook ``binaries`` ((src, dest_dir) pairs) without the plugins we do not ship."""
    return [(src, dest) for src, dest in binaries if keep_qt_plugin(src, dest)]


def keep_data(dest_name: str) -> bool:
    """Whether a data file with this bundle-relative destination is shipped."""
    posix = PurePath(dest_name).as_posix()
    if posix in QT_TRANSLATIONS_KEPT:
        return True
    return not any(posix == d or posix.startswith(d + "/") for d in EXCLUDED_DATA_DIRS)

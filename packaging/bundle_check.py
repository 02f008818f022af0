"""Static checks of a built bundle: what must be in it, and what must not.

Runs on every build (``build.py``), before any installer is made, so a bundle missing
the xcb plugin, the CA certificates, a keyring backend or an app module fails at once
with one line naming what is missing — not on a user's machine.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import app_identity

ROOT = app_identity.ROOT


@dataclass
class Layout:
    """Where things are in a bundle for the current OS."""

    root: Path  #: dist/assista (Linux, Windows) or dist/Assista.app (macOS)
    executable: Path
    internal: Path  #: the folder holding Python packages and data
    qt_plugins: Path


def layout(dist: Path, platform: str = sys.platform) -> Layout:
    if platform == "darwin":
        root = dist / f"{app_identity.APP_NAME}.app"
        frameworks = root / "Contents" / "Frameworks"
        return Layout(root, root / "Contents" / "MacOS" / app_identity.EXECUTABLE, frameworks,
                      frameworks / "PySide6" / "Qt" / "plugins")
    root = dist / app_identity.EXECUTABLE
    exe = root / (f"{app_identity.EXECUTABLE}.exe" if platform == "win32" else
                  app_identity.EXECUTABLE)
    internal = root / "_internal"
    plugins = internal / "PySide6" / ("plugins" if platform == "win32" else "Qt/plugins")
    return Layout(root, exe, internal, plugins)


def _plugin(name: str, platform: str) -> str:
    if platform == "win32":
        return f"{name}.dll"
    return f"lib{name}.dylib" if platform == "darwin" else f"lib{name}.so"


def required_plugins(platform: str = sys.platform) -> list[str]:
    native = {"win32": ["qwindows"], "darwin": ["qcocoa"]}.get(platform, ["qxcb", "qwayland"])
    names = [f"platforms/{_plugin(p, platform)}" for p in [*native, "qoffscreen"]]
    names += [f"imageformats/{_plugin(p, platform)}" for p in ("qsvg", "qjpeg", "qico")]
    names.append(f"iconengines/{_plugin('qsvgicon', platform)}")
    if platform.startswith("linux"):
        names.append(f"xcbglintegrations/{_plugin('qxcb-glx-integration', platform)}")
    return names


def required_modules(platform: str = sys.platform) -> list[str]:
    """Python modules that must be in the archive: every app module, TLS, keyring backends."""
    modules = sorted(
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "desktop").rglob("*.py")
    )
    modules += ["certifi", "httpx", "socksio", "qasync", "keyring.backends.chainer",
                "miniaudio"]  # read aloud and dictation
    backend = {"win32": "keyring.backends.Windows", "darwin": "keyring.backends.macOS"}
    modules.append(backend.get(platform, "keyring.backends.SecretService"))
    if platform.startswith("linux"):
        modules += ["secretstorage", "jeepney"]
    elif platform == "win32":
        modules.append("win32ctypes")
    return modules


FORBIDDEN_MODULES = ("tkinter", "unittest", "PySide6.QtNetwork", "PySide6.QtQml", "mypy",
                     "pytest", "pydantic.mypy", "requests", "readline")
#: Files that must not be shipped: GPL-only libraries (libreadline comes with Python's
#: readline module) would put the whole bundle under the GPL.
FORBIDDEN_FILES = ("libreadline.so*", "libgtk-3.so*", "libQt6Network*", "libQt6Qml*",
                   "Qt6Network.dll", "Qt6Qml.dll")


def undeclared_dependencies(dist: Path, platform: str = sys.platform) -> list[str]:
    """Bundled distributions that pyproject.toml does not declare (the import works in
    this venv only because something else installed them)."""
    import runtime_deps

    tops = {name.split(".")[0] for name in archive_modules(layout(dist, platform).executable)}
    return runtime_deps.undeclared(app_identity.identity().name, tops)


def archive_modules(executable: Path) -> set[str]:
    """Module names in the executable's embedded PYZ archive (needs PyInstaller)."""
    from PyInstaller.archive.readers import pkg_archive_contents

    return set(pkg_archive_contents(str(executable), recursive=True))


def archive_deflated(executable: Path, module: str = "desktop.__main__") -> bool:
    """Whether ``module``'s entry in the executable's embedded PYZ archive is deflated
    (see ``PYZ_COMPRESSION_LEVEL`` in packaging/build.py; needs PyInstaller)."""
    from PyInstaller.archive.readers import CArchiveReader

    pkg = CArchiveReader(str(executable))
    name = next(name for name, entry in pkg.toc.items() if entry[-1] == "z")  # (the PYZ)
    return entry_deflated(pkg.open_embedded_archive(name), module)


def entry_deflated(pyz: Any, module: str) -> bool:
    """Whether ``module``'s entry in ``pyz`` (a PyInstaller ZlibArchiveReader) is
    stored smaller than the marshalled code it holds."""
    _typecode, _offset, stored = pyz.toc[module]
    return bool(stored < len(pyz.extract(module, raw=True)))


@dataclass
class CheckResult:
    problems: list[str] = field(default_factory=list)
    checked: int = 0

    def need(self, condition: bool, problem: str) -> None:
        self.checked += 1
        if not condition:
            self.problems.append(problem)


def check_bundle(dist: Path, platform: str = sys.platform) -> CheckResult:
    where = layout(dist, platform)
    result = CheckResult()
    result.need(where.executable.is_file(), f"no executable at {where.executable}")
    if result.problems:
        return result
    for plugin in required_plugins(platform):
        result.need((where.qt_plugins / plugin).is_file(), f"Qt plugin missing: {plugin}")
    for unwanted in ("platformthemes/libqgtk3.so", "platforms/libqeglfs.so", "tls"):
        result.need(not (where.qt_plugins / unwanted).exists(), f"unwanted Qt plugin: {unwanted}")
    data = where.root / "Contents" / "Resources" if platform == "darwin" else where.internal
    files = {
        "CA certificates (certifi)": "certifi/cacert.pem",
        "app icon": "resources/icons/assista.svg",
        "app icon PNG": "resources/icons/png/assista-256.png",
    }
    if (ROOT / "resources" / "web" / "mermaid" / "mermaid.min.js").is_file():
        # fetched for this build (packaging/web_assets.py): it and its licence go along
        files["mermaid.js"] = "resources/web/mermaid/mermaid.min.js"
        files["mermaid.js licence"] = "resources/web/mermaid/LICENSE"
    for what, rel in files.items():
        result.need((data / rel).is_file() or (where.internal / rel).is_file(),
                    f"{what} missing: {rel}")
    metadata = [*data.glob("assista_desktop-*.dist-info"), *where.internal.glob(
        "assista_desktop-*.dist-info")]
    result.need(bool(metadata), "assista_desktop dist-info missing (the version would be wrong)")
    for pattern in FORBIDDEN_FILES:
        found = next(where.internal.rglob(pattern), None)
        result.need(found is None, f"file bundled but excluded by policy: {found}")
    qt_translations = where.internal / "PySide6" / "Qt" / "translations"
    for name in ("qtbase_de.qm", "qtbase_zh_CN.qm"):
        result.need((qt_translations / name).is_file(), f"Qt's own translation missing: {name}")
    result.need(not (qt_translations / "qtbase_ru.qm").exists(),
                "Qt translations bundled for a language the app is not translated into")
    for language in ("de", "zh_CN", "en"):
        name = f"resources/i18n/assista_{language}.qm"
        result.need((data / name).is_file() or (where.internal / name).is_file(),
                    f"interface translation missing: {name} (packaging/translations.py build)")
    modules = archive_modules(where.executable)
    for name in required_modules(platform):
        result.need(name in modules, f"module missing from the bundle: {name}")
    for name in FORBIDDEN_MODULES:
        result.need(name not in modules, f"module bundled but excluded by policy: {name}")
    result.need(not archive_deflated(where.executable),
                "the bundled modules are deflated (build with packaging/build.py: it sets "
                "PyInstaller's compression level)")
    return result

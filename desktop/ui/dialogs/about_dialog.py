"""Help > About: the app's version, and every bundled component with its licence.

Components come from the installed distribution metadata: in a PyInstaller bundle every
``*.dist-info`` folder it carries (the spec copies them all), from a virtual environment
the app's runtime dependency tree. Qt, Python and, in a bundle, the native libraries it
carries (OpenSSL, SQLite, ICU, ...) are listed too. Selecting a row shows the licence
text when the component ships one. Open it with :meth:`AboutDialog.open` (not exec()).
"""

from __future__ import annotations

import importlib.metadata as md
import platform
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, qVersion
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop import APP_ID, APP_NAME, __version__
from desktop.resources import icon_path

if TYPE_CHECKING:
    from desktop.ui.window.dialog_registry import DialogServices

_LICENCE_FILE = re.compile(r"(^|/)(LICEN[CS]E|COPYING|NOTICE|AUTHORS)[^/]*$", re.IGNORECASE)
_NO_TEXT = str(QT_TRANSLATE_NOOP(
    "AboutDialog", "No licence text is shipped with this component; its licence is named above."))

#: Native libraries a bundle may carry: (file name prefix, component, licence).
NATIVE_LIBRARIES: tuple[tuple[str, str, str], ...] = (
    ("libssl", "OpenSSL", "Apache-2.0"),
    ("libcrypto", "OpenSSL", "Apache-2.0"),
    ("libsqlite3", "SQLite", "blessing (public domain)"),
    ("libicu", "ICU", "Unicode-3.0"),
    ("libffi", "libffi", "MIT"),
    ("libz.", "zlib", "Zlib"),
    ("libbz2", "bzip2", "bzip2-1.0.6"),
    ("liblzma", "XZ Utils (liblzma)", "0BSD"),
    ("libzstd", "Zstandard", "BSD-3-Clause"),
    ("libglib-2.0", "GLib", "LGPL-2.1-or-later"),
    ("libpcre2", "PCRE2", "BSD-3-Clause"),
    ("libxkbcommon", "libxkbcommon", "MIT"),
    ("libxcb-", "xcb-util", "MIT"),
    ("libuuid", "libuuid", "BSD-3-Clause"),
)


class Component(msgspec.Struct, frozen=True):
    """A component the About dialog lists: name, version, licence (and its text, if shipped)."""

    name: str
    version: str
    licence: str
    read_text: Callable[[], str | None] = lambda: None


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _field(meta: md.PackageMetadata, key: str) -> str:
    values: list[object] = meta.get_all(key, [])
    return str(values[0]) if values else ""


def licence_name(meta: md.PackageMetadata) -> str:
    """SPDX expression, else a short License field, else the licence classifiers."""
    expression = _field(meta, "License-Expression").strip()
    if expression:
        return expression
    field = _field(meta, "License").strip()
    if field and "\n" not in field and len(field) <= 80 and field.upper() != "UNKNOWN":
        return field
    classifiers = [str(c).rsplit("::", 1)[-1].strip() for c in meta.get_all("Classifier", [])
                   if str(c).startswith("License ::")]
    if classifiers:
        return ", ".join(classifiers)
    return "see licence text" if field else "unknown"


def _licence_reader(dist: md.Distribution) -> Callable[[], str | None]:
    def read() -> str | None:
        texts = []
        for file in dist.files or ():
            if _LICENCE_FILE.search(str(file)):
                path = Path(str(dist.locate_file(file)))
                if path.is_file():
                    texts.append(f"== {file.name} ==\n{path.read_text('utf-8', 'replace')}")
        if texts:
            return "\n\n".join(texts)
        field = _field(dist.metadata, "License")
        return field if "\n" in field else None

    return read


_REQUIREMENT = re.compile(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[([^\]]*)\])?")
_EXTRA_MARKER = re.compile(r"""extra\s*==\s*['"]([^'"]+)['"]""")


def _requirements(
    dist: md.Distribution, extras: frozenset[str]
) -> list[tuple[str, frozenset[str]]]:
    """(name, extras) a distribution needs, given the extras asked of it. Other markers
    (platform, Python version) are not evaluated: a requirement for another OS is simply
    not installed and skipped by the caller."""
    needed = []
    for text in dist.requires or ():
        wanted = _EXTRA_MARKER.search(text)
        if wanted and wanted.group(1) not in extras:
            continue
        match = _REQUIREMENT.match(text)
        if match:
            asked = frozenset(e.strip() for e in (match.group(2) or "").split(",") if e.strip())
            needed.append((match.group(1), asked))
    return needed


def _distributions() -> list[md.Distribution]:
    if getattr(sys, "frozen", False):
        return list(md.distributions())  # exactly what the bundle carries
    found: dict[str, md.Distribution] = {}
    visited: set[tuple[str, frozenset[str]]] = set()
    queue: list[tuple[str, frozenset[str]]] = [(APP_ID, frozenset())]
    while queue:
        name, extras = queue.pop()
        if (_canonical(name), extras) in visited:
            continue
        visited.add((_canonical(name), extras))
        try:
            dist = md.distribution(name)
        except md.PackageNotFoundError:
            continue  # e.g. a dependency for another OS
        found[_canonical(name)] = dist
        queue.extend(_requirements(dist, extras))
    return list(found.values())


def _native_components(folder: Path) -> list[Component]:
    names = [p.name for p in folder.glob("*") if p.is_file()]
    seen: dict[str, Component] = {}
    for prefix, component, licence in NATIVE_LIBRARIES:
        if component not in seen and any(n.startswith(prefix) for n in names):
            seen[component] = Component(component, "bundled", licence)
    return list(seen.values())


def bundled_components() -> list[Component]:
    """Qt, Python, the Python packages and (in a bundle) native libraries, by name."""
    components = [
        Component("Qt", qVersion(), "LGPL-3.0-only"),
        Component("Python", platform.python_version(), "PSF-2.0"),
    ]
    seen = {APP_ID}
    for dist in _distributions():
        name = _field(dist.metadata, "Name") or "?"
        if _canonical(name) in seen:
            continue
        seen.add(_canonical(name))
        components.append(Component(name, dist.version, licence_name(dist.metadata),
                                    _licence_reader(dist)))
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        components += _native_components(Path(bundle))
        components += _native_components(Path(bundle) / "PySide6" / "Qt" / "lib")
    unique = {c.name: c for c in components}
    return sorted(unique.values(), key=lambda c: c.name.lower())


def app_licence() -> str:
    try:
        return licence_name(md.metadata(APP_ID))
    except md.PackageNotFoundError:
        return "MIT"


class AboutDialog(QDialog):
    """Version, licence and third-party components. Non-modal-safe: use :meth:`open`."""

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> AboutDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(parent)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("About {app}").format(app=APP_NAME))
        self.resize(720, 560)
        self.components = bundled_components()
        self._build()

    def _build(self) -> None:
        root = QVBoxLayout(self)
        header = QHBoxLayout()
        icon = icon_path()
        if icon is not None:
            picture = QLabel()
            picture.setPixmap(QIcon(str(icon)).pixmap(64, 64))
            header.addWidget(picture, 0, Qt.AlignmentFlag.AlignTop)
        self.summary = QLabel(
            f"<h2>{APP_NAME} {__version__}</h2>"
            + "<p>" + self.tr("A desktop chat client for large language models.") + "</p><p>"
            + self.tr("Licence: {licence}").format(licence=app_licence()) + "<br>"
            f"Qt {qVersion()} · PySide6 {pyside_version} · Python "
            f"{platform.python_version()} · {platform.system()} {platform.machine()}</p>"
        )
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.summary.setWordWrap(True)
        header.addWidget(self.summary, 1)
        root.addLayout(header)
        root.addWidget(QLabel(self.tr("{app} is built with these components:").format(
            app=APP_NAME)))

        self.table = QTableWidget(len(self.components), 3)
        self.table.setAccessibleName(self.tr("Bundled components"))
        self.table.setHorizontalHeaderLabels(
            [self.tr("Component"), self.tr("Version"), self.tr("Licence")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        for row, component in enumerate(self.components):
            for column, text in enumerate((component.name, component.version,
                                           component.licence)):
                item = QTableWidgetItem(text)
                item.setData(Qt.ItemDataRole.UserRole, row)
                self.table.setItem(row, column, item)
        self.table.resizeColumnsToContents()
        self.table.currentCellChanged.connect(self._show_licence)

        self.licence_text = QPlainTextEdit()
        self.licence_text.setReadOnly(True)
        self.licence_text.setAccessibleName(self.tr("Licence text"))
        self.licence_text.setPlaceholderText(self.tr("Select a component to read its licence."))
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(self.licence_text)
        splitter.setSizes([300, 200])
        root.addWidget(splitter, 1)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        root.addWidget(buttons)

    def _show_licence(self, row: int, *_: int) -> None:
        if not 0 <= row < len(self.components):
            return
        component = self.components[row]
        try:
            text = component.read_text()
        except OSError:
            text = None
        self.licence_text.setPlainText(
            f"{component.name} {component.version}: {component.licence}\n\n"
            + (text or self.tr(_NO_TEXT))
        )

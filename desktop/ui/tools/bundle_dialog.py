"""Install extension: the form for an MCP bundle's configuration.

Shown after a ``.mcpb`` was opened and checked (File → Install extension…, or a
bundle dropped on the window): what the bundle is (name, version, author,
description) and one row per field of its ``user_config`` — text (hidden while typed
when sensitive: it goes to the keyring), number, a switch, a folder or file with a
Browse button. Install adds the server (Settings → MCP servers); a refusal (a required
field empty, a number out of range, a runtime missing) is shown above the buttons and
the form stays open. Cancel discards the unpacked bundle.

Gets a :class:`~desktop.tools.mcp.bundle_install.BundleService`, not the app.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.ui import theme
from desktop.ui.error_text import error_text

if TYPE_CHECKING:
    from desktop.tools.mcp.bundle_install import BundleService, OpenedBundle
    from desktop.tools.mcp.bundles import ConfigField

_ERRORS: dict[str, object] = {
    "bundle_missing": QT_TRANSLATE_NOOP("BundleDialog", "{path} is not a file."),
    "bundle_refused": QT_TRANSLATE_NOOP("BundleDialog", "The extension is refused: {reason}"),
    "bundle_exists": QT_TRANSLATE_NOOP(
        "BundleDialog", "An MCP server named {name} is already installed."),
    "bundle_value_missing": QT_TRANSLATE_NOOP("BundleDialog", "{field} is required."),
    "bundle_value_bad": QT_TRANSLATE_NOOP("BundleDialog", "{field} is not a valid value."),
}


def bundle_error_text(exc: AssistaError) -> str:
    if exc.code not in _ERRORS:
        return error_text(exc.info, str(exc))
    source = str(_ERRORS[exc.code])
    try:
        return QCoreApplication.translate("BundleDialog", source).format(**exc.params)
    except (KeyError, IndexError, ValueError):
        return source.format(**exc.params)


class _PathRow(QWidget):
    def __init__(self, field: ConfigField, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.field = field
        self.edit = QLineEdit()
        self.edit.setAccessibleName(field.title)
        browse = QPushButton(self.tr("Browse…"))
        browse.clicked.connect(self._browse)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(browse)

    def _browse(self) -> None:
        if self.field.type == "directory":
            path = QFileDialog.getExistingDirectory(self, self.field.title)
        else:
            path, _ = QFileDialog.getOpenFileName(self, self.field.title)
        if path:
            self.edit.setText(path)


class BundleDialog(QDialog):
    def __init__(self, service: BundleService, bundle: OpenedBundle,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.service = service
        self.bundle = bundle
        self.installed_name: str | None = None
        manifest = bundle.manifest
        self.setWindowTitle(self.tr("Install extension"))
        title = QLabel(self.tr("{name} {version}").format(name=manifest.display_name,
                                                           version=manifest.version))
        font = title.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        title.setFont(font)
        title.setTextFormat(Qt.TextFormat.PlainText)
        about = QLabel(self.tr("By {author}. {description}").format(
            author=manifest.author, description=manifest.description))
        about.setWordWrap(True)
        about.setTextFormat(Qt.TextFormat.PlainText)
        note = QLabel(self.tr(
            "It runs on this computer as the MCP server {name}, with your permissions; its "
            "tools ask before they act unless you allow them. Secrets go to the keyring.")
            .format(name=manifest.name))
        note.setWordWrap(True)
        note.setObjectName("emptyHint")
        form = QFormLayout()
        self.inputs: dict[str, Callable[[], Any]] = {}
        for field in manifest.fields:
            form.addRow(self._label(field), self._input(field))
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet(f"color: {theme.colors()['error']};")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.install_button = buttons.addButton(self.tr("Install"),
                                                QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.accepted.connect(self.install)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (title, about, note):
            layout.addWidget(widget)
        if manifest.fields:
            layout.addLayout(form)
        layout.addWidget(self.error_label)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.finished.connect(self._finished)
        self.install_button.setDefault(True)
        self.setMinimumWidth(min(560, max(420, self.sizeHint().width())))
        self.resize(560, self.sizeHint().height())

    def _label(self, field: ConfigField) -> QLabel:
        text = field.title + ("" if not field.required else " *")
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        if field.description:
            label.setToolTip(field.description)
        return label

    def _input(self, field: ConfigField) -> QWidget:
        if field.type == "boolean":
            box = QCheckBox()
            box.setAccessibleName(field.title)
            box.setChecked(bool(field.default))
            self.inputs[field.key] = box.isChecked
            return box
        if field.type in ("directory", "file"):
            row = _PathRow(field)
            if field.default is not None and not isinstance(field.default, list):
                row.edit.setText(str(field.default))
            self.inputs[field.key] = row.edit.text
            if field.description:
                row.edit.setPlaceholderText(field.description)
            return row
        edit = QLineEdit()
        edit.setAccessibleName(field.title)
        if field.description:
            edit.setPlaceholderText(field.description)
        if field.sensitive:
            edit.setEchoMode(QLineEdit.EchoMode.Password)
        elif field.default is not None and not isinstance(field.default, list):
            edit.setText(str(field.default))
        self.inputs[field.key] = edit.text
        return edit

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in self.bundle.manifest.fields:
            value = self.inputs[f.key]()
            if f.multiple and isinstance(value, str):
                value = [v.strip() for v in value.split(",") if v.strip()]
            out[f.key] = value
        return out

    def install(self) -> None:
        try:
            self.installed_name = self.service.install(self.bundle, self.values())
        except AssistaError as exc:
            self.error_label.setText(bundle_error_text(exc))
            return
        except OSError as exc:
            self.error_label.setText(self.tr("The extension could not be installed: {reason}")
                                     .format(reason=exc.strerror or str(exc)))
            return
        self.accept()

    def _finished(self, _result: int) -> None:
        if self.installed_name is None:
            self.bundle.discard()


def _refused(parent: QWidget | None, text: str) -> QMessageBox:
    """Say why a bundle cannot be installed (window-modal, opened: no nested loop)."""
    box = QMessageBox(QMessageBox.Icon.Warning,
                      QCoreApplication.translate("BundleDialog", "Install extension"), text,
                      QMessageBox.StandardButton.Ok, parent)
    box.setObjectName("bundleRefused")
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.open()
    return box


def open_bundle_dialog(service: BundleService, path: str,
                       parent: QWidget | None) -> BundleDialog | None:
    """Open and check the bundle at ``path``; its form (shown), or None after saying why
    it is refused."""
    try:
        bundle = service.open(path)
    except AssistaError as exc:
        _refused(parent, bundle_error_text(exc))
        return None
    except OSError as exc:
        _refused(parent, exc.strerror or str(exc))
        return None
    dialog = BundleDialog(service, bundle, parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.setWindowModality(Qt.WindowModality.WindowModal)
    dialog.open()
    return dialog

"""Settings → Sync…: where this machine syncs to, its credentials and passphrase, on/off.

The target (a folder, WebDAV, S3) is machine-local configuration (``sync`` in the
settings table, see :mod:`desktop.sync.config`); the passphrase, the WebDAV password
and the S3 secret key go to the keyring only. *Test connection* and the key derivation
behind it run in a worker thread: Argon2id is slow on purpose and a server may not
answer. Open with ``open()``, never ``exec()`` (the window's asyncio tasks run on Qt's
loop).
"""

from __future__ import annotations

import contextlib
import threading
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from PySide6.QtCore import QT_TRANSLATE_NOOP, Qt, QUrl, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.sync.config import (
    PASSPHRASE_ID,
    SyncConfig,
    target_secret_id,
)
from desktop.sync.targets.registry import target_class, url_forms
from desktop.ui.error_text import exception_text
from desktop.ui.form_rows import whole
from desktop.ui.icons import icon
from desktop.ui.plain_text import plain_label
from desktop.ui.window.sync_scheduler import one_line

if TYPE_CHECKING:
    from desktop.sync.run import SyncReport
    from desktop.sync.service import SyncService
    from desktop.ui.window.dialog_registry import DialogServices
    from desktop.ui.window.sync_scheduler import SyncScheduler

# (translated where they are shown)
SAVED = str(QT_TRANSLATE_NOOP("SyncDialog", "saved in the keyring — type to replace"))
# The words of the targets' label codes (TargetFacts.user_label, secret_label), and
# what to say when a field a target requires is empty.
_LABELS = {"password": str(QT_TRANSLATE_NOOP("SyncDialog", "Password")),
           "secret_access_key": str(QT_TRANSLATE_NOOP("SyncDialog", "Secret access key")),
           "user_name": str(QT_TRANSLATE_NOOP("SyncDialog", "User name")),
           "access_key_id": str(QT_TRANSLATE_NOOP("SyncDialog", "Access key ID"))}
_MISSING = {"password": str(QT_TRANSLATE_NOOP("SyncDialog", "Enter the password.")),
            "secret_access_key": str(QT_TRANSLATE_NOOP("SyncDialog",
                                                       "Enter the S3 secret access key.")),
            "user_name": str(QT_TRANSLATE_NOOP("SyncDialog", "Enter the user name.")),
            "access_key_id": str(QT_TRANSLATE_NOOP("SyncDialog",
                                                   "Enter the S3 access key ID."))}


class SyncDialog(QDialog):
    saved = Signal()
    testFinished = Signal(str, bool)  # the result line, whether the connection works
    _tested = Signal(str, bool)  # from the worker: the result line, whether it worked

    @classmethod
    def for_window(cls, services: DialogServices, parent: QWidget) -> SyncDialog:
        """Built by the window's dialog launcher (dialog_registry)."""
        return cls(services.app.sync, services.sync_scheduler(), parent)

    def __init__(self, sync: SyncService, scheduler: SyncScheduler,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(self.tr("Sync"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.sync, self.scheduler = sync, scheduler
        self._testing = False
        self.ok: bool | None = None
        self._has_passphrase = bool(sync.secret(PASSPHRASE_ID))
        intro = QLabel(self.tr("Sync your chats, assistants and settings with your other computers "
                       "through storage you own. Everything is encrypted here with your "
                       "passphrase before it leaves; API keys never do."))
        intro.setWordWrap(True)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addLayout(self._build_form(sync.config()))
        self.result_label = plain_label()
        self.result_label.setObjectName("syncResult")
        self.result_label.setWordWrap(True)
        self.result_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.status_label = plain_label()
        self.status_label.setObjectName("syncDialogStatus")
        self.status_label.setWordWrap(True)  # a long error must not widen the dialog
        layout.addWidget(self.result_label)
        layout.addWidget(self.status_label)
        layout.addLayout(self._build_actions())

        self.url_edit.textChanged.connect(self._kind_changed)
        self.passphrase_edit.textChanged.connect(self._kind_changed)
        self.folder_button.clicked.connect(self._choose_folder)
        self._tested.connect(self._show_tested, Qt.ConnectionType.QueuedConnection)
        scheduler.statusChanged.connect(self._show_status)
        scheduler.finished.connect(self._synced)
        self._kind_changed()
        self._say("")
        self._show_status()
        # Sized for the rows this target shows (the hidden ones would leave a gap).
        self.resize(560, self.sizeHint().height())

    def _build_form(self, config: SyncConfig) -> QFormLayout:
        self.url_edit = QLineEdit(config.url)
        forms = url_forms().replace(" or ", ", ")
        self.url_edit.setPlaceholderText(forms)
        self.url_edit.setToolTip(forms)
        self.url_edit.setAccessibleName(self.tr("Sync target"))  # (no buddy label in a row)
        self.folder_button = QPushButton(icon("folder"), self.tr("Folder…"))
        self.folder_button.setToolTip(self.tr("Choose a folder another tool replicates (Syncthing, "
                                      "Dropbox, iCloud Drive, OneDrive)"))
        url_row = QHBoxLayout()
        url_row.setContentsMargins(0, 0, 0, 0)
        url_row.addWidget(self.url_edit, 1)
        url_row.addWidget(self.folder_button)
        self.user_edit = QLineEdit(config.user)
        self.secret_edit = QLineEdit()
        self.secret_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.endpoint_edit = QLineEdit(config.endpoint)
        self.endpoint_edit.setPlaceholderText(
                self.tr("AWS when empty; e.g. https://minio.example:9000"))
        self.region_edit = QLineEdit(config.region)
        self.region_edit.setPlaceholderText(self.tr("us-east-1"))
        self.passphrase_edit = QLineEdit()
        self.passphrase_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat_edit = QLineEdit()
        self.repeat_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.repeat_edit.setPlaceholderText(self.tr("the same passphrase again"))
        if self._has_passphrase:
            self.passphrase_edit.setPlaceholderText(self.tr(SAVED))
        else:
            self.passphrase_edit.setPlaceholderText(self.tr("the same on every computer; it cannot "
                                                    "be recovered"))
        self.enabled_box = whole(QCheckBox(
                self.tr("Sync automatically (after changes and every 5 minutes)")))
        self.enabled_box.setChecked(config.enabled or not config.configured)

        self.form = form = QFormLayout()
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(self.tr("Target"), url_row)
        form.addRow(self.tr("User name"), self.user_edit)
        form.addRow(self.tr("Password"), self.secret_edit)
        form.addRow(self.tr("S3 endpoint"), self.endpoint_edit)
        form.addRow(self.tr("S3 region"), self.region_edit)
        form.addRow(self.tr("Passphrase"), self.passphrase_edit)
        form.addRow(self.tr("Repeat"), self.repeat_edit)
        form.addRow("", self.enabled_box)
        return form

    def _build_actions(self) -> QHBoxLayout:
        self.test_button = QPushButton(icon("plug"), self.tr("Test connection"))
        self.sync_button = QPushButton(icon("refresh-cw"), self.tr("Sync now"))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        actions = QHBoxLayout()
        actions.addWidget(self.test_button)
        actions.addWidget(self.sync_button)
        actions.addStretch(1)
        actions.addWidget(self.buttons)
        self.test_button.clicked.connect(self.test)
        self.sync_button.clicked.connect(self.sync_now)
        self.buttons.accepted.connect(self.save_and_close)
        self.buttons.rejected.connect(self.reject)
        return actions

    # -- the form -------------------------------------------------------------------

    def config(self) -> SyncConfig:
        return SyncConfig(url=self.url_edit.text().strip(), user=self.user_edit.text().strip(),
                          enabled=self.enabled_box.isChecked(),
                          endpoint=self.endpoint_edit.text().strip(),
                          region=self.region_edit.text().strip(),
                          # not in the form: kept as saved
                          max_upload_mb=self.sync.config().max_upload_mb)

    def _kind_changed(self) -> None:
        target = target_class(self.config().kind)  # (its class says which fields it uses)
        fields = target.fields if target is not None else frozenset()
        self.form.setRowVisible(self.user_edit, "user" in fields)
        self.form.setRowVisible(self.secret_edit, "secret" in fields)
        self.form.setRowVisible(self.endpoint_edit, "endpoint" in fields)
        self.form.setRowVisible(self.region_edit, "region" in fields)
        if target is not None:
            for edit, code in ((self.user_edit, target.user_label),
                               (self.secret_edit, target.secret_label)):
                label = self.form.labelForField(edit)
                if isinstance(label, QLabel) and code in _LABELS:
                    label.setText(self.tr(_LABELS[code]))
        in_url = urlsplit(self.url_edit.text().strip()).username if "user" in fields else None
        self.user_edit.setPlaceholderText(
            self.tr("{user} (from the URL)").format(user=unquote(in_url)) if in_url else "")
        secret_id = target_secret_id(self.config())
        stored = bool(secret_id and self.sync.secret(secret_id))
        self.secret_edit.setPlaceholderText(self.tr(SAVED) if stored else "")
        # Twice when it is first set or replaced: a typo would lock every other device out.
        self.form.setRowVisible(self.repeat_edit, not self._has_passphrase
                                or bool(self.passphrase_edit.text()))

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Choose the sync folder"))
        if folder:
            self.url_edit.setText(QUrl.fromLocalFile(folder).toString())

    def problem(self) -> str | None:
        """Why the form cannot be saved or tested, in one sentence; None when it can."""
        config = self.config()
        target = target_class(config.kind) if config.kind else None
        if not config.url or target is None:
            forms = url_forms().replace(" or ", ", ")
            return (self.tr("Enter where to sync: {forms}.") if not config.url else
                    self.tr("Unknown target: use {forms}.")).format(forms=forms)
        if "user" in target.required and not config.user:
            return self.tr(_MISSING[target.user_label])
        if "secret" in target.required and not self._secret():
            return self.tr(_MISSING[target.secret_label])
        typed = self.passphrase_edit.text()
        if not typed and not self._has_passphrase:
            return self.tr("Choose a passphrase (the same on every computer).")
        if typed and typed != self.repeat_edit.text():
            return self.tr("The two passphrases differ.")
        return None

    def _secret(self) -> str | None:
        secret_id = target_secret_id(self.config())
        typed = self.secret_edit.text()
        if typed or secret_id is None:
            return typed or None
        return self.sync.secret(secret_id)

    def _passphrase(self) -> str:
        return self.passphrase_edit.text() or self.sync.secret(PASSPHRASE_ID) or ""

    def _say(self, text: str, ok: bool | None = None) -> None:
        self.ok = ok  # how the last action ended (None: under way)
        self.result_label.setText(text)
        self.result_label.setVisible(bool(text))

    # -- actions --------------------------------------------------------------------

    def save(self) -> bool:
        problem = self.problem()
        if problem:
            self._say(problem, False)
            return False
        config = self.config()
        if self.passphrase_edit.text():
            self.sync.set_secret(PASSPHRASE_ID, self.passphrase_edit.text())
            self._has_passphrase = True
            self.passphrase_edit.clear()
            self.repeat_edit.clear()
            self.passphrase_edit.setPlaceholderText(self.tr(SAVED))
        secret_id = target_secret_id(config)
        if secret_id and self.secret_edit.text():
            self.sync.set_secret(secret_id, self.secret_edit.text())
            self.secret_edit.clear()
        self.sync.save_config(config)
        self._kind_changed()
        self.scheduler.reconfigure()
        self.saved.emit()
        return True

    def save_and_close(self) -> None:
        if self.save():
            self.accept()

    def test(self) -> None:
        problem = self.problem()
        if problem:
            self._say(problem, False)
            return
        if self._testing:
            return
        self._testing = True
        self.test_button.setEnabled(False)
        self._say(self.tr("Testing the connection…"))
        args = (self.config(), self._secret(), self._passphrase())
        threading.Thread(target=self._test_worker, args=args, name="assista-sync-test",
                         daemon=True).start()

    def _test_worker(self, config: SyncConfig, secret: str | None, passphrase: str) -> None:
        try:
            text = self.sync.check(config, secret, passphrase)
            ok = True
        except AssistaError as exc:
            text, ok = one_line(exception_text(exc), 300), False
        except Exception as exc:  # a bug must still end the test visibly
            text, ok = f"{type(exc).__name__}: {one_line(str(exc), 200)}", False
        with contextlib.suppress(RuntimeError):  # the dialog was closed meanwhile
            self._tested.emit(text, ok)

    def _show_tested(self, text: str, ok: bool) -> None:
        self._testing = False
        self.test_button.setEnabled(True)
        self._say(text, ok)
        self.testFinished.emit(text, ok)

    def sync_now(self) -> None:
        if self.save() and self.scheduler.sync_now():
            self._say(self.tr("Syncing…"))

    def _synced(self, report: SyncReport | None, error: str) -> None:
        if report is not None:
            self._say(report.summary(), True)
        elif error:
            self._say(self.tr("Sync failed: {error}").format(error=one_line(error, 300)), False)

    def _show_status(self) -> None:
        configured = self.scheduler.config.configured
        self.status_label.setVisible(configured)
        if configured:
            self.status_label.setText(self.tr("Status: {status}").format(
                status=self.scheduler.text()))
        self.sync_button.setEnabled(not self.scheduler.running)

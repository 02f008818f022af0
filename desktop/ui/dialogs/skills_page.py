"""Settings → Skills: the Agent Skills the app offers the model.

One row per skill found in the app's skills folder (and the default workspace's
``.agents/skills`` and ``.claude/skills``): its switch (on: offered to every chat
unless the chat or its assistant turns it off), name, where it is, and its
description — or, for a broken one, what is wrong with it. Add from a folder or a
zip, remove an added one (its folder is deleted), open the skills folder. The
switches are saved with the dialog; adding and removing happen at once.

Gets a :class:`~desktop.skills.service.SkillService`, not the app.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, Qt, QUrl
from PySide6.QtGui import QColor, QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.ui import theme
from desktop.ui.error_text import error_text
from desktop.ui.wrap_row import WrapRow

if TYPE_CHECKING:
    from desktop.skills.format import Skill
    from desktop.skills.service import SkillService

#: The page's wording of the errors adding or removing a skill can carry.
_ERRORS: dict[str, object] = {
    "skill_missing": QT_TRANSLATE_NOOP("SkillsPage", "{path} does not exist."),
    "skill_no_file": QT_TRANSLATE_NOOP("SkillsPage", "There is no SKILL.md in it."),
    "skill_invalid": QT_TRANSLATE_NOOP("SkillsPage", "The skill is not valid: {reason}"),
    "skill_bad_zip": QT_TRANSLATE_NOOP("SkillsPage", "The zip is refused: {reason}"),
    "skill_too_big": QT_TRANSLATE_NOOP("SkillsPage", "The skill is larger than 50 MB."),
    "skill_exists": QT_TRANSLATE_NOOP("SkillsPage", "A skill named {name} is already added."),
    "skill_unknown": QT_TRANSLATE_NOOP("SkillsPage", "There is no added skill named {name}."),
}
COLUMNS = 3


def skill_error_text(exc: AssistaError) -> str:
    if exc.code not in _ERRORS:
        return error_text(exc.info, str(exc))
    source = str(_ERRORS[exc.code])
    try:
        return QCoreApplication.translate("SkillsPage", source).format(**exc.params)
    except (KeyError, IndexError, ValueError):
        return source.format(**exc.params)


class SkillsPage(QWidget):
    def __init__(self, skills: SkillService, workspace: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.skills = skills
        self.workspace = workspace
        self._off: set[str] = set()
        intro = QLabel(self.tr(
            "Skills are folders of instructions, scripts and resources the model loads when "
            "a task needs them. The model sees each skill's name and description; it reads "
            "the rest with the Load skill tool, and runs scripts with Run command (which "
            "asks first). A chat or assistant can turn skills off for itself."))
        intro.setWordWrap(True)
        intro.setObjectName("emptyHint")
        self.table = QTableWidget(0, COLUMNS)
        self.table.setAccessibleName(self.tr("Skills"))
        self.table.setHorizontalHeaderLabels([self.tr("Skill"), self.tr("From"),
                                              self.tr("Description")])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.itemChanged.connect(self._switched)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.empty = QLabel(self.tr("No skills yet. Add a folder that holds a SKILL.md, or a "
                                    "zip of one."))
        self.empty.setObjectName("emptyHint")
        self.empty.setWordWrap(True)
        self.add_folder_button = QPushButton(self.tr("Add folder…"))
        self.add_folder_button.clicked.connect(self.add_folder)
        self.add_zip_button = QPushButton(self.tr("Add zip…"))
        self.add_zip_button.clicked.connect(self.add_zip)
        self.remove_button = QPushButton(self.tr("Remove"))
        self.remove_button.clicked.connect(self.remove_selected)
        self.open_button = QPushButton(self.tr("Open skills folder"))
        self.open_button.clicked.connect(self.open_folder)
        self.error_label = QLabel()
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet(f"color: {theme.colors()['error']};")
        buttons = WrapRow()  # (a narrow dialog or longer words: the row wraps, never scrolls)
        for button in (self.add_folder_button, self.add_zip_button, self.remove_button):
            buttons.addWidget(button)
        buttons.add_stretch()
        buttons.addWidget(self.open_button)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addWidget(self.error_label)
        self._rows: list[Skill] = []

    # -- settings ------------------------------------------------------------------------

    def load(self, disabled: list[str]) -> None:
        self._off = set(disabled)
        self.refresh()

    def changes(self) -> dict[str, object]:
        return {"disabled_skills": sorted(self._off)}

    # -- the list ------------------------------------------------------------------------

    def refresh(self) -> None:
        self._rows = self.skills.list(self.workspace)
        self.table.blockSignals(True)
        self.table.setRowCount(len(self._rows))
        for row, skill in enumerate(self._rows):
            name = QTableWidgetItem(skill.name)
            name.setData(Qt.ItemDataRole.UserRole, skill.name)
            if skill.valid:
                name.setFlags(name.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                name.setCheckState(Qt.CheckState.Unchecked if skill.name in self._off
                                   else Qt.CheckState.Checked)
                name.setToolTip(self.tr("On: offered to every chat"))
            else:
                name.setFlags(name.flags() & ~Qt.ItemFlag.ItemIsUserCheckable)
            origin = QTableWidgetItem(self.tr("Workspace") if skill.origin == "workspace"
                                      else self.tr("App"))
            origin.setToolTip(str(skill.path))
            if skill.valid:
                about = QTableWidgetItem(" ".join(skill.description.split()))
            else:
                about = QTableWidgetItem(self.tr("Cannot be used: {problem}").format(
                    problem=skill.problem))
                about.setForeground(QColor(theme.colors()['error']))
            about.setToolTip(about.text())
            for column, item in enumerate((name, origin, about)):
                self.table.setItem(row, column, item)
        self.table.blockSignals(False)
        self.table.resizeRowsToContents()
        self.table.setVisible(bool(self._rows))
        self.empty.setVisible(not self._rows)
        self._selection_changed()

    def selected(self) -> Skill | None:
        rows = self.table.selectionModel().selectedRows()
        return self._rows[rows[0].row()] if rows else None

    def _selection_changed(self) -> None:
        skill = self.selected()
        self.remove_button.setEnabled(skill is not None and skill.origin == "app")

    def _switched(self, item: QTableWidgetItem) -> None:
        name = item.data(Qt.ItemDataRole.UserRole)
        if item.column() != 0 or not name:
            return
        if item.checkState() == Qt.CheckState.Checked:
            self._off.discard(str(name))
        else:
            self._off.add(str(name))

    # -- actions -------------------------------------------------------------------------

    def add_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, self.tr("Add a skill folder"))
        if path:
            self.add(path)

    def add_zip(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, self.tr("Add a skill from a zip"), "",
                                              self.tr("Zip archives (*.zip)"))
        if path:
            self.add(path)

    def add(self, path: str) -> str | None:
        """Add the skill at ``path``; its name, or None (the reason shown)."""
        try:
            name = self.skills.add(path)
        except AssistaError as exc:
            self.error_label.setText(skill_error_text(exc))
            return None
        except OSError as exc:
            self.error_label.setText(self.tr("The skill could not be copied: {reason}").format(
                reason=exc.strerror or str(exc)))
            return None
        self.error_label.setText("")
        self.refresh()
        return name

    def remove_selected(self, *, confirm: bool = True) -> None:
        skill = self.selected()
        if skill is None or skill.origin != "app":
            return
        if confirm and QMessageBox.question(
                self, self.tr("Remove skill"),
                self.tr("Remove the skill {name}? Its folder is deleted.").format(
                    name=skill.name)) != QMessageBox.StandardButton.Yes:
            return
        try:
            self.skills.remove(skill.name)
        except AssistaError as exc:
            self.error_label.setText(skill_error_text(exc))
            return
        except OSError as exc:
            self.error_label.setText(self.tr("The skill could not be removed: {reason}").format(
                reason=exc.strerror or str(exc)))
            return
        self._off.discard(skill.name)
        self.error_label.setText("")
        self.refresh()

    def open_folder(self) -> None:
        folder = Path(self.skills.data_root) / "skills"
        folder.mkdir(parents=True, exist_ok=True)
        QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))

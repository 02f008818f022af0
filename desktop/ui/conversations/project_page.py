"""The project page: a project's settings (name, instructions, default model, workspace,
knowledge bases, tools), its files and its chats, all editable in one place.

Save stores the settings; files are added and removed at once (a new project is
saved first). Everything goes through the :class:`ProjectService` it is given; the
owner opens chats, starts a chat in the project and confirms a deletion.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Sequence
from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.core.errors import AssistaError
from desktop.core.records import Project
from desktop.projects.service import ProjectService
from desktop.ui.error_text import exception_text
from desktop.ui.form_rows import whole
from desktop.ui.reflow_grid import ReflowGrid
from desktop.ui.scrolling import scrolling

ID_ROLE = Qt.ItemDataRole.UserRole


def _fit(view: QListWidget, most: int) -> None:
    """As tall as its rows (one at least, ``most`` at most; more scroll)."""
    rows = min(max(view.count(), 1), most)
    row = view.sizeHintForRow(0) if view.count() else view.fontMetrics().height() + 6
    view.setFixedHeight(row * rows + 2 * view.frameWidth() + 4)


class ProjectPage(QDialog):
    saved = Signal(str)  # project id: created or changed
    chatRequested = Signal(str)  # session id to open
    newChatRequested = Signal(str)  # project id
    deleteRequested = Signal(str)  # project id

    def __init__(self, projects: ProjectService, project_id: str | None = None,
                 parent: QWidget | None = None, *, tool_names: Sequence[str] = ()) -> None:
        super().__init__(parent)
        self.projects = projects
        self.tool_names = list(tool_names)
        self.task: asyncio.Future[None] | None = None  # files being added
        self.project: Project | None = projects.get(project_id)
        self.resize(720, 640)
        root = QVBoxLayout(self)
        root.addWidget(scrolling(self._build_form()), 1)
        self.error = QLabel()
        self.error.setObjectName("errorText")
        self.error.setWordWrap(True)
        self.error.hide()
        root.addWidget(self.error)
        root.addLayout(self._build_buttons())
        self._load()

    # -- construction ------------------------------------------------------------------

    def _build_form(self) -> QWidget:
        page = QWidget()
        form = QFormLayout(page)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        self.name = QLineEdit()
        self.name.setPlaceholderText(self.tr("e.g. Thesis, Garden, Client X"))
        form.addRow(self.tr("Name"), self.name)
        self.instructions = QPlainTextEdit()
        self.instructions.setPlaceholderText(
            self.tr("What every chat in this project should know or do. Added after the "
                    "assistant's prompt."))
        self.instructions.setMinimumHeight(80)
        self.instructions.setMaximumHeight(150)
        form.addRow(self.tr("Instructions"), self.instructions)
        self.model = QLineEdit()
        self.model.setPlaceholderText(self.tr("The provider's default"))
        form.addRow(self.tr("Default model"), self.model)
        folder_row = QHBoxLayout()
        self.workspace = QLineEdit()
        self.workspace.setPlaceholderText(self.tr("None"))
        browse = QPushButton(self.tr("Choose…"))
        browse.clicked.connect(self._choose_folder)
        folder_row.addWidget(self.workspace, 1)
        folder_row.addWidget(browse)
        form.addRow(self.tr("Workspace folder"), folder_row)
        self.knowledge = QListWidget()
        self.knowledge.setAccessibleName(self.tr("Knowledge bases"))
        form.addRow(self.tr("Knowledge bases"), self.knowledge)
        self._build_tools(form)
        form.addRow(self.tr("Files"), self._build_files())
        form.addRow(self.tr("Chats"), self._build_chats())
        return page

    def _build_tools(self, form: QFormLayout) -> None:
        self.tools_check = whole(QCheckBox(self.tr("Only these tools")))
        self.tools_check.setToolTip(self.tr("Only these tools (otherwise the app's tool "
                                            "settings)"))
        self.tools_box = QWidget()
        self.tools_box.setAccessibleName(self.tr("Enabled tools"))
        grid = ReflowGrid(self.tools_box, max_columns=3)  # fewer columns when narrow
        self.tool_checks: dict[str, QCheckBox] = {}
        for name in self.tool_names:
            box = QCheckBox(name)
            box.setChecked(True)
            grid.addWidget(box)
            self.tool_checks[name] = box
        self.tools_check.toggled.connect(self.tools_box.setEnabled)
        form.addRow(self.tr("Tools"), self.tools_check)
        form.addRow("", self.tools_box)

    def _chosen_tools(self) -> tuple[str, ...] | None:
        if not self.tools_check.isChecked():
            return None
        return tuple(name for name, box in self.tool_checks.items() if box.isChecked())

    def _build_files(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        self.files = QListWidget()
        self.files.setAccessibleName(self.tr("Files"))
        note = QLabel(self.tr("Every chat in the project has these: small text files whole, "
                              "larger ones searched."))
        note.setObjectName("emptyHint")
        note.setWordWrap(True)
        row = QHBoxLayout()
        self.add_files_button = QPushButton(self.tr("Add files…"))
        self.add_files_button.clicked.connect(self._choose_files)
        self.remove_file_button = QPushButton(self.tr("Remove"))
        self.remove_file_button.clicked.connect(self._remove_file)
        row.addWidget(self.add_files_button)
        row.addWidget(self.remove_file_button)
        row.addStretch(1)
        column.addWidget(self.files)
        column.addWidget(note)
        column.addLayout(row)
        return box

    def _build_chats(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        self.chats = QListWidget()
        self.chats.setAccessibleName(self.tr("Chats"))
        self.chats.itemActivated.connect(
            lambda item: self.chatRequested.emit(str(item.data(ID_ROLE))))
        column.addWidget(self.chats)
        return box

    def _build_buttons(self) -> QHBoxLayout:
        row = QHBoxLayout()
        self.delete_button = QPushButton(self.tr("Delete project…"))
        self.delete_button.clicked.connect(self._delete)
        # (with the buttons that stay in sight: on a small screen the page scrolls)
        self.new_chat_button = QPushButton(self.tr("New chat in this project"))
        self.new_chat_button.clicked.connect(self._new_chat)
        self.save_button = QPushButton(self.tr("Save"))
        self.save_button.setDefault(True)
        self.save_button.clicked.connect(self.save)
        close = QPushButton(self.tr("Close"))
        close.clicked.connect(self.reject)
        row.addWidget(self.delete_button)
        row.addWidget(self.new_chat_button)
        row.addStretch(1)
        row.addWidget(self.save_button)
        row.addWidget(close)
        return row

    # -- data --------------------------------------------------------------------------

    def _load(self) -> None:
        project = self.project
        self.setWindowTitle(self.tr("Project: {name}").format(name=project.name)
                            if project is not None else self.tr("New project"))
        self.name.setText(project.name if project else "")
        self.instructions.setPlainText(project.instructions if project else "")
        self.model.setText(project.model or "" if project else "")
        self.workspace.setText(project.workspace or "" if project else "")
        attached = set(project.knowledge) if project else set()
        self.knowledge.clear()
        for name in dict.fromkeys([*self.projects.knowledge_bases(), *attached]):
            if project is not None and name == project.files_base:
                continue  # the project's own: follows its files
            item = QListWidgetItem(name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if name in attached
                               else Qt.CheckState.Unchecked)
            self.knowledge.addItem(item)
        if not self.knowledge.count():
            self.knowledge.addItem(QListWidgetItem(self.tr("No knowledge bases yet.")))
        _fit(self.knowledge, 4)
        tools = project.tools if project is not None else None
        self.tools_check.setChecked(tools is not None)
        self.tools_box.setEnabled(tools is not None)
        for name, box in self.tool_checks.items():
            box.setChecked(tools is None or name in tools)
        self.delete_button.setVisible(project is not None)
        self.new_chat_button.setEnabled(project is not None)
        self._load_lists()

    def _load_lists(self) -> None:
        self.files.clear()
        self.chats.clear()
        if self.project is None:
            return
        for file in self.projects.files(self.project):
            where = (self.tr("in every chat") if file.in_context
                     else self.tr("searched when needed"))
            item = QListWidgetItem(f"{file.name}  ·  {where}")
            item.setData(ID_ROLE, file.id)
            item.setToolTip(file.path or file.name)
            self.files.addItem(item)
        for chat_id, title in self.projects.chats(self.project):
            item = QListWidgetItem(title)
            item.setData(ID_ROLE, chat_id)
            self.chats.addItem(item)
        if not self.chats.count():
            self.chats.addItem(QListWidgetItem(self.tr("No chats yet. Start one, or drag a "
                                                       "chat onto the project in the list.")))
        _fit(self.files, 5)
        _fit(self.chats, 6)

    def _checked_knowledge(self) -> tuple[str, ...]:
        items = (self.knowledge.item(i) for i in range(self.knowledge.count()))
        return tuple(i.text() for i in items
                     if i.flags() & Qt.ItemFlag.ItemIsUserCheckable
                     and i.checkState() == Qt.CheckState.Checked)

    def _show_error(self, exc: AssistaError) -> None:
        self.error.setText(exception_text(exc))
        self.error.show()

    def save(self) -> bool:
        """Store the settings (create the project when new); False with the error shown."""
        self.error.hide()
        name, instructions = self.name.text(), self.instructions.toPlainText()
        model = self.model.text().strip() or None
        workspace = self.workspace.text().strip() or None
        knowledge = self._checked_knowledge()
        try:
            if self.project is None:
                self.project = self.projects.create(
                    name, instructions=instructions, knowledge=knowledge,
                    workspace=workspace, model=model, tools=self._chosen_tools())
            else:
                self.project = self.projects.save(dataclasses.replace(
                    self.project, name=name, instructions=instructions, model=model,
                    workspace=workspace, knowledge=knowledge, tools=self._chosen_tools()))
        except AssistaError as exc:
            self._show_error(exc)
            return False
        self._load()
        self.saved.emit(self.project.id)
        return True

    # -- actions -----------------------------------------------------------------------

    def add_files(self, paths: list[Path]) -> asyncio.Future[None] | None:
        """Add files on a worker thread (a large one is indexed); the page says so
        meanwhile. A new project is saved first. Returns the running task."""
        if self.project is None and not self.save():
            return None
        assert self.project is not None
        project = self.project
        self._adding(True)

        async def run() -> None:
            try:
                for path in paths:
                    try:
                        await asyncio.to_thread(self.projects.add_file, project, path)
                    except AssistaError as exc:
                        self._show_error(exc)
                        break
            finally:
                self._adding(False)
            self.project = self.projects.get(project.id) or project
            self._load_lists()
            self.saved.emit(project.id)

        self.task = asyncio.ensure_future(run())
        return self.task

    def _adding(self, busy: bool) -> None:
        self.add_files_button.setEnabled(not busy)
        self.add_files_button.setText(self.tr("Adding…") if busy else self.tr("Add files…"))

    def _choose_files(self) -> None:
        names, _ = QFileDialog.getOpenFileNames(self, self.tr("Add files to the project"))
        if names:
            self.add_files([Path(n) for n in names])

    def _remove_file(self) -> None:
        item = self.files.currentItem()
        if item is None or self.project is None or not item.data(ID_ROLE):
            return
        file = next((f for f in self.projects.files(self.project)
                     if f.id == item.data(ID_ROLE)), None)
        if file is not None:
            self.projects.remove_file(self.project, file)
        self._load_lists()
        self.saved.emit(self.project.id)

    def _choose_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, self.tr("Workspace folder"),
                                                  self.workspace.text())
        if folder:
            self.workspace.setText(folder)

    def _new_chat(self) -> None:
        if self.project is not None:
            self.newChatRequested.emit(self.project.id)

    def _delete(self) -> None:
        if self.project is not None:
            self.deleteRequested.emit(self.project.id)

    def reload(self) -> None:
        """Read the project again (a chat moved in or out, a sync)."""
        if self.project is not None:
            self.project = self.projects.get(self.project.id)
            if self.project is None:
                self.close()
                return
        self._load_lists()

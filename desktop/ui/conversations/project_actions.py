"""The window's projects: the Projects section of the chat list, the project page, New
chat in a project, and deleting a project after saying what happens to its chats.

Built by the main window; the section and the page get only the ProjectService.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QMessageBox

from desktop.core.errors import AssistaError
from desktop.ui.conversations.project_page import ProjectPage
from desktop.ui.conversations.project_section import ProjectSection
from desktop.ui.error_text import exception_text
from desktop.ui.window.dialog_launcher import fit_to_screen

if TYPE_CHECKING:
    from desktop.ui.window.main_window import MainWindow


class ProjectActions(QObject):
    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.controller = window.controller
        self.projects = self.controller.services.projects
        self.page: ProjectPage | None = None
        self.confirm_box: QMessageBox | None = None
        self.section = ProjectSection(self.projects)
        window.sessions.set_projects(self.section)
        self.section.openRequested.connect(self.open_page)
        self.section.newChatRequested.connect(self.new_chat)
        self.section.deleteRequested.connect(self.confirm_delete)
        self.section.chatMoved.connect(lambda _id: self.controller.sessionsChanged.emit())
        self.section.errorOccurred.connect(window.show_error)
        self.controller.selectionChanged.connect(self._show_hint)
        self.controller.sessionOpened.connect(lambda _id, _messages: self._show_hint())

    def _show_hint(self) -> None:
        """A new chat in a project says so where the chat will be."""
        c = self.controller
        project = self.projects.get(c.new_chat.project_id) if c.session_id is None else None
        self.window.chat.overlays.set_hint(
            self.tr("New chat in the project “{name}”: its instructions and files are part "
                    "of every answer.").format(name=project.name) if project is not None
            else None)

    def refresh(self) -> None:
        """Read the projects again (the window calls it whenever it redraws the chats)."""
        self.section.refresh()
        if self.page is not None:
            self.page.reload()

    def open_page(self, project_id: str) -> ProjectPage:
        """The project's page ("": a new project), one at a time, not modal."""
        if self.page is not None:
            self.page.close()
        page = self.page = ProjectPage(self.projects, project_id or None, self.window,
                                       tool_names=self.controller.tools.registry().names())
        page.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        page.destroyed.connect(lambda _obj=None: self._forget(page))
        page.saved.connect(lambda _id: self.controller.sessionsChanged.emit())
        page.chatRequested.connect(self.controller.open_session)
        page.newChatRequested.connect(self.new_chat)
        page.deleteRequested.connect(self.confirm_delete)
        fit_to_screen(page, self.window)  # on a small screen the buttons stay reachable
        page.show()
        return page

    def _forget(self, page: ProjectPage) -> None:
        if self.page is page:
            self.page = None

    def new_chat(self, project_id: str) -> None:
        """Show a new chat that is saved in the project with its first message."""
        project = self.projects.get(project_id)
        if project is None:
            return
        c = self.controller
        c.new_session()
        c.new_chat.project_id = project.id
        c.selectionChanged.emit()  # its model, workspace and tools are the project's
        c.toolsChanged.emit()
        self.window.statusBar().showMessage(
            self.tr("New chat in the project {name}").format(name=project.name), 8000)
        if self.page is not None:
            self.page.close()

    def confirm_delete(self, project_id: str) -> None:
        project = self.projects.get(project_id)
        if project is None:
            return
        n = len(self.projects.chat_ids(project))
        text = self.tr("Delete the project “{name}”?").format(name=project.name) + "\n\n" + \
            self.tr("Its %n chats are kept and move out of the project. Its instructions and "
                    "the text of its files are deleted.", "", n)
        box = QMessageBox(QMessageBox.Icon.Warning, self.tr("Delete project"), text,
                          QMessageBox.StandardButton.Cancel, self.page or self.window)
        delete = box.addButton(self.tr("Delete project"), QMessageBox.ButtonRole.DestructiveRole)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose, True)
        box.finished.connect(
            lambda _r: self.delete(project_id) if box.clickedButton() is delete else None)
        self.confirm_box = box
        box.open()

    def delete(self, project_id: str) -> None:
        project = self.projects.get(project_id)
        if project is None:
            return
        try:
            chats = self.projects.delete(project)
        except AssistaError as exc:
            self.window.show_error(exception_text(exc))
            return
        if self.controller.new_chat.project_id == project_id:
            self.controller.new_chat.project_id = None
            self.controller.selectionChanged.emit()  # its model and tools are the app's
        if self.page is not None:
            self.page.close()
        self.controller.sessionsChanged.emit()
        self.window.statusBar().showMessage(
            self.tr("Deleted the project {name}; its %n chats are in the list.", "",
                    len(chats)).format(name=project.name), 15000)

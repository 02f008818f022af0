"""Compare in the window: the composer's Compare button (or "/compare" sent) and a
message's "Ask other models…" open the model chooser; the chat service runs the
compare; the compare view takes the chat's place until "Keep this one" or "Back to
chat" hands the chat back, showing the kept answer with the others as ‹ n/m ›.

It is handed the chat controller, the chat pane it covers and the dialog launcher;
:meth:`MainWindow._connect_compare` connects the pieces' signals to it. Widgets
observe; every turn is started and steered by the chat service.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QBoxLayout, QDialog

from desktop.chat.answer_figures import price_table
from desktop.chat.compare_run import CompareRun, CompareTarget
from desktop.core.errors import AssistaError
from desktop.core.messages import Message
from desktop.core.pricing import Price
from desktop.ui.compare.chooser import CompareChooser
from desktop.ui.compare.view import CompareView

if TYPE_CHECKING:
    from desktop.chat.approvals import PendingApproval
    from desktop.ui.chat.chat_pane import ChatPane
    from desktop.ui.window.controller import ChatController
    from desktop.ui.window.dialog_launcher import DialogLauncher

COMMAND = "/compare"


class CompareLauncher(QObject):
    def __init__(self, controller: ChatController, pane: ChatPane,
                 dialogs: DialogLauncher) -> None:
        """``pane``: where the compare view takes the chat's place; ``dialogs``: opens
        the model chooser (one at a time, modal to the window)."""
        super().__init__(pane)
        self.controller = controller
        self.service = controller.service
        self.pane = pane
        self.dialogs = dialogs
        self.view: CompareView | None = None

    # -- choosing -------------------------------------------------------------------------

    def _chooser(self, minimum: int,
                 start: Callable[[list[CompareTarget]], object]) -> QDialog:
        catalog = self.controller.services.model_catalog()
        config, model = self.controller.provider(), self.controller.model()
        chosen = [(config.id, model)] if config is not None and model and minimum > 1 else []

        def make() -> QDialog:
            dialog = CompareChooser(catalog, chosen, minimum=minimum,
                                    parent=self.dialogs.parent_widget)
            dialog.accepted.connect(lambda: start(self.targets(dialog.chosen)))
            return dialog

        return self.dialogs.show_one("compare", make)

    def question(self) -> str:
        """The composer's text without the "/compare" typed in front of it."""
        text = self.pane.composer.input.toPlainText()
        stripped = text.lstrip()
        return stripped[len(COMMAND):].lstrip() if stripped.startswith(COMMAND) else text

    def choose_for_prompt(self) -> QDialog | None:
        """Compare: the composer's question, to models the user picks."""
        if self.controller.busy:
            return None
        if not (self.question().strip() or self.pane.composer.chips):
            self.pane.show_error(self.tr("Type the question to compare first, then press "
                                         "Compare (or send it as /compare QUESTION)."))
            return None
        return self._chooser(2, self.start)

    def choose_for_message(self, message_id: str) -> QDialog | None:
        """"Ask other models…" on a message: its question, answered again."""
        if self.controller.busy or self.controller.session_id is None:
            return None
        return self._chooser(1, lambda targets: self.ask_others(message_id, targets))

    def targets(self, chosen: list[tuple[str, str]]) -> list[CompareTarget]:
        configs = {c.id: c for c in self.controller.services.providers.all()}
        return [CompareTarget(configs[pid].model_copy(update={"model": model}), model)
                for pid, model in chosen if pid in configs]

    # -- running --------------------------------------------------------------------------

    def start(self, targets: list[CompareTarget]) -> CompareRun | None:
        composer = self.pane.composer
        attachments = [chip.part for chip in composer.chips]
        controller = self.controller
        try:
            run = self.service.compare.start(controller.chat, self.question(), targets,
                                             attachments)
        except AssistaError as exc:
            self.pane.show_error(self.controller.refusal(exc))
            return None
        composer.clear()
        if controller.session_id != run.session_id:
            controller.new_chat = self.service.chats.new_chat()
        self._follow(run)
        return run

    def ask_others(self, message_id: str, targets: list[CompareTarget]) -> CompareRun | None:
        session_id = self.controller.session_id
        if session_id is None:
            return None
        try:
            run = self.service.compare.ask_others(session_id, message_id, targets)
        except AssistaError as exc:
            self.pane.show_error(self.controller.refusal(exc))
            return None
        self._follow(run)
        return run

    def _follow(self, run: CompareRun) -> None:
        self.controller.open_session(run.session_id)  # (emits sessionOpened: shows it)
        if self.view is None:
            self.show_view(run)

    # -- the view ---------------------------------------------------------------------------

    def prices(self) -> dict[str, Price]:
        return price_table(self.controller.settings.prices)

    def show_view(self, run: CompareRun) -> CompareView:
        self.close_view()
        pending = self.service.approvals.for_chat(run.session_id)
        view = CompareView(run, self.prices, pending, self.pane)
        view.stopRequested.connect(lambda index: self.service.compare.stop_column(run, index))
        view.keepRequested.connect(self.keep)
        view.backRequested.connect(self.back)
        layout = self.pane.layout()
        if isinstance(layout, QBoxLayout):  # in the chat's place, above the composer
            layout.insertWidget(0, view, 1)
        self.pane.chat.hide()
        view.show()
        self.view = view
        if not run.done:
            run.on_end.append(self._run_ended)
        return view

    def close_view(self) -> None:
        view, self.view = self.view, None
        if view is None:
            return
        view.dispose()
        view.hide()
        view.setParent(None)
        view.deleteLater()
        self.pane.chat.show()

    def keep(self, index: int) -> None:
        """"Keep this one": that answer becomes the chat's; back to the chat (at once, or
        when the columns still streaming have stopped)."""
        if self.view is None:
            return
        run = self.view.run
        self.service.compare.keep(run, index)
        if run.done:
            self.back()
        # else: back when the columns still streaming have stopped (_run_ended)

    def _run_ended(self, run: CompareRun) -> None:
        """Every column is done: with an answer kept meanwhile, back to the chat; else
        the chat under the view catches up (a message sent from here follows it)."""
        if self.view is None or self.view.run is not run:
            return
        if run.kept is not None:
            self.back()
        elif run.saved and self.controller.session_id == run.session_id:
            self.controller.open_session(run.session_id)

    def back(self) -> None:
        run = self.view.run if self.view is not None else None
        self.close_view()
        if run is not None and run.saved and self.controller.session_id == run.session_id:
            self.controller.open_session(run.session_id)  # the kept answer, with ‹ n/m ›

    def session_opened(self, session_id: str, _messages: list[Message]) -> None:
        run = self.service.compare.run_of(session_id)
        if self.view is not None and self.view.run.session_id != session_id:
            self.close_view()
        if self.view is None and run is not None and not run.done:
            self.show_view(run)  # back to a chat whose compare still runs

    def approval_requested(self, pending: PendingApproval) -> None:
        if self.view is not None:
            self.view.show_approval(pending)

    def approval_closed(self, call_id: str) -> None:
        if self.view is not None:
            self.view.approval_closed(call_id)

"""Drives the real app (``python -m desktop``: the real start-up, the real event loop)
through one scenario, for tests that need them; run as
``python -m tests.support.gui_scenarios SCENARIO DATA_DIR``.

early-send  type a question in the start-up skeleton and press Enter (before the app
            has loaded); close the window once it is answered
quit        once loaded, send a question; once part of the answer has streamed, Quit
            (and say Quit to the question the window asks)
streaming   once loaded, send a question; print STREAMING once part of the answer has
            streamed and ANSWERED once it is answered (the test sends a signal)

Lines on stdout tell the test what happened: ``STREAMED <chars>``, ``STREAMING``,
``ANSWERED``, ``EXIT <status>``.
"""

from __future__ import annotations

import sys
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMessageBox

from desktop import gui as launch
from desktop.ui.window.main_window import MainWindow

QUESTION = "first question"


def say(line: str) -> None:
    print(line, flush=True)


class Scenario:
    def __init__(self, name: str, window: MainWindow) -> None:
        self.name = name
        self.window = window
        self.sent = name == "early-send"
        self.told: set[str] = set()
        self.timer = QTimer(window)
        self.timer.timeout.connect(self.step)
        self.timer.start(20)

    def step(self) -> None:
        window = self.window
        if not window.ready:
            return
        if not self.sent:
            self.sent = True
            box = window.composer.input
            box.setFocus()
            QTest.keyClicks(box, QUESTION)
            QTest.keyClick(box, Qt.Key.Key_Return)
            return
        controller = window.controller
        turn = controller.service.running(controller.session_id)
        streamed = turn.streamed_text() if turn is not None else ""
        answered = bool(controller.session_id) and turn is None and \
            len(controller.history) >= 2
        if self.name == "early-send" and answered:
            self.once("closed", window.close)
        elif self.name == "quit" and streamed:
            self.once("quit", lambda: self.quit(len(streamed)))
        elif self.name == "streaming" and streamed:
            self.once("streaming", lambda: say("STREAMING"))
        elif self.name == "streaming" and answered:
            self.once("answered", lambda: say("ANSWERED"))

    def once(self, what: str, action: Any) -> None:
        if what not in self.told:
            self.told.add(what)
            action()

    def quit(self, streamed: int) -> None:
        say(f"STREAMED {streamed}")
        self.window.tray.quit()  # (what File > Quit and the tray's Quit do)
        box = self.window.quit_guard.box
        assert box is not None  # "Quit while answering?"
        next(button for button in box.buttons()
             if box.buttonRole(button) == QMessageBox.ButtonRole.AcceptRole).click()


def run(name: str, data_dir: str) -> int:
    show_first_chats = launch.MainWindow.show_first_chats
    scenarios: list[Scenario] = []

    def first_chats_shown(window: MainWindow, chats: Any) -> None:
        show_first_chats(window, chats)  # the skeleton lists them and takes typing
        if name == "early-send":
            box = window.centralWidget().message_box  # type: ignore[attr-defined]
            box.setFocus()
            QTest.keyClicks(box, QUESTION)
            QTest.keyClick(box, Qt.Key.Key_Return)
        scenarios.append(Scenario(name, window))

    launch.MainWindow.show_first_chats = first_chats_shown  # type: ignore[method-assign]
    from desktop.__main__ import main

    status = main(["--data-dir", data_dir])
    say(f"EXIT {status}")
    return status


if __name__ == "__main__":
    sys.exit(run(sys.argv[1], sys.argv[2]))

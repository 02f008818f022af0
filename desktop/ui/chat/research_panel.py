"""The research card above the composer: what a research run of the chat on screen
is doing (its plan, the searches made, the pages read, the time, tokens and cost
against its limits) and, once it ended, why it stopped.

It only observes: each :class:`~desktop.chat.research.progress.ResearchProgress` is
the whole state, worded here in the user's language. Another chat shown (or a new
question) empties it; a running research in the chat opened is replayed into it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QLocale, Qt, QTimer, SignalInstance
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from desktop.chat.research.progress import ResearchProgress
from desktop.ui import icons
from desktop.ui.plain_text import StatusLabel, make_plain

SHOWN_STEPS = 4
SHOWN_QUERIES = 3
SHOWN_PAGES = 4


class ResearchPanel(QFrame):
    def __init__(self, progress: SignalInstance, cleared: tuple[SignalInstance, ...],
                 parent: QWidget | None = None) -> None:
        """``progress`` carries the run's events; each of ``cleared`` empties the card
        (another chat shown, a new question)."""
        super().__init__(parent)
        self.setObjectName("researchPanel")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAccessibleName(self.tr("Research progress"))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(2)
        top = QHBoxLayout()
        self.title = StatusLabel()
        self.title.setAccessibleName(self.tr("Research status"))
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        top.addWidget(self.title, 1)
        self.close_button = QPushButton()
        self.close_button.setFlat(True)
        icons.set_icon(self.close_button, "x", self.tr("Hide the research progress"))
        self.close_button.clicked.connect(self.hide)
        top.addWidget(self.close_button)
        layout.addLayout(top)
        self.figures = StatusLabel()
        self.figures.setAccessibleName(self.tr("Research time, tokens and cost"))
        self.plan = QLabel()
        self.searches = QLabel()
        self.pages = QLabel()
        self.stop_line = QLabel()
        columns = QHBoxLayout()  # side by side: the card stays a few lines high
        columns.setSpacing(16)
        for label in (self.figures, self.plan, self.searches, self.pages, self.stop_line):
            make_plain(label)
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)
            if label in (self.plan, self.searches, self.pages):
                columns.addWidget(label, 1)
            else:
                layout.addWidget(label)
        layout.insertLayout(2, columns)
        make_plain(self.title)
        self.last: ResearchProgress | None = None
        self._received = 0.0
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._show_figures)
        progress.connect(self.show_progress)
        for signal in cleared:
            signal.connect(self.clear)
        self.hide()

    def clear(self, *_args: object) -> None:
        self.last = None
        self._ticker.stop()
        self.hide()

    def show_progress(self, event: ResearchProgress) -> None:
        fresh = self.last is None
        self.last = event
        self._received = time.monotonic()
        self.title.setText(self._title(event))
        self._show_figures()
        steps = event.plan[:SHOWN_STEPS]
        self.plan.setText(self.tr("Plan:") + "".join(
            f"\n{n}. {step}" for n, step in enumerate(steps, start=1)))
        self.plan.setVisible(bool(steps))
        queries = event.queries[-SHOWN_QUERIES:]
        self.searches.setText(self.tr("Searches (%n):", "", len(event.queries)) + "".join(
            f"\n· {query}" for query in queries))
        self.searches.setVisible(bool(queries))
        pages = event.pages[-SHOWN_PAGES:]
        first = len(event.pages) - len(pages) + 1
        text = self.tr("Sources read (%n):", "", len(event.pages)) + "".join(
            f"\n[{n}] {title}" for n, (title, _where) in enumerate(pages, start=first))
        if event.failed_pages:
            text += "\n" + self.tr("%n page(s) could not be read.", "", event.failed_pages)
        self.pages.setText(text)
        self.pages.setVisible(bool(pages) or event.failed_pages > 0)
        stop = self._stop_text(event)
        self.stop_line.setText(stop)
        self.stop_line.setVisible(bool(stop))
        if event.phase == "done":
            self._ticker.stop()
        elif not self._ticker.isActive():
            self._ticker.start()
        if fresh or event.phase == "done":
            self.show()

    def _title(self, event: ResearchProgress) -> str:
        phase = {
            "planning": self.tr("Research: making a plan…"),
            "searching": self.tr("Research: searching…"),
            "reading": self.tr("Research: reading pages…"),
            "writing": self.tr("Research: writing the report…"),
            "done": self.tr("Research finished"),
        }[event.phase]
        if event.phase in ("searching", "reading") and event.max_rounds:
            phase += " " + self.tr("(round {round} of {rounds})").format(
                round=QLocale().toString(event.round), rounds=QLocale().toString(
                    event.max_rounds))
        return phase

    def _show_figures(self) -> None:
        event = self.last
        if event is None:
            return
        elapsed = event.elapsed_s
        if event.phase != "done":
            elapsed += time.monotonic() - self._received
        locale = QLocale()
        parts = [self.tr("{elapsed} of {limit}").format(
                     elapsed=_clock(elapsed), limit=_clock(event.max_seconds)),
                 self.tr("%n token(s)", "", event.tokens)]
        if event.cost is None:
            parts.append(self.tr("cost unknown"))
        elif event.max_cost is not None:
            parts.append(self.tr("{cost} of {ceiling}").format(
                cost=_dollars(locale, event.cost), ceiling=_dollars(locale, event.max_cost, 2)))
        else:
            parts.append(_dollars(locale, event.cost))
        self.figures.setText(" · ".join(parts))

    def _stop_text(self, event: ResearchProgress) -> str:
        if event.phase != "done":
            return ""
        locale = QLocale()
        if event.stop == "rounds":
            return self.tr("Stopped at the limit of %n search round(s).", "", event.max_rounds)
        if event.stop == "time":
            return self.tr("Stopped at the time limit ({limit}).").format(
                limit=_clock(event.max_seconds))
        if event.stop == "cost":
            return self.tr("Stopped at the cost ceiling ({ceiling}); the report is made of "
                           "what was found.").format(
                ceiling=_dollars(locale, event.max_cost or 0.0, 2))
        if event.stop == "stopped":
            return self.tr("Stopped; the report holds what was found so far.")
        if event.stop == "failed":
            return self.tr("The research failed; what was found is kept in the report.")
        return ""


def _clock(seconds: float) -> str:
    whole = max(0, int(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


def _dollars(locale: QLocale, amount: float, digits: int = 4) -> str:
    """US dollars: cents for a ceiling or a dollar and more, else four places
    ("< $0.0001" for less)."""
    if 0 < amount < 0.0001:
        return "< $" + locale.toString(0.0001, "f", 4)
    return "$" + locale.toString(amount, "f", 2 if amount >= 1 else digits)

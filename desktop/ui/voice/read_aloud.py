"""Read aloud: an answer's words said by the provider's speech model (when one is set)
or the system's voice, played with pause, resume and stop. The bar above the composer
shows while it reads."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from desktop.ui import icons
from desktop.ui.voice.voice_errors import voice_error_text
from desktop.ui.voice.worker import Worker

if TYPE_CHECKING:
    from desktop.core.audio_io import Player

IDLE, PREPARING, PLAYING, PAUSED = "idle", "preparing", "playing", "paused"


class ReadAloud(QObject):
    """``speak(markdown) -> audio bytes`` runs on a worker thread; the audio plays on
    ``player``. ``stateChanged`` says idle/preparing/playing/paused; ``failed`` a
    sentence for the person."""

    stateChanged = Signal(str)
    failed = Signal(str)
    _finished = Signal()  # from the audio thread

    def __init__(self, speak: Callable[[str], bytes], player: Player | None = None,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._speak = speak
        self._player = player
        if player is not None:
            player.on_done = self._finished.emit
        self._finished.connect(self._ended)
        self.state = IDLE
        self._worker = Worker(self)
        self._worker.done.connect(self._play)
        self._worker.failed.connect(self._failed)

    @property
    def player(self) -> Player:
        """The sound output, opened when something is first read: the sound library
        (and the NumPy it loads, ~80 ms) is not loaded with the window."""
        if self._player is None:
            from desktop.core.audio_io import Player

            self._player = Player()
            self._player.on_done = self._finished.emit
        return self._player

    @player.setter
    def player(self, player: Player) -> None:
        player.on_done = self._finished.emit
        self._player = player

    def _set(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.stateChanged.emit(state)

    def read(self, markdown: str) -> None:
        """Read ``markdown`` (what played before stops)."""
        from desktop.core.audio_io import decode

        self.player.stop()
        self._set(PREPARING)
        self._worker.run(lambda: decode(self._speak(markdown)))

    def _play(self, pcm: object) -> None:
        from desktop.core.audio_io import NoAudioDevice, Pcm

        assert isinstance(pcm, Pcm)
        try:
            self.player.play(pcm)
        except NoAudioDevice as exc:
            self._failed(exc)
            return
        self._set(PLAYING)

    def _failed(self, exc: BaseException) -> None:
        self._set(IDLE)
        self.failed.emit(voice_error_text(exc))

    def toggle_pause(self) -> None:
        if self.state == PLAYING:
            self.player.pause()
            self._set(PAUSED)
        elif self.state == PAUSED:
            self.player.resume()
            self._set(PLAYING)

    def stop(self) -> None:
        self._worker.cancel()
        if self._player is not None:
            self._player.stop()
        self._set(IDLE)

    def _ended(self) -> None:
        if self.state in (PLAYING, PAUSED) and self._player is not None:
            self._player.stop()
            self._set(IDLE)


class ReadingBar(QFrame):
    """"Reading aloud…" with Pause/Resume and Stop; hidden while nothing is read."""

    def __init__(self, reader: ReadAloud, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("readingBar")
        self.reader = reader
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 2, 8, 2)
        self.label = QLabel()
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        self.pause_button = QPushButton()
        self.pause_button.clicked.connect(reader.toggle_pause)
        self.stop_button = QPushButton(self.tr("Stop"))
        icons.set_icon(self.stop_button, "circle-stop", self.tr("Stop reading aloud"))
        self.stop_button.clicked.connect(reader.stop)
        row.addWidget(self.label, 1)
        row.addWidget(self.pause_button)
        row.addWidget(self.stop_button)
        reader.stateChanged.connect(self._show)
        self._show(reader.state)

    def _show(self, state: str) -> None:
        self.setVisible(state != IDLE)
        texts = {PREPARING: self.tr("Preparing to read aloud…"),
                 PLAYING: self.tr("Reading aloud"), PAUSED: self.tr("Reading aloud (paused)")}
        self.label.setText(texts.get(state, ""))
        paused = state == PAUSED
        self.pause_button.setText(self.tr("Resume") if paused else self.tr("Pause"))
        icons.set_icon(self.pause_button, "circle-play" if paused else "circle-pause",
                       self.tr("Go on reading") if paused else self.tr("Pause reading"))
        self.pause_button.setEnabled(state in (PLAYING, PAUSED))

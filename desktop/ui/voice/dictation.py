"""Dictation: the microphone button of the composer. A click records, another stops and
sends the recording to the provider's transcription model; the text lands in the
composer, to edit before sending. No microphone, or no permission: it says so."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QPushButton, QWidget

from desktop.core.errors import AssistaError
from desktop.ui import icons
from desktop.ui.voice.voice_errors import voice_error_text
from desktop.ui.voice.worker import Worker

if TYPE_CHECKING:
    from desktop.core.audio_io import Recorder

IDLE, RECORDING, TRANSCRIBING, FAILED = "idle", "recording", "transcribing", "failed"


class MicButton(QPushButton):
    """``transcribe(wav) -> text`` runs on a worker thread. ``textReady`` carries the
    text, ``failed`` a sentence for the person. ``file_source``: record this audio file
    instead of the microphone (the same path after the device: tests, demos)."""

    textReady = Signal(str)
    failed = Signal(str)
    stateChanged = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("micButton")
        self.transcribe: Callable[[bytes], str] | None = None
        self.ready: Callable[[], bool] = lambda: False
        self._recorder: Recorder | None = None
        self.file_source: Path | None = None
        self.state = IDLE
        self._worker = Worker(self)
        self._worker.done.connect(self._transcribed)
        self._worker.failed.connect(self._fail)
        self.clicked.connect(self.toggle)
        self._show(IDLE)
        self.hide()  # shown once a transcription service is set

    @property
    def recorder(self) -> Recorder:
        """The microphone, opened at the first recording: the sound library (and the
        NumPy it loads, ~80 ms) is not loaded with the window."""
        if self._recorder is None:
            from desktop.core.audio_io import Recorder

            self._recorder = Recorder()
        return self._recorder

    def set_service(self, transcribe: Callable[[bytes], str] | None,
                    ready: Callable[[], bool] | None = None) -> None:
        """``ready()``: whether a transcription model is set (asked at each click)."""
        self.transcribe = transcribe
        self.ready = ready or (lambda: transcribe is not None)
        self.setVisible(transcribe is not None)

    def toggle(self) -> None:
        if self.state == RECORDING:
            self.finish()
        elif self.state != TRANSCRIBING:
            self.start()

    def start(self) -> None:
        if not self.ready():
            self._fail(AssistaError(code="no_transcription_model"))
            return
        from desktop.core.audio_io import NoAudioDevice

        try:
            if self.file_source is not None:
                self.recorder.start_file(self.file_source)
            else:
                self.recorder.start()
        except NoAudioDevice as exc:
            self._fail(exc)
            return
        self._show(RECORDING)

    def finish(self) -> None:
        """Stop recording and send it off to be written down."""
        if self.file_source is not None:
            self.recorder.wait_file()
        frames = self.recorder.frames
        wav = self.recorder.stop()
        if frames == 0:
            self._fail(AssistaError(code="nothing_heard"))
            return
        transcribe = self.transcribe
        if transcribe is None:
            self._fail(AssistaError(code="no_transcription_model"))
            return
        self._show(TRANSCRIBING)
        self._worker.run(lambda: transcribe(wav))

    def cancel(self) -> None:
        self._worker.cancel()
        if self._recorder is not None:
            self._recorder.stop()
        self._show(IDLE)

    def _transcribed(self, text: object) -> None:
        self._show(IDLE)
        if isinstance(text, str) and text.strip():
            self.textReady.emit(text.strip())
        else:
            self._fail(AssistaError(code="nothing_heard"))

    def _fail(self, exc: BaseException) -> None:
        message = voice_error_text(exc)
        self._show(FAILED, message)
        self.failed.emit(message)

    def _show(self, state: str, message: str = "") -> None:
        self.state = state
        self.setEnabled(state != TRANSCRIBING)
        if state == RECORDING:
            self.setText(self.tr("Recording… click to stop"))
            icons.set_icon(self, "circle-stop", self.tr("Stop and write down what you said"),
                           self.tr("Stop dictation"), role="accent")
        elif state == TRANSCRIBING:
            self.setText(self.tr("Writing it down…"))
            icons.set_icon(self, "loader", self.tr("Your recording is being written down"),
                           self.tr("Transcribing"))
        elif state == FAILED:
            self.setText("")
            icons.set_icon(self, "mic-off", message, self.tr("Dictate (failed)"))
        else:
            self.setText("")
            icons.set_icon(self, "mic", self.tr("Dictate: record what you say, then edit "
                                                "the text before sending"), self.tr("Dictate"))
        self.stateChanged.emit(state)

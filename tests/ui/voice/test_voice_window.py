"""Read aloud and dictation in the window, against a loopback server of the audio
endpoints: the answer's ⋯ menu and the shortcut read it (its words, not its code) on the
provider's speech model; the microphone button records (a WAV file through the
microphone's path), sends it to be transcribed and puts the text in the composer; no
microphone and no sound output are said clearly. Sound plays on miniaudio's null device:
this machine has no sound card."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import miniaudio
import pytest
import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.core.audio_io import Player, Recorder
from desktop.core.settings import ProviderConfig
from desktop.ui.chat.message_widget import MessageWidget
from desktop.ui.window.main_window import MainWindow
from tests.support.audio_server import FakeAudioServer, tone_wav
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window, send

KEY = "sk-loopback-key-123456"
ANSWER = "Here is **the plan**.\n\n```python\nprint('not read')\n```\n\nThen rest."


@pytest.fixture
def audio() -> Iterator[FakeAudioServer]:
    with FakeAudioServer(key=KEY, transcript="Dictated words") as server:
        yield server


def has_device(kind: str) -> bool:
    try:
        (miniaudio.CaptureDevice() if kind == "capture" else miniaudio.PlaybackDevice()).close()
    except miniaudio.MiniaudioError:
        return False
    return True


@pytest.fixture
def window(qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
           audio: FakeAudioServer, open_ctx: Callable[..., AppContext]) -> MainWindow:
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    voice = ProviderConfig(name="Voice box", preset="custom", base_url=audio.base_url,
                           model="x")
    ctx.settings_store.save_provider(voice)
    ctx.secrets.set(voice.id, KEY)
    ctx.settings.update(speech_provider_id=voice.id, speech_model="tts-test",
                        speech_voice="verse", transcription_provider_id=voice.id,
                        transcription_model="whisper-test")
    shown = make_window(qtbot, ctx)
    shown.resize(1100, 800)
    return shown


def answer_widget(window: MainWindow) -> MessageWidget:
    found = window.chat.widget_for(window.controller.history[-1].id)
    assert found is not None
    return found


def test_read_aloud_from_the_menu_says_the_words_on_the_speech_model(
        qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
        audio: FakeAudioServer) -> None:
    fake_server.enqueue_text(ANSWER)
    send(qtbot, window, "Plan?")
    reader = window.chat_pane.reader
    reader.player = Player([miniaudio.Backend.NULL])  # a real device that plays into nothing
    reader.player.on_done = reader._finished.emit
    menu = answer_widget(window).header_row.more_menu
    menu.aboutToShow.emit()
    [read] = [a for a in menu.actions() if a.text() == "Read aloud"]
    assert read.shortcut().toString() == "Ctrl+Shift+R"
    states: list[str] = []
    reader.stateChanged.connect(states.append)
    read.trigger()
    assert window.chat_pane.reading_bar.isVisible()
    qtbot.waitUntil(lambda: states[-1:] == ["idle"] and "playing" in states, timeout=20000)
    assert states[0] == "preparing"
    [request] = audio.speech_requests
    assert request["model"] == "tts-test" and request["voice"] == "verse"
    assert request["input"] == "Here is the plan.\n\nThen rest."  # no marks, no code
    assert not window.chat_pane.reading_bar.isVisible()


def test_pause_resume_and_stop(qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer,
                               audio: FakeAudioServer) -> None:
    fake_server.enqueue_text(" ".join(["word"] * 400))  # 20 s of speech from the server
    send(qtbot, window, "Long?")
    pane = window.chat_pane
    pane.reader.player = Player([miniaudio.Backend.NULL])
    pane.read_last_answer()  # the shortcut's action
    qtbot.waitUntil(lambda: pane.reader.state == "playing", timeout=20000)
    bar = pane.reading_bar
    qtbot.mouseClick(bar.pause_button, Qt.MouseButton.LeftButton)
    assert pane.reader.state == "paused" and bar.pause_button.text() == "Resume"
    assert "paused" in bar.label.text()
    qtbot.mouseClick(bar.pause_button, Qt.MouseButton.LeftButton)
    assert pane.reader.state == "playing"
    qtbot.mouseClick(bar.stop_button, Qt.MouseButton.LeftButton)
    assert pane.reader.state == "idle" and not bar.isVisible()
    assert pane.reader.player.position < 20 * 24000


def test_no_sound_output_is_said_clearly(qtbot: Any, window: MainWindow,
                                         fake_server: FakeOpenAIServer) -> None:
    if has_device("playback"):
        pytest.skip("this machine has a sound output")
    fake_server.enqueue_text("Short answer.")
    send(qtbot, window, "Hi")
    window.chat_pane.read_last_answer()
    banner = window.chat_pane.error_banner
    qtbot.waitUntil(banner.isVisible, timeout=20000)
    assert "No sound output could be opened" in banner.text()
    assert window.chat_pane.reader.state == "idle"


def test_dictation_puts_the_text_in_the_composer(qtbot: Any, window: MainWindow,
                                                 audio: FakeAudioServer, tmp_path: Path) -> None:
    clip = tmp_path / "said.wav"
    clip.write_bytes(tone_wav(0.5, rate=48000))
    mic = window.composer.mic_button
    assert mic.isVisible() and mic.accessibleName() == "Dictate"
    mic.file_source = clip  # the recording path, from a file instead of a device
    window.composer.input.setPlainText("Please")
    window.composer.input.moveCursor(window.composer.input.textCursor().MoveOperation.End)
    qtbot.mouseClick(mic, Qt.MouseButton.LeftButton)
    assert mic.state == "recording" and mic.accessibleName() == "Stop dictation"
    qtbot.mouseClick(mic, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: mic.state == "idle", timeout=20000)
    assert window.composer.input.toPlainText() == "Please Dictated words"
    [upload] = audio.uploads
    assert upload.model == "whisper-test" and upload.rate == 16000
    assert abs((upload.frames or 0) - 8000) <= 16


def test_no_microphone_is_said_clearly(qtbot: Any, window: MainWindow) -> None:
    if has_device("capture"):
        pytest.skip("this machine has a microphone")
    mic = window.composer.mic_button
    qtbot.mouseClick(mic, Qt.MouseButton.LeftButton)
    assert mic.state == "failed"
    banner = window.chat_pane.error_banner
    assert banner.isVisible() and "No microphone could be opened" in banner.text()
    assert "privacy settings" in mic.toolTip()
    assert window.composer.input.toPlainText() == ""


def test_without_a_transcription_model_the_mic_says_what_to_set(
        qtbot: Any, window: MainWindow) -> None:
    window.controller.ctx.settings.update(transcription_model="")
    qtbot.mouseClick(window.composer.mic_button, Qt.MouseButton.LeftButton)
    assert "Set a transcription model" in window.chat_pane.error_banner.text()
    assert isinstance(window.composer.mic_button.recorder, Recorder)


def test_an_answer_that_is_a_page_has_preview_in_its_menu(
        qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from PySide6.QtCore import QObject, QUrl, Slot
    from PySide6.QtGui import QDesktopServices

    from desktop.ui.markdown import artifacts

    opened: list[QUrl] = []

    class Opened(QObject):
        @Slot(QUrl)
        def open(self, url: QUrl) -> None:
            opened.append(url)

    catcher = Opened()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    monkeypatch.setattr(artifacts, "preview_folder", lambda: tmp_path / "previews")
    monkeypatch.setattr(artifacts._Consent, "given", True)
    try:
        fake_server.enqueue_text("Plain words, not a page.")
        send(qtbot, window, "Words?")
        menu = answer_widget(window).header_row.more_menu
        menu.aboutToShow.emit()
        assert "Preview this page…" not in [a.text() for a in menu.actions()]
        fake_server.enqueue_text("<!DOCTYPE html>\n<html><body><h1>Made page</h1>"
                                 "<script>document.title='x'</script></body></html>")
        send(qtbot, window, "Page?")
        menu = answer_widget(window).header_row.more_menu
        menu.aboutToShow.emit()
        [preview] = [a for a in menu.actions() if a.text() == "Preview this page…"]
        assert "runs the model's code" in preview.toolTip()
        preview.trigger()
        [url] = opened
        page = Path(url.toLocalFile()).read_text()
        assert "Made page" in page and "default-src 'none'" in page
    finally:
        QDesktopServices.unsetUrlHandler("file")


def test_a_provider_failure_is_worded_like_every_provider_failure(
        qtbot: Any, window: MainWindow, fake_server: FakeOpenAIServer, audio: FakeAudioServer,
        tmp_path: Path) -> None:
    audio.fail_status = 401
    clip = tmp_path / "said.wav"
    clip.write_bytes(tone_wav(0.3))
    mic = window.composer.mic_button
    mic.file_source = clip
    qtbot.mouseClick(mic, Qt.MouseButton.LeftButton)
    qtbot.mouseClick(mic, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: mic.state == "failed", timeout=20000)
    banner = window.chat_pane.error_banner.text()
    assert banner.startswith("Voice box did not accept the API key (HTTP 401)"), banner
    assert window.composer.input.toPlainText() == ""

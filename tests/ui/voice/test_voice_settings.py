"""Preferences → Chats: the speech and transcription model rows load and save."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QFormLayout, QWidget

from desktop.core.settings import AppSettings, ProviderConfig
from desktop.ui.dialogs.voice_settings import VoiceSettings


def test_voice_rows_load_and_give_their_changes(qtbot: Any) -> None:
    page = QWidget()
    qtbot.addWidget(page)
    form = QFormLayout(page)
    rows = VoiceSettings(form, page)
    groq = ProviderConfig(name="Groq", preset="custom", base_url="http://127.0.0.1:9/v1")
    settings = AppSettings(speech_model="tts-1", speech_voice="verse",
                           transcription_provider_id=groq.id,
                           transcription_model="whisper-large-v3")
    rows.load([groq], settings)
    assert form.rowCount() == 5
    assert rows.transcription_provider.currentText() == "Groq"
    assert rows.speech_provider.currentText() == "The chat's provider"
    rows.speech_model.setText("  gpt-4o-mini-tts ")
    rows.speech_voice.setText("")
    assert rows.changes() == {"speech_provider_id": "", "speech_model": "gpt-4o-mini-tts",
                              "speech_voice": "alloy", "transcription_provider_id": groq.id,
                              "transcription_model": "whisper-large-v3"}
    assert AppSettings(**{**settings.model_dump(), **rows.changes()}).speech_model \
        == "gpt-4o-mini-tts"

"""Preferences → Chats → Voice: who reads answers aloud (the system's voice, or a
provider's speech model and voice) and who writes dictation down (a provider's
transcription model: whisper-1, gpt-4o-transcribe, whisper-large-v3 on Groq...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QComboBox, QFormLayout, QLineEdit, QWidget

if TYPE_CHECKING:
    from desktop.core.settings import AppSettings, ProviderConfig


class VoiceSettings(QWidget):
    """Adds its rows to ``form``; :meth:`changes` gives the settings they set."""

    def __init__(self, form: QFormLayout, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.speech_provider = QComboBox()
        self.speech_provider.setAccessibleName(self.tr("Provider that reads aloud"))
        self.speech_model = QLineEdit()
        self.speech_model.setAccessibleName(self.tr("Speech model"))
        self.speech_model.setPlaceholderText(self.tr("Empty: the system's voice. "
                                                     "e.g. gpt-4o-mini-tts"))
        self.speech_voice = QLineEdit()
        self.speech_voice.setAccessibleName(self.tr("Voice"))
        self.transcription_provider = QComboBox()
        self.transcription_provider.setAccessibleName(self.tr("Provider that writes dictation"))
        self.transcription_model = QLineEdit()
        self.transcription_model.setAccessibleName(self.tr("Transcription model"))
        self.transcription_model.setPlaceholderText(self.tr("Empty: no dictation. "
                                                            "e.g. whisper-1"))
        form.addRow(self.tr("Read aloud on"), self.speech_provider)
        form.addRow(self.tr("Speech model"), self.speech_model)
        form.addRow(self.tr("Voice"), self.speech_voice)
        form.addRow(self.tr("Dictation on"), self.transcription_provider)
        form.addRow(self.tr("Transcription model"), self.transcription_model)

    def load(self, providers: list[ProviderConfig], settings: AppSettings) -> None:
        for combo, chosen in ((self.speech_provider, settings.speech_provider_id),
                              (self.transcription_provider, settings.transcription_provider_id)):
            combo.clear()
            combo.addItem(self.tr("The chat's provider"), "")
            for config in providers:
                combo.addItem(config.name, config.id)
            combo.setCurrentIndex(max(0, combo.findData(chosen)))
        self.speech_model.setText(settings.speech_model)
        self.speech_voice.setText(settings.speech_voice)
        self.transcription_model.setText(settings.transcription_model)

    def changes(self) -> dict[str, object]:
        return {
            "speech_provider_id": self.speech_provider.currentData() or "",
            "speech_model": self.speech_model.text().strip(),
            "speech_voice": self.speech_voice.text().strip() or "alloy",
            "transcription_provider_id": self.transcription_provider.currentData() or "",
            "transcription_model": self.transcription_model.text().strip(),
        }

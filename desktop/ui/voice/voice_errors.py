"""The sentences the window says for a voice failure (by its code)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def voice_error_text(code: str, detail: str) -> str:
    tr = QCoreApplication.translate
    texts = {
        "no_microphone": tr("Voice", "No microphone could be opened. Connect one, or allow "
                                     "this app to use the microphone in the system's privacy "
                                     "settings."),
        "no_audio_output": tr("Voice", "No sound output could be opened, so nothing can be "
                                       "read aloud here."),
        "no_speech_engine": tr("Voice", "This system has no speech engine. Install espeak-ng, "
                                        "or set a speech model in Settings."),
        "no_transcription_model": tr("Voice", "Set a transcription model in Settings "
                                              "to dictate."),
        "nothing_to_read": tr("Voice", "This answer has no text to read aloud."),
        "audio_undecodable": tr("Voice", "The speech audio could not be played."),
        "nothing_heard": tr("Voice", "Nothing was recorded."),
    }
    text = texts.get(code)
    if text is not None:
        return text
    return tr("Voice", "The voice request failed: {detail}").format(detail=detail)

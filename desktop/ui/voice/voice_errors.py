"""The sentences the window says for a voice failure (by its code)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication


def voice_error_text(code: str, detail: str) -> str:
    if code == "no_microphone":
        return QCoreApplication.translate(
            "Voice", "No microphone could be opened. Connect one, or allow this app to use "
                     "the microphone in the system's privacy settings.")
    if code == "no_audio_output":
        return QCoreApplication.translate(
            "Voice", "No sound output could be opened, so nothing can be read aloud here.")
    if code == "no_speech_engine":
        return QCoreApplication.translate(
            "Voice", "This system has no speech engine. Install espeak-ng, or set a speech "
                     "model in Settings.")
    if code == "no_transcription_model":
        return QCoreApplication.translate(
            "Voice", "Set a transcription model in Settings to dictate.")
    if code == "nothing_to_read":
        return QCoreApplication.translate("Voice", "This answer has no text to read aloud.")
    if code == "audio_undecodable":
        return QCoreApplication.translate("Voice", "The speech audio could not be played.")
    if code == "nothing_heard":
        return QCoreApplication.translate("Voice", "Nothing was recorded.")
    return QCoreApplication.translate("Voice", "The voice request failed: {detail}").format(
        detail=detail)

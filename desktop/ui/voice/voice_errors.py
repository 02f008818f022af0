"""The sentences the window says for a voice failure (by its code)."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication

from desktop.ui.error_text import exception_text


def voice_error_text(exc: BaseException) -> str:
    """A voice failure as the window says it: the provider's failures (a wrong key, an
    unknown model...) as every provider failure is worded, the rest by their code."""
    code = str(getattr(exc, "code", "") or "")
    text = _voice_text(code)
    return text if text is not None else exception_text(exc)


def _voice_text(code: str) -> str | None:
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
    return None

"""The system's own speech, written to a WAV file that the app then plays (so stop and
pause work the same for it as for a provider's speech): espeak-ng (or espeak) on Linux,
``say`` on macOS, SAPI through PowerShell on Windows.

speech-dispatcher's ``spd-say`` speaks but cannot write a file; on a Linux desktop it
drives espeak-ng, which is what is used here directly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from desktop.core.errors import AssistaError

__all__ = ["NoSpeechEngine", "speech_command", "synthesize"]

_SAPI = (
    "Add-Type -AssemblyName System.Speech;"
    "$s = New-Object System.Speech.Synthesis.SpeechSynthesizer;"
    "$s.SetOutputToWaveFile($env:ASSISTA_SPEECH_OUT);"
    "$s.Speak([Console]::In.ReadToEnd()); $s.Dispose()"
)


class NoSpeechEngine(AssistaError):
    def __init__(self) -> None:
        super().__init__("no speech engine on this system (install espeak-ng), and no "
                         "speech model set", code="no_speech_engine")


def speech_command(out: Path, platform: str = sys.platform) -> list[str] | None:
    """The command that reads text on its standard input into the WAV file ``out``."""
    if platform == "darwin" and shutil.which("say"):
        return ["say", "--data-format=LEI16@22050", "-o", str(out), "-f", "-"]
    if platform == "win32":
        shell = shutil.which("powershell") or shutil.which("pwsh")
        return [shell, "-NoProfile", "-NonInteractive", "-Command", _SAPI] if shell else None
    for name in ("espeak-ng", "espeak"):
        found = shutil.which(name)
        if found:
            return [found, "--stdin", "-w", str(out)]
    return None


def synthesize(text: str, *, timeout: float = 300.0) -> bytes:
    """``text`` spoken by the system, as WAV bytes (blocking: call it off the UI thread)."""
    with tempfile.TemporaryDirectory(prefix="assista-speech-") as folder:
        out = Path(folder) / "speech.wav"
        command = speech_command(out)
        if command is None:
            raise NoSpeechEngine
        env = {**os.environ, "ASSISTA_SPEECH_OUT": str(out)}
        try:
            done = subprocess.run(command, input=text.encode("utf-8"), capture_output=True,
                                  timeout=timeout, env=env, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise AssistaError(f"the system speech failed: {exc}", code="speech_failed",
                               params={"detail": str(exc)}) from exc
        if done.returncode != 0 or not out.is_file():
            detail = done.stderr.decode("utf-8", "replace").strip()[-300:]
            raise AssistaError(f"the system speech failed: {detail}", code="speech_failed",
                               params={"detail": detail})
        return out.read_bytes()

"""Playing and recording sound with miniaudio (one small wheel with the C library in it:
ALSA/PulseAudio, WASAPI, Core Audio; MP3/FLAC/Vorbis/WAV decoders; no NumPy).

:class:`Player` plays decoded audio with pause, resume and stop; :class:`Recorder`
gathers 16 kHz mono 16-bit samples from the microphone, or from a WAV file through the
same path (``Recorder.from_file``: for tests and machines without a microphone), and
hands them back as a WAV file. ``backends``: miniaudio's backends to try (None: the
platform's own; ``[miniaudio.Backend.NULL]``: a device that plays into nothing and
records silence, in real time).

Device callbacks run on miniaudio's audio thread: ``on_done`` is called there.
"""

from __future__ import annotations

import io
import threading
import wave
from collections.abc import Callable, Generator, Sequence
from pathlib import Path
from typing import Any

import miniaudio
import msgspec

from desktop.core.errors import AssistaError

__all__ = ["NoAudioDevice", "Pcm", "Player", "Recorder", "decode"]

RATE = 16000  # what a recording is taken at: what speech recognition wants
PLAY_RATE = 24000
_SILENCE = b"\0\0"


class NoAudioDevice(AssistaError):
    """No sound device could be opened: ``code`` is ``no_microphone`` or
    ``no_audio_output`` (missing, in use, or the system refused the app)."""


class Pcm(msgspec.Struct, frozen=True):
    """Signed 16-bit mono samples."""

    samples: bytes
    rate: int

    @property
    def frames(self) -> int:
        return len(self.samples) // 2


def decode(audio: bytes, rate: int = PLAY_RATE) -> Pcm:
    """MP3, WAV, FLAC or Ogg Vorbis bytes as mono samples at ``rate``."""
    try:
        sound = miniaudio.decode(audio, output_format=miniaudio.SampleFormat.SIGNED16,
                                 nchannels=1, sample_rate=rate)
    except miniaudio.DecodeError as exc:
        raise AssistaError("the audio could not be decoded", code="audio_undecodable",
                           params={"detail": str(exc)}) from exc
    return Pcm(sound.samples.tobytes(), rate)


def wav_bytes(pcm: Pcm) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(pcm.rate)
        wav.writeframes(pcm.samples)
    return out.getvalue()


class Player:
    def __init__(self, backends: Sequence[miniaudio.Backend] | None = None) -> None:
        self.backends = list(backends) if backends is not None else None
        self.paused = False
        self.position = 0  # frames handed to the device
        self.callbacks = 0  # how often the device asked for frames
        self.finished = threading.Event()
        self.on_done: Callable[[], None] | None = None
        self._device: miniaudio.PlaybackDevice | None = None

    def play(self, pcm: Pcm) -> None:
        """Start playing ``pcm`` (stops what played before); :class:`NoAudioDevice`."""
        self.stop()
        self.finished.clear()
        self.position = 0
        self.paused = False
        try:
            device = miniaudio.PlaybackDevice(
                output_format=miniaudio.SampleFormat.SIGNED16, nchannels=1,
                sample_rate=pcm.rate, backends=self.backends)
        except miniaudio.MiniaudioError as exc:
            raise NoAudioDevice("no sound output could be opened", code="no_audio_output",
                                params={"detail": str(exc)}) from exc
        stream = self._frames(pcm)
        next(stream)
        self._device = device
        device.start(stream)

    def _frames(self, pcm: Pcm) -> Generator[bytes, int, None]:
        wanted = yield b""
        data = pcm.samples
        while True:
            self.callbacks += 1
            if self.paused:
                wanted = yield _SILENCE * wanted
                continue
            start = self.position * 2
            if start >= len(data):
                break
            chunk = data[start:start + wanted * 2]
            self.position += len(chunk) // 2
            wanted = yield chunk
        self.finished.set()
        if self.on_done is not None:
            self.on_done()

    def pause(self) -> None:
        self.paused = True

    def resume(self) -> None:
        self.paused = False

    @property
    def playing(self) -> bool:
        return self._device is not None and not self.finished.is_set()

    def stop(self) -> None:
        device, self._device = self._device, None
        if device is not None:
            device.close()


class Recorder:
    """Gathers samples until :meth:`stop`, which returns them as a WAV file."""

    def __init__(self, backends: Sequence[miniaudio.Backend] | None = None) -> None:
        self.backends = list(backends) if backends is not None else None
        self._chunks: list[bytes] = []
        self._device: miniaudio.CaptureDevice | None = None
        self._feeder: threading.Thread | None = None
        self._stopping = threading.Event()
        self.level = 0  # the loudest sample of the last chunk, 0..32767

    def start(self) -> None:
        """Record from the microphone; :class:`NoAudioDevice` when there is none or the
        system refuses it."""
        self._reset()
        try:
            device = miniaudio.CaptureDevice(
                input_format=miniaudio.SampleFormat.SIGNED16, nchannels=1, sample_rate=RATE,
                backends=self.backends)
        except miniaudio.MiniaudioError as exc:
            raise NoAudioDevice("no microphone could be opened", code="no_microphone",
                                params={"detail": str(exc)}) from exc
        sink = self._sink()
        next(sink)
        self._device = device
        device.start(sink)

    def start_file(self, path: Path) -> None:
        """Record what the audio file ``path`` holds, as if it were said (same path)."""
        self._reset()
        try:
            stream = miniaudio.stream_file(str(path), output_format=miniaudio.SampleFormat.SIGNED16,
                                           nchannels=1, sample_rate=RATE, frames_to_read=1600)
        except (miniaudio.MiniaudioError, OSError) as exc:
            raise NoAudioDevice(f"cannot read {path}", code="no_microphone",
                                params={"detail": str(exc)}) from exc
        sink = self._sink()
        next(sink)

        def feed() -> None:
            for chunk in stream:
                if self._stopping.is_set():
                    break
                sink.send(chunk)

        self._feeder = threading.Thread(target=feed, name="recorder-file", daemon=True)
        self._feeder.start()

    def _reset(self) -> None:
        self.stop()
        self._chunks = []
        self._stopping.clear()

    def _sink(self) -> Generator[None, Any, None]:
        while True:
            data = yield
            chunk = bytes(data)
            self._chunks.append(chunk)
            if chunk:
                view = memoryview(chunk).cast("h")
                low, high = min(view), max(view)
                self.level = max(-low, high)

    def wait_file(self, timeout: float | None = None) -> None:
        """Until a file source is read to its end."""
        if self._feeder is not None:
            self._feeder.join(timeout)

    @property
    def frames(self) -> int:
        return sum(len(c) for c in self._chunks) // 2

    def stop(self) -> bytes:
        """Stop; what was recorded, as a WAV file."""
        self._stopping.set()
        device, self._device = self._device, None
        if device is not None:
            device.close()
        if self._feeder is not None:
            self._feeder.join()
            self._feeder = None
        return wav_bytes(Pcm(b"".join(self._chunks), RATE))

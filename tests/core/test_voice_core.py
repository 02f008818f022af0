"""Read-aloud and dictation below the window: the text said, the system's speech, the
player (pause, resume, stop) and the recorder (a WAV file through the microphone's path;
no microphone is a clear error), on miniaudio's null device where there is no sound card."""

from __future__ import annotations

import io
import shutil
import threading
import wave
from pathlib import Path

import miniaudio
import pytest

from desktop.core.audio_io import NoAudioDevice, Pcm, Player, Recorder, decode
from desktop.core.speech_text import speech_text
from desktop.core.system_speech import synthesize
from tests.support.audio_server import tone_wav

NULL = [miniaudio.Backend.NULL]


def test_speech_text_says_the_words_not_the_marks_or_the_code() -> None:
    markdown = ("# Plan\n\nUse **bold** ideas and [the docs](https://x.example/d).\n\n"
                "```python\nprint('never read')\n```\n\n- one\n- two\n\n$$x^2$$\n\n"
                "See https://example.com/raw too.")
    said = speech_text(markdown)
    assert "Plan" in said and "Use bold ideas and the docs." in said
    assert "print" not in said and "```" not in said and "**" not in said
    assert "#" not in said and "x^2" not in said and "https" not in said
    assert "one\ntwo" in said


@pytest.mark.skipif(shutil.which("espeak-ng") is None and shutil.which("espeak") is None,
                    reason="no espeak-ng (packaging/dev.py test installs it)")
def test_the_system_speech_makes_a_wav_the_player_can_play() -> None:
    audio = synthesize("Hello from the system voice.")
    with wave.open(io.BytesIO(audio)) as wav:
        assert wav.getnframes() > wav.getframerate() // 2  # more than half a second
    assert decode(audio).frames > 0


def test_the_player_plays_to_the_end_on_a_device() -> None:
    player = Player(NULL)
    done: list[bool] = []
    player.on_done = lambda: done.append(True)
    pcm = decode(tone_wav(0.2))
    player.play(pcm)
    assert player.finished.wait(30)
    assert player.position == pcm.frames and done == [True]
    player.stop()


def test_pause_holds_the_place_and_stop_ends_it() -> None:
    player = Player(NULL)
    pcm = Pcm(b"\1\0" * 24000 * 30, 24000)  # 30 s: far from its end in this test
    player.play(pcm)
    player.pause()
    held = player.position
    asked = player.callbacks
    while player.callbacks < asked + 5:  # the device keeps asking: it gets silence
        assert not player.finished.wait(0.01)
    assert player.position == held
    player.resume()
    while player.position == held:
        assert not player.finished.wait(0.01)
    player.stop()
    assert not player.playing or player.finished.is_set()
    assert player.position < pcm.frames


def test_the_recorder_takes_a_wav_file_through_the_same_path(tmp_path: Path) -> None:
    clip = tmp_path / "said.wav"
    clip.write_bytes(tone_wav(0.5, rate=44100))
    recorder = Recorder()
    recorder.start_file(clip)
    recorder.wait_file(30)
    recorded = recorder.stop()
    with wave.open(io.BytesIO(recorded)) as wav:
        assert (wav.getframerate(), wav.getnchannels(), wav.getsampwidth()) == (16000, 1, 2)
        assert abs(wav.getnframes() - 8000) <= 16  # resampled to 16 kHz, all of it
    assert recorder.level > 10000  # the tone was heard


def test_recording_on_a_device_gathers_samples() -> None:
    recorder = Recorder(NULL)
    recorder.start()
    waiting = threading.Event()
    for _ in range(3000):  # (a guard: the null device delivers in real time)
        if recorder.frames >= 1600:
            break
        waiting.wait(0.01)
    with wave.open(io.BytesIO(recorder.stop())) as wav:
        assert wav.getnframes() >= 1600


def test_no_microphone_is_a_clear_error_not_a_crash() -> None:
    # the machine's own backends: on a machine without a sound card none opens
    try:
        miniaudio.CaptureDevice().close()
    except miniaudio.MiniaudioError:
        pass
    else:
        pytest.skip("this machine has a microphone")
    with pytest.raises(NoAudioDevice) as caught:
        Recorder().start()
    assert caught.value.code == "no_microphone"
    with pytest.raises(NoAudioDevice) as output:
        Player().play(decode(tone_wav(0.1)))
    assert output.value.code == "no_audio_output"


def test_undecodable_audio_says_so() -> None:
    from desktop.core.errors import AssistaError

    with pytest.raises(AssistaError) as caught:
        decode(b"this is not audio at all" * 10)
    assert caught.value.code == "audio_undecodable"

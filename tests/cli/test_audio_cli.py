"""``assista transcribe`` and ``assista speak`` against a loopback audio server."""

from __future__ import annotations

import wave
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.test_ask_export import KEY, assista
from tests.support.audio_server import FakeAudioServer, tone_wav


@pytest.fixture
def server() -> Iterator[FakeAudioServer]:
    with FakeAudioServer(key=KEY["OPENAI_API_KEY"], transcript="Turn left at the lights.") as fake:
        yield fake


def test_transcribe_prints_the_text_of_an_uploaded_wav(server: FakeAudioServer,
                                                       tmp_path: Path) -> None:
    clip = tmp_path / "note.wav"
    clip.write_bytes(tone_wav(0.5))
    done = assista("transcribe", "--base-url", server.base_url, "--model", "whisper-1",
                   str(clip), "--data-dir", str(tmp_path / "data"), data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Turn left at the lights.\n"
    [upload] = server.uploads
    assert (upload.model, upload.filename, upload.content_type) == ("whisper-1", "note.wav",
                                                                    "audio/wav")
    assert (upload.frames, upload.rate) == (8000, 16000)  # the whole file arrived


def test_speak_writes_the_audio_the_server_made(server: FakeAudioServer, tmp_path: Path) -> None:
    out = tmp_path / "said.wav"
    done = assista("speak", "--base-url", server.base_url, "--model", "gpt-4o-mini-tts",
                   "--out", str(out), "one two three four", "--data-dir", str(tmp_path / "d"),
                   data_dir=tmp_path, env=KEY)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(out)
    assert server.speech_requests == [{"model": "gpt-4o-mini-tts", "input": "one two three four",
                                       "voice": "alloy", "response_format": "wav"}]
    with wave.open(str(out)) as wav:
        assert wav.getnframes() == int(0.05 * 4 * 16000)


def test_errors_are_one_clear_line(server: FakeAudioServer, tmp_path: Path) -> None:
    data = ["--data-dir", str(tmp_path / "d")]
    missing = assista("transcribe", "--base-url", server.base_url, "--model", "w",
                      str(tmp_path / "nope.wav"), *data, data_dir=tmp_path, env=KEY)
    assert missing.returncode == 1
    assert missing.stderr.startswith("assista: error: cannot read ")
    assert "nope.wav" in missing.stderr
    bad_key = assista("speak", "--base-url", server.base_url, "--model", "tts", "--out",
                      str(tmp_path / "x.wav"), "hi", *data, data_dir=tmp_path,
                      env={"OPENAI_API_KEY": "sk-wrong"})
    assert bad_key.returncode == 1 and "HTTP 401" in bad_key.stderr
    assert "Traceback" not in bad_key.stderr and not (tmp_path / "x.wav").exists()
    refused = assista("speak", "--base-url", server.base_url, "--model", "tts", "--out",
                      str(tmp_path / "x.mp3"), "hi", *data, data_dir=tmp_path, env=KEY)
    assert refused.returncode == 1 and "not supported here" in refused.stderr
    odd = assista("speak", "--base-url", server.base_url, "--model", "tts", "--out",
                  str(tmp_path / "x.xyz"), "hi", *data, data_dir=tmp_path, env=KEY)
    assert odd.returncode == 1 and "cannot write 'xyz' audio" in odd.stderr
    no_model = assista("speak", "--out", str(tmp_path / "x.wav"), "hi", *data,
                       data_dir=tmp_path, env=KEY)
    assert no_model.returncode == 2 and "--model" in no_model.stderr

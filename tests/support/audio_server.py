"""A loopback server of the OpenAI audio endpoints, for the voice tests.

* ``POST /v1/audio/speech`` (JSON ``model``, ``input``, ``voice``, ``response_format``)
  answers a real WAV file: a tone of 50 ms per word of ``input`` (``wav`` only; any
  other format is refused with a 400 as a server without that encoder would).
* ``POST /v1/audio/transcriptions`` parses the multipart form (``model``, ``file``,
  ``response_format``), decodes an uploaded WAV with :mod:`wave` and answers
  ``{"text": transcript}``; what it decoded is kept in :attr:`uploads`.

Both check ``Authorization: Bearer <key>`` when ``key`` is set (401 otherwise).
"""

from __future__ import annotations

import io
import json
import math
import struct
import threading
import wave
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support import served


def tone_wav(seconds: float, rate: int = 16000, freq: float = 440.0) -> bytes:
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        frames = int(seconds * rate)
        wav.writeframes(b"".join(
            struct.pack("<h", int(12000 * math.sin(2 * math.pi * freq * i / rate)))
            for i in range(frames)))
    return out.getvalue()


@dataclass
class Upload:
    model: str
    filename: str
    content_type: str
    size: int
    frames: int | None  # a WAV's frame count (None: not a WAV)
    rate: int | None
    fields: dict[str, str] = field(default_factory=dict)


class FakeAudioServer:
    def __init__(self, *, key: str | None = None, transcript: str = "hello from the test") -> None:
        self.key = key
        self.transcript = transcript
        self.speech_requests: list[dict[str, Any]] = []
        self.uploads: list[Upload] = []
        self.fail_status: int | None = None
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, ctype, reply = fake._answer(self.path, dict(self.headers), body)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FakeAudioServer:
        self._thread = served.serve(self._server)
        return self

    def __exit__(self, *exc: object) -> None:
        served.stop(self._server, self._thread)

    @staticmethod
    def _error(status: int, message: str) -> tuple[int, str, bytes]:
        return status, "application/json", json.dumps(
            {"error": {"message": message, "type": "invalid_request_error"}}).encode()

    def _answer(self, path: str, headers: dict[str, str],
                body: bytes) -> tuple[int, str, bytes]:
        headers = {k.lower(): v for k, v in headers.items()}
        if self.key and headers.get("authorization") != f"Bearer {self.key}":
            return self._error(401, "Incorrect API key provided")
        if self.fail_status is not None:
            return self._error(self.fail_status, "the test server was told to fail")
        if path == "/v1/audio/speech":
            request = json.loads(body)
            self.speech_requests.append(request)
            if request.get("response_format") != "wav":
                return self._error(400, f"format {request.get('response_format')!r} "
                                        "is not supported here")
            words = len(str(request["input"]).split())
            return 200, "audio/wav", tone_wav(0.05 * max(1, words))
        if path == "/v1/audio/transcriptions":
            return self._transcribe(headers.get("content-type", ""), body)
        return self._error(404, f"no route {path}")

    def _transcribe(self, content_type: str, body: bytes) -> tuple[int, str, bytes]:
        if not content_type.startswith("multipart/form-data"):
            return self._error(400, "expected multipart/form-data")
        message = BytesParser(policy=HTTP).parsebytes(
            b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body)
        fields: dict[str, str] = {}
        upload: tuple[str, str, bytes] | None = None
        for part in message.iter_parts():
            name = part.get_param("name", header="content-disposition")
            data = part.get_payload(decode=True)
            if part.get_filename():
                upload = (part.get_filename(), part.get_content_type(), data)
            else:
                fields[str(name)] = data.decode()
        if upload is None or "model" not in fields:
            return self._error(400, "model and file are required")
        frames = rate = None
        try:
            with wave.open(io.BytesIO(upload[2])) as wav:
                frames, rate = wav.getnframes(), wav.getframerate()
        except (wave.Error, EOFError):
            pass
        self.uploads.append(Upload(fields["model"], upload[0], upload[1], len(upload[2]),
                                   frames, rate, fields))
        return 200, "application/json", json.dumps({"text": self.transcript}).encode()

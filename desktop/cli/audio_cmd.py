"""``assista transcribe`` and ``assista speak``: the provider's audio endpoints
(``/v1/audio/transcriptions`` and ``/v1/audio/speech``) from the command line.

The provider is picked as ``assista ask`` picks it (``--provider``, ``--base-url``,
else the one picked last in the app); ``--model`` names the speech or transcription
model (``whisper-1``, ``gpt-4o-mini-tts``...)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from desktop.app import AppContext
from desktop.chat.profile import NewChat
from desktop.chat.service import ChatService
from desktop.cli.ask import resolve_provider
from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail
from desktop.cli.interrupt import exit_status, run_interruptible
from desktop.core.errors import AssistaError, ConfigError
from desktop.providers.audio_api import SPEECH_FORMATS, AudioEndpoint

log = logging.getLogger(__name__)


def _endpoint(ctx: AppContext, args: argparse.Namespace) -> AudioEndpoint:
    config = resolve_provider(ctx, args, ChatService(ctx), NewChat())
    return AudioEndpoint(config.base_url, ctx.providers.api_key(config), name=config.name,
                         headers=dict(config.headers), timeout=config.timeout_s,
                         proxy=ctx.proxy)


def _speech_format(out: Path) -> str:
    suffix = out.suffix.lower().lstrip(".")
    if not suffix:
        return "mp3"
    if suffix == "ogg":
        return "opus"
    if suffix not in SPEECH_FORMATS:
        raise ConfigError(f"cannot write {suffix!r} audio: use one of "
                          + ", ".join(SPEECH_FORMATS))
    return suffix


def audio_command(args: argparse.Namespace) -> int:
    try:
        ctx = open_cli_context(args, writes=False)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        if args.command == "transcribe":
            path = Path(args.file).expanduser()
            try:
                audio = path.read_bytes()
            except OSError as exc:
                raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
            endpoint = _endpoint(ctx, args)
            text = run_interruptible(endpoint.transcribe(args.model, audio, path.name,
                                                         language=args.language))
            print(text)
            return 0
        out = Path(args.out).expanduser()
        audio_format = _speech_format(out)
        said = sys.stdin.read() if args.text == "-" else args.text
        if not said.strip():
            raise ConfigError("the text is empty")
        endpoint = _endpoint(ctx, args)
        audio = run_interruptible(endpoint.speak(args.model, said, voice=args.voice,
                                                 audio_format=audio_format))
        try:
            out.write_bytes(audio)
        except OSError as exc:
            raise ConfigError(f"cannot write {out}: {exc.strerror or exc}") from exc
        print(out)
        return 0
    except KeyboardInterrupt as interrupt:
        return fail("interrupted", exit_status(interrupt))
    except AssistaError as exc:
        log.info("%s failed: %s", args.command, exc)
        return fail(str(exc))
    finally:
        ctx.close()

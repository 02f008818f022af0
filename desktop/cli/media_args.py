"""The arguments of ``assista image``, ``transcribe`` and ``speak``: read with every
``assista`` command line (the window's too), so nothing heavy is imported here; the
commands themselves are in :mod:`desktop.cli.image_cmd` and :mod:`desktop.cli.audio_cmd`."""

from __future__ import annotations

import argparse
from typing import Any


def add_image_parser(sub: Any, add_common: Any) -> None:
    image = sub.add_parser("image", help="make images from a prompt and write them to files")
    add_common(image)
    image.add_argument("prompt", help="what to draw; '-' reads it from standard input")
    image.add_argument("--model", metavar="M", required=True, help="an image model id")
    image.add_argument("--out", metavar="FILE.png", required=True,
                       help="where to write the image (more: FILE-2.png, FILE-3.png...)")
    image.add_argument("--size", metavar="WxH", help="e.g. 1024x1024 (Images API models)")
    image.add_argument("--quality", metavar="Q", help="low, medium, high, standard, hd, auto")
    image.add_argument("--n", type=int, default=1, metavar="N",
                       help="how many images (1 by default)")
    image.add_argument("--provider", metavar="NAME",
                       help="a configured provider (name or id), or a preset/kind name")
    image.add_argument("--base-url", metavar="URL", help="API base URL (e.g. http://host/v1)")


def _add_provider_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provider", metavar="NAME",
                        help="a configured provider (name or id), or a preset/kind name")
    parser.add_argument("--base-url", metavar="URL", help="API base URL (e.g. http://host/v1)")
    parser.add_argument("--model", metavar="M", required=True,
                        help="the speech or transcription model")


def add_audio_parsers(sub: Any, add_common: Any) -> None:
    transcribe = sub.add_parser("transcribe", help="print the text said in an audio file "
                                "(the provider's /audio/transcriptions)")
    add_common(transcribe)
    _add_provider_args(transcribe)
    transcribe.add_argument("file", metavar="FILE", help="an audio file (wav, mp3, m4a, ...)")
    transcribe.add_argument("--language", metavar="CODE", help="the language spoken (e.g. en)")
    speak = sub.add_parser("speak", help="write TEXT spoken to an audio file "
                           "(the provider's /audio/speech)")
    add_common(speak)
    _add_provider_args(speak)
    speak.add_argument("text", metavar="TEXT", help="what to say; '-' reads standard input")
    speak.add_argument("--out", metavar="FILE", required=True,
                       help="the audio file to write; its extension picks the format "
                            "(mp3, opus, aac, flac, wav or pcm; default mp3)")
    speak.add_argument("--voice", metavar="NAME", default="alloy", help="the voice (alloy)")

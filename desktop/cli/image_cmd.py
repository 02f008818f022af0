"""``assista image --model MODEL [--size WxH] [--n N] --out FILE.png "PROMPT"``.

Writes the image(s) the model makes to ``FILE.png``, ``FILE-2.png``... and prints
each path on its own line. The provider is chosen as ``assista ask`` chooses it
(``--provider``, ``--base-url``, else the one picked last in the app). An OpenAI
Images API model (``gpt-image-1``, ``dall-e-3``) is asked through
``/images/generations``; any other model through its chat endpoint, keeping the
images of the answer (Gemini's image models, OpenRouter's, the Responses API's
``image_generation`` tool, which is offered to any model here). Nothing is saved as
a chat.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import re
import sys
from pathlib import Path

from desktop.core.errors import AssistaError, ConfigError
from desktop.core.events import ErrorEvent, ImageEvent
from desktop.core.images import MAX_IMAGES, image_file_names, uses_images_api
from desktop.core.messages import Message
from desktop.core.provider import ChatRequest, Provider

__all__ = ["image_command"]

_SIZE = re.compile(r"^(\d{2,5})x(\d{2,5})$|^auto$")
_PROBLEMS = {
    "too_large": "an image was larger than the app allows (10 MB, 8192x8192 pixels)",
    "not_an_image": "the provider sent data that is not a PNG, JPEG, GIF or WebP image",
    "bad_data": "the provider sent a broken image",
    "not_inline": "the provider sent a link instead of the image",
    "download_failed": "an image could not be downloaded",
    "failed": "the provider could not make the image",
}


def _check(args: argparse.Namespace, prompt: str) -> None:
    if not prompt.strip():
        raise ConfigError("the prompt is empty")
    if args.size and not _SIZE.match(args.size):
        raise ConfigError(f"--size must be WIDTHxHEIGHT such as 1024x1024 (got {args.size!r})")
    if not 1 <= args.n <= MAX_IMAGES:
        raise ConfigError(f"--n must be between 1 and {MAX_IMAGES}")
    folder = Path(args.out).expanduser().parent
    if not folder.is_dir():
        raise ConfigError(f"the folder of --out does not exist: {folder}")


async def _images(provider: Provider, args: argparse.Namespace, prompt: str
                  ) -> list[ImageEvent]:
    if uses_images_api(args.model):
        from desktop.providers.http_base import HttpProvider
        from desktop.providers.images_api import ImageRequest, generate_images
        from desktop.providers.recording import RecordingProvider

        if isinstance(provider, RecordingProvider):  # (the inspector records chats only)
            provider = provider.inner
        if not isinstance(provider, HttpProvider):
            raise ConfigError(f"{provider.name} has no images endpoint")
        result = await generate_images(provider, ImageRequest(
            args.model, prompt, size=args.size, quality=args.quality, n=args.n))
        if isinstance(result, ErrorEvent):
            raise AssistaError(result.message)
        return result.images
    images: list[ImageEvent] = []
    request = ChatRequest(model=args.model, messages=[Message.user(prompt)])
    async with contextlib.aclosing(provider.stream(request)) as stream:
        async for event in stream:
            if isinstance(event, ImageEvent):
                images.append(event)
            elif isinstance(event, ErrorEvent):
                raise AssistaError(event.message)
    return images


async def _run(args: argparse.Namespace, prompt: str) -> list[ImageEvent]:
    from desktop.chat.profile import NewChat
    from desktop.chat.service import ChatService
    from desktop.cli.ask import resolve_provider
    from desktop.cli.context import open_cli_context

    ctx = open_cli_context(args, writes=False)
    try:
        service = ChatService(ctx)
        config = resolve_provider(ctx, args, service, NewChat())
        if config.kind == "openai-responses":  # any model draws with the image tool
            from desktop.core.provider_options import ResponsesOptions

            if isinstance(config.options, ResponsesOptions):
                options = config.options.model_copy(update={"image_generation": True})
                config = config.model_copy(update={"options": options})
        provider = ctx.build_provider(config)
        try:
            return await _images(provider, args, prompt)
        finally:
            await provider.aclose()
            await service.shutdown()
    finally:
        ctx.close()


def write_images(images: list[ImageEvent], out: str) -> tuple[list[str], list[str]]:
    """Write the good images to ``out``, ``out-2``...; (paths written, problems)."""
    good = [image for image in images if not image.problem and image.data]
    problems = [_PROBLEMS.get(image.problem or "", "an image was not usable")
                for image in images if image.problem or not image.data]
    paths = image_file_names(str(Path(out).expanduser()), len(good))
    for image, path in zip(good, paths, strict=True):
        Path(path).write_bytes(base64.b64decode(image.data))
    return paths, problems


def image_command(args: argparse.Namespace) -> int:
    from desktop.cli.failure import fail

    prompt = sys.stdin.read() if args.prompt == "-" else args.prompt
    try:
        _check(args, prompt)
        images = asyncio.run(_run(args, prompt.strip()))
        paths, problems = write_images(images, args.out)
    except AssistaError as exc:
        return fail(str(exc))
    except OSError as exc:
        return fail(f"cannot write the image: {exc.strerror or exc}")
    except KeyboardInterrupt:
        return fail("interrupted", 130)
    for problem in problems:
        print(f"assista: warning: {problem}", file=sys.stderr)
    for path in paths:
        print(path)
    if not paths:
        return fail("the model made no image" + (f" ({problems[0]})" if problems else ""))
    return 0

"""A short title written by the model after a chat's first answer.

A new chat is named after the first line of its first message at once
(:func:`desktop.core.conversation.auto_title`). When its first answer is complete, one
small request asks for a better title — of the model named in Preferences for titles,
else of the chat's own model; capped, with reasoning off where the provider allows
(:mod:`desktop.chat.title_request`), and read only until the title line is complete.
It runs on its own (nothing waits for it) and replaces the first-line title only if
that is still the chat's title — a title the user set is never overwritten. Any
failure leaves the first-line title.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import msgspec

from desktop import chat as chat_features
from desktop.core.events import TextDelta
from desktop.core.messages import Message
from desktop.core.provider import RequestOrigin

if TYPE_CHECKING:
    from desktop.chat.app_context import BuildProvider
    from desktop.chat.provider_service import ProviderService
    from desktop.core.services import SettingsSource
    from desktop.core.settings import ProviderConfig
    from desktop.storage.sessions import SessionStore

log = logging.getLogger(__name__)

TITLE_PROMPT = (
    "Write a title for this conversation: at most six words, in the language the user "
    "wrote in. Reply with the title alone, without quotes or a full stop.")
TITLE_LIMIT = 60
#: How much of the question and answer the title request sends (it needs the gist).
EXCERPT_CHARS = 1500
_PREFIX = re.compile(r"^(title|titel|titre|título)\s*:\s*", re.IGNORECASE)


class TitleJob(msgspec.Struct, frozen=True):
    """A chat whose first-line title may be replaced, and what it was about."""

    session_id: str
    first_title: str  # the title it was given; replaced only while it is still this
    config: ProviderConfig
    model: str
    question: str
    answer: str


def clean_title(text: str) -> str | None:
    """The title in a model's reply: its first line without quotes, Markdown or a
    "Title:" prefix, at most :data:`TITLE_LIMIT` characters (None: nothing usable)."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    line = line.strip("#*_`>- ").strip()
    line = _PREFIX.sub("", line).strip().strip("\"'“”‘’«»").strip().rstrip(".").strip()
    if not line:
        return None
    return line if len(line) <= TITLE_LIMIT else line[: TITLE_LIMIT - 1].rstrip() + "…"


class ChatTitler:
    """Runs title requests in the background; ``on_titled`` is told each new title.

    ``enabled``: whether this service writes titles at all (the window's does; a
    one-shot ``assista ask`` would have to wait for the extra request before exiting);
    the Preferences setting ``model_titles`` switches it off for the user."""

    def __init__(self, sessions: SessionStore, providers: ProviderService,
                 settings: SettingsSource, build_provider: BuildProvider,
                 on_titled: Callable[[str, str], None], *, enabled: bool = False) -> None:
        self._sessions = sessions
        self._providers = providers
        self._settings = settings
        self._build_provider = build_provider
        self.on_titled = on_titled
        self.enabled = enabled
        self._tasks: set[asyncio.Task[None]] = set()
        self._new: dict[str, tuple[str, ProviderConfig, str, str]] = {}

    def chat_created(self, session_id: str, first_title: str, config: ProviderConfig,
                     model: str, question: str) -> None:
        """A chat was just created by its first message: title it after the answer."""
        if self.enabled:
            self._new[session_id] = (first_title, config, model, question)

    def turn_ended(self, session_id: str, status: str, history: Sequence[Message]) -> None:
        """A turn ended: after a new chat's first complete answer, ask for its title."""
        pending = self._new.pop(session_id, None)
        if pending is None or status != "complete" or \
                not self._settings.current.model_titles:
            return
        answer = next((m.text for m in reversed(history) if m.role == "assistant"), "")
        first_title, config, model, question = pending
        config, model = self.title_model(config, model)
        if answer.strip():
            self.start(TitleJob(session_id, first_title, config, model, question, answer))

    def title_model(self, config: ProviderConfig, model: str) -> tuple[ProviderConfig, str]:
        """The provider and model that write titles: the one named in Preferences (its
        default model when none is named) while that provider exists, else the chat's."""
        settings = self._settings.current
        chosen = next((p for p in self._providers.all()
                       if p.id == settings.title_provider_id), None)
        if chosen is None or not (settings.title_model or chosen.model):
            return config, model
        return chosen, settings.title_model or chosen.model

    def start(self, job: TitleJob) -> None:
        task = asyncio.ensure_future(self._title(job))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def pending(self) -> int:
        """How many title requests are still running."""
        return len(self._tasks)

    async def wait(self) -> None:
        """Until every title request has finished (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def cancel(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    async def _title(self, job: TitleJob) -> None:
        try:
            reply = await self._ask(job)
        except asyncio.CancelledError:
            return
        except Exception as exc:  # the first-line title stays; nothing to tell the user
            log.info("no model-written title for %s: %s", job.session_id, exc)
            return
        title = clean_title(reply)
        info = self._sessions.get_session(job.session_id)
        if title is None or info is None or info.title != job.first_title:
            return  # nothing usable, the chat is gone, or the user named it meanwhile
        self._sessions.rename_session(job.session_id, title)
        self.on_titled(job.session_id, title)

    async def _ask(self, job: TitleJob) -> str:
        conversation = (f"User: {job.question[:EXCERPT_CHARS]}\n\n"
                        f"Assistant: {job.answer[:EXCERPT_CHARS]}")
        reasoning = self._providers.capabilities(job.config, job.model).reasoning
        call = chat_features.title_call(job.config, job.model, reasoning, TITLE_PROMPT,
                                        conversation)
        # Recorded as the chat's, not as the answer the task was started after.
        call.request.origin = RequestOrigin(job.session_id)
        provider = self._build_provider(call.config)
        reply = ""
        try:
            async with contextlib.aclosing(provider.stream(call.request)) as events:
                async for event in events:
                    if isinstance(event, TextDelta):
                        reply += event.text
                        if chat_features.title_complete(reply, TITLE_LIMIT):
                            break  # the rest is not read (the stream is closed)
        finally:
            with contextlib.suppress(Exception):
                await provider.aclose()
        return reply

"""An error worded in the interface language, by its code (desktop.core.error_codes).

Every error the window shows passes through here: :func:`error_text` takes the code
and params an error carries (or stored with a failed answer) and returns the
translated sentence, with the server's own message (``detail``) appended as it came.
An error without a code this module knows is shown with its English text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop.core.error_codes import ErrorInfo, stored_error
from desktop.core.errors import AssistaError
from desktop.core.messages import Message
from desktop.ui import error_sentences, error_sentences_files

__all__ = ["error_text", "exception_text", "message_error_text"]

_CONTEXT = "Errors"


#: code (or "code+param": the sentence when that param is known) -> the sentence.
_SENTENCES: dict[str, Any] = {
    "auth_failed": QT_TRANSLATE_NOOP(
        "Errors", "{provider} did not accept the API key. Check the key in Providers."),
    "auth_failed+status": QT_TRANSLATE_NOOP(
        "Errors", "{provider} did not accept the API key (HTTP {status}). Check the key in "
        "Providers."),
    "forbidden": QT_TRANSLATE_NOOP(
        "Errors", "{provider} refused access: the API key may not be allowed to use this model or"
        " endpoint."),
    "forbidden+status": QT_TRANSLATE_NOOP(
        "Errors", "{provider} refused access (HTTP {status}): the API key may not be allowed to "
        "use this model or endpoint."),
    "not_found": QT_TRANSLATE_NOOP(
        "Errors", "{provider} did not find the address asked for. Check the base URL."),
    "model_not_found": QT_TRANSLATE_NOOP(
        "Errors", "{provider} does not know this model. Choose another model or check its name."),
    "model_not_found+model": QT_TRANSLATE_NOOP(
        "Errors", "{provider} does not know the model {model}. Choose another model or check its "
        "name."),
    "rate_limited": QT_TRANSLATE_NOOP(
        "Errors", "{provider} is limiting requests (too many, too fast). Try again in a moment."),
    "rate_limited+retry_after": QT_TRANSLATE_NOOP(
        "Errors", "{provider} is limiting requests (too many, too fast). Try again in "
        "{retry_after} s."),
    "quota": QT_TRANSLATE_NOOP(
        "Errors", "{provider} says the account's quota or credit is used up. Check the plan or "
        "billing."),
    "context_too_long": QT_TRANSLATE_NOOP(
        "Errors", "The conversation is too long for this model's context window. Start a new "
        "chat, or delete earlier messages."),
    "bad_request": QT_TRANSLATE_NOOP(
        "Errors", "{provider} refused the request."),
    "bad_request+status": QT_TRANSLATE_NOOP(
        "Errors", "{provider} refused the request (HTTP {status})."),
    "server_error": QT_TRANSLATE_NOOP(
        "Errors", "{provider} had a server error. Try again later."),
    "server_error+status": QT_TRANSLATE_NOOP(
        "Errors", "{provider} had a server error (HTTP {status}). Try again later."),
    "unreachable": QT_TRANSLATE_NOOP(
        "Errors", "Could not connect to {provider}. Check the base URL, the network and the "
        "proxy, and that the server is running."),
    "unreachable+url": QT_TRANSLATE_NOOP(
        "Errors", "Could not connect to {provider} at {url}. Check the base URL, the network and "
        "the proxy, and that the server is running."),
    "timeout": QT_TRANSLATE_NOOP(
        "Errors", "{provider} did not answer in time."),
    "stream_dropped": QT_TRANSLATE_NOOP(
        "Errors", "The connection to {provider} broke before the answer was complete."),
    "bad_response": QT_TRANSLATE_NOOP(
        "Errors", "{provider} sent an answer that could not be read. Check the base URL."),
    "reply_too_large": QT_TRANSLATE_NOOP(
        "Errors", "{provider} sent a reply larger than the limit; it was not read."),
    "invalid_url": QT_TRANSLATE_NOOP(
        "Errors", "The base URL of {provider} cannot be used. Check it in Providers."),
    "provider_reported": QT_TRANSLATE_NOOP(
        "Errors", "{provider} reported an error."),
    "no_model": QT_TRANSLATE_NOOP("Errors", "Choose a model for {provider} first."),
    "no_vision": QT_TRANSLATE_NOOP(
        "Errors", "{model} cannot see images. Pick a vision model, or turn on vision for it in "
        "Providers if you know it supports images."),
    "still_answering": QT_TRANSLATE_NOOP("Errors", "This chat is still answering; stop it first."),
    "research_no_search": QT_TRANSLATE_NOOP(
        "Errors", "Research needs something to search: choose a search service (SearXNG, "
        "Brave or Tavily) in Settings, or add a knowledge base to the chat."),
    "message_gone": QT_TRANSLATE_NOOP("Errors", "That message is already gone."),
    "chat_gone": QT_TRANSLATE_NOOP("Errors", "That chat is gone."),
    "memory_empty": QT_TRANSLATE_NOOP("Errors", "A memory needs some text."),
    "memory_missing": QT_TRANSLATE_NOOP("Errors", "That memory is gone."),
    "temporary_compare": QT_TRANSLATE_NOOP(
        "Errors", "Comparing models is not available in a temporary chat."),
    "unexpected": QT_TRANSLATE_NOOP(
        "Errors", "Something unexpected went wrong."),
    "project_name_needed": QT_TRANSLATE_NOOP("Errors", "A project needs a name."),
    "project_exists": QT_TRANSLATE_NOOP("Errors", "There is already a project named {name}."),
    "no_project": QT_TRANSLATE_NOOP("Errors", "There is no project named {name}."),
    "project_file_missing": QT_TRANSLATE_NOOP("Errors", "The file {file} does not exist."),
    "project_file_unreadable": QT_TRANSLATE_NOOP(
        "Errors", "{file} could not be added to the project."),
    "project_workspace_missing": QT_TRANSLATE_NOOP(
        "Errors", "The workspace {folder} is not a folder."),
}
_SENTENCES.update(error_sentences.SENTENCES)
_SENTENCES.update(error_sentences_files.SENTENCES)
_WITH_DETAIL = QT_TRANSLATE_NOOP("Errors", "{sentence} Details: {detail}")


def error_text(info: ErrorInfo | None, fallback: str) -> str:
    """``info`` worded in the interface language; ``fallback`` (the English text) when
    there is no info or its code is not one this module words."""
    if info is None or info.code not in _SENTENCES:
        return fallback
    params: Mapping[str, Any] = info.params
    source = str(next((_SENTENCES[key] for key in (f"{info.code}+{name}" for name in params)
                       if key in _SENTENCES), _SENTENCES[info.code]))
    values = {k: str(v) for k, v in params.items()}
    values.setdefault("provider", QCoreApplication.translate("Errors", "The provider"))
    try:
        sentence = QCoreApplication.translate(_CONTEXT, source).format(**values)
    except (KeyError, IndexError, ValueError):  # a translation naming another field
        try:
            sentence = source.format(**values)
        except (KeyError, IndexError, ValueError):  # a param the raise site did not give
            return fallback
    detail = params.get("detail")
    if not detail:
        return sentence
    return QCoreApplication.translate(_CONTEXT, str(_WITH_DETAIL)).format(
        sentence=sentence, detail=" ".join(str(detail).split()))


def exception_text(exc: BaseException) -> str:
    """An exception as the window shows it: worded by its code when it has one."""
    if isinstance(exc, AssistaError):
        return error_text(exc.info, str(exc))
    return str(exc)


def message_error_text(message: Message) -> str:
    """The error of a failed answer (also one stored before errors had codes)."""
    return error_text(stored_error(message), message.error or "")

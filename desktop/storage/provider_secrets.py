"""A provider's credentials outside its API key — a password written into the base URL
(``https://user:secret@host/v1``) and custom header values — kept in the secret store.

The providers table keeps the URL without the password and
:data:`SECRET_PLACEHOLDER` for each header value; the values live in the keyring (or
the 0600 key file) under ``provider:<id>:url-password`` and
``provider:<id>:header:<name>``. Every custom header counts as a secret (a name
outside any fixed list can carry a token: ``X-Corp-Token``, ``Api-Secret-V2``...)
unless it is one of the well-known headers that never do (:data:`PUBLIC_HEADERS`).
Rows written before this are moved over the first time they are read.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit, urlunsplit

from desktop.core.settings import ProviderConfig
from desktop.storage.mcp_secrets import PUBLIC_HEADERS, SECRET_PLACEHOLDER, Secrets

log = logging.getLogger(__name__)



def _url_slot(provider_id: str) -> str:
    return f"provider:{provider_id}:url-password"


def _header_slot(provider_id: str, name: str) -> str:
    return f"provider:{provider_id}:header:{name.strip().lower()}"


def is_public_header(name: str) -> bool:
    return name.strip().lower() in PUBLIC_HEADERS


def split_password(url: str) -> tuple[str, str | None]:
    """``(url without the password, the password)``; the user name stays."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url, None
    if not password:
        return url, None
    host = parts.netloc.rpartition("@")[2]
    user = parts.netloc.rpartition("@")[0].partition(":")[0]
    return urlunsplit(parts._replace(netloc=f"{user}@{host}")), password


def _with_password(url: str, password: str) -> str:
    parts = urlsplit(url)
    user, _, host = parts.netloc.rpartition("@")
    return urlunsplit(parts._replace(netloc=f"{user.partition(':')[0]}:{password}@{host}"))


def needs_stashing(config: ProviderConfig) -> bool:
    """Whether the config holds a credential in clear (to be moved to the store)."""
    return split_password(config.base_url)[1] is not None or any(
        value and value != SECRET_PLACEHOLDER and not is_public_header(name)
        for name, value in config.headers.items())


def needs_resolving(config: ProviderConfig) -> bool:
    """Whether a stored ``config`` has credentials in the secret store to put back (a
    user name in its URL, or a header stored as the placeholder)."""
    try:
        has_user = bool(urlsplit(config.base_url).username)
    except ValueError:
        has_user = False
    return has_user or SECRET_PLACEHOLDER in config.headers.values()


def stash_provider_secrets(config: ProviderConfig, secrets: Secrets) -> ProviderConfig:
    """A copy of ``config`` fit to store: credentials moved to ``secrets``."""
    url, password = split_password(config.base_url)
    if password is not None:
        secrets.set(_url_slot(config.id), password)
    headers: dict[str, str] = {}
    for name, value in config.headers.items():
        secret = bool(value) and value != SECRET_PLACEHOLDER and not is_public_header(name)
        if secret:
            secrets.set(_header_slot(config.id, name), value)
        headers[name] = SECRET_PLACEHOLDER if secret else value
    return config.model_copy(update={"base_url": url, "headers": headers})


def resolve_provider_secrets(config: ProviderConfig, secrets: Secrets) -> ProviderConfig:
    """A copy of a stored ``config`` with its credentials back in place."""
    update: dict[str, object] = {}
    try:
        has_user = bool(urlsplit(config.base_url).username)
    except ValueError:
        has_user = False
    if has_user and split_password(config.base_url)[1] is None:
        password = secrets.get(_url_slot(config.id))
        if password:
            update["base_url"] = _with_password(config.base_url, password)
    if SECRET_PLACEHOLDER in config.headers.values():
        headers: dict[str, str] = {}
        for name, value in config.headers.items():
            stored = value
            if value == SECRET_PLACEHOLDER:
                stored = secrets.get(_header_slot(config.id, name)) or ""
                if not stored:
                    log.warning("provider %s: the stored value of header %s is missing",
                                config.id, name)
            headers[name] = stored
        update["headers"] = headers
    return config.model_copy(update=update) if update else config

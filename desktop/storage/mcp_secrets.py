"""MCP server tokens (env values, header values, secret arguments) kept in the secret store.

Settings keep :data:`SECRET_PLACEHOLDER` where a token was; the value lives in the
keyring (or the 0600 key file) under ``mcp:<server>:<env|headers>:<name>``. A secret
command-line argument is replaced by ``•••••• (argument N in the keyring)`` and kept
under ``mcp:<server>:args:<N>`` (the number travels with the placeholder, so
editing the other arguments does not lose it). The secret store tells its log
redactor every value it reads or writes.

What is a secret: every header value of a remote server (any name can carry a
token); an environment value whose name says so (``*_KEY``, ``*TOKEN*``...) or
that the registry marked secret (``secret_env``); an argument the registry marked
secret (``secret_args``, indices not stored yet); the secret of a sign-in client
registered by hand (``oauth_client_secret``, under ``mcp:<server>:oauth:client_secret``).

A server also owns its sign-in (``mcp:<server>:oauth:*``, written by
desktop/tools/mcp/oauth.py): :func:`server_slots` lists every slot of a server, so
removing it forgets them and renaming it moves them (:func:`settle_servers`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any, Protocol

log = logging.getLogger(__name__)

SECRET_PLACEHOLDER = "•••••• (stored in the keyring)"
ARG_PLACEHOLDER = "•••••• (argument {n} in the keyring)"
_ARG_SLOT = re.compile(r"^•••••• \(argument (\d+) in the keyring\)$")
SECRET_NAME = re.compile(r"(?i)key|token|secret|passw|auth|cookie|credential")
FIELDS = ("env", "headers")
#: The sign-in's slots (see desktop/tools/mcp/oauth.py): tokens, registered client,
#: the secret of a client registered by hand.
OAUTH_SLOTS = ("tokens", "client", "client_secret")
#: Headers that never carry a credential: a provider keeps them in its row (provider_secrets);
#: an MCP server keeps every header value in the secret store.
PUBLIC_HEADERS = frozenset({
    "http-referer", "referer", "x-title", "user-agent", "accept", "accept-language",
    "content-type", "anthropic-version", "anthropic-beta", "openai-beta",
    "openai-organization", "openai-project", "x-client-name", "mcp-protocol-version",
})


class Secrets(Protocol):
    def get(self, provider_id: str) -> str | None: ...

    def set(self, provider_id: str, key: str) -> None: ...


class DeletableSecrets(Secrets, Protocol):
    def delete(self, provider_id: str) -> None: ...


def _is_secret(raw: Mapping[str, Any], field_name: str, key: str) -> bool:
    if field_name == "headers":
        return True
    return bool(SECRET_NAME.search(key)) or key in (raw.get("secret_env") or [])


def _clear(value: Any) -> bool:
    return isinstance(value, str) and bool(value) and value != SECRET_PLACEHOLDER \
        and not _ARG_SLOT.match(value)


def _secret_arg_indices(raw: Mapping[str, Any]) -> set[int]:
    return {i for i in raw.get("secret_args") or [] if isinstance(i, int)}


def holds_clear_secrets(raw: dict[str, Any]) -> bool:
    """Whether a stored server still has a secret in clear (written before)."""
    for field_name in FIELDS:
        values = raw.get(field_name)
        if isinstance(values, dict) and any(
                _clear(v) and _is_secret(raw, field_name, k) for k, v in values.items()):
            return True
    args = raw.get("args") or []
    return _clear(raw.get("oauth_client_secret")) or any(
        0 <= i < len(args) and _clear(args[i]) for i in _secret_arg_indices(raw))


def _slot(server: str, field_name: str, key: str) -> str:
    return f"mcp:{server}:{field_name}:{key}"


def stash_mcp_secrets(raw: dict[str, Any], secrets: Secrets) -> dict[str, Any]:
    """A copy of ``raw`` with token-like values moved to ``secrets``."""
    server = dict(raw)
    name = str(server.get("name", ""))
    for field_name in FIELDS:
        values = server.get(field_name)
        if not isinstance(values, dict):
            continue
        kept: dict[str, Any] = {}
        for key, value in values.items():
            secret = _clear(value) and _is_secret(raw, field_name, key)
            if secret:
                secrets.set(_slot(name, field_name, key), value)
            kept[key] = SECRET_PLACEHOLDER if secret else value
        server[field_name] = kept
    client_secret = server.get("oauth_client_secret")
    if isinstance(client_secret, str) and _clear(client_secret):
        secrets.set(_slot(name, "oauth", "client_secret"), client_secret)
        server["oauth_client_secret"] = SECRET_PLACEHOLDER
    args = list(server.get("args") or [])
    marked = _secret_arg_indices(server)
    if marked:
        taken = {int(m.group(1)) for a in args if isinstance(a, str) and (m := _ARG_SLOT.match(a))}
        for index in sorted(marked):
            if 0 <= index < len(args) and _clear(args[index]):
                number = index if index not in taken else max(taken | {len(args)}) + 1
                taken.add(number)
                secrets.set(_slot(name, "args", str(number)), args[index])
                args[index] = ARG_PLACEHOLDER.format(n=number)
        server["args"], server["secret_args"] = args, []
    return server


def resolve_mcp_secrets(raw: dict[str, Any], secrets: Secrets) -> dict[str, Any]:
    """A copy of ``raw`` with the placeholders replaced by the stored values."""
    server = dict(raw)
    name = str(server.get("name", ""))

    def stored(field_name: str, key: str) -> str:
        value = secrets.get(_slot(name, field_name, key)) or ""
        if not value:
            log.warning("MCP server %s: the stored %s value %s is missing", name,
                        field_name, key)
        return value

    for field_name in FIELDS:
        values = server.get(field_name)
        if isinstance(values, dict):
            server[field_name] = {k: stored(field_name, k) if v == SECRET_PLACEHOLDER else v
                                  for k, v in values.items()}
    if server.get("oauth_client_secret") == SECRET_PLACEHOLDER:
        server["oauth_client_secret"] = stored("oauth", "client_secret")
    if isinstance(server.get("args"), list):
        args = server["args"]
        hidden = [i for i, a in enumerate(args) if isinstance(a, str) and _ARG_SLOT.match(a)]
        server["args"] = [stored("args", m.group(1))
                          if isinstance(a, str) and (m := _ARG_SLOT.match(a)) else a
                          for a in args]
        if hidden:  # still secret: not shown where the command line is (stderr's first line)
            server["secret_args"] = sorted(set(hidden) | _secret_arg_indices(server))
    return server


# -- a server's slots: forgotten when it is removed, moved when it is renamed -------------

def server_slots(raw: Mapping[str, Any]) -> list[str]:
    """Every slot a server may hold in the secret store (its sign-in included)."""
    name = str(raw.get("name", ""))
    slots = [_slot(name, "oauth", what) for what in OAUTH_SLOTS]
    for field_name in FIELDS:
        values = raw.get(field_name)
        if isinstance(values, dict):
            slots += [_slot(name, field_name, k) for k, v in values.items()
                      if v == SECRET_PLACEHOLDER]
    for arg in raw.get("args") or []:
        if isinstance(arg, str) and (match := _ARG_SLOT.match(arg)):
            slots.append(_slot(name, "args", match.group(1)))
    return slots


def forget_server(raw: Mapping[str, Any], secrets: DeletableSecrets) -> None:
    """Delete the server's secrets and sign-in (missing ones are fine)."""
    for slot in server_slots(raw):
        secrets.delete(slot)


def settle_servers(before: list[dict[str, Any]], renamed: Mapping[str, str],
                   kept: set[str], secrets: DeletableSecrets) -> list[str]:
    """Before saving an edited server list: the servers of ``before`` whose names are
    not in ``kept`` were removed: their secrets and sign-in are forgotten (a new server
    given the same name starts without them); kept ones renamed (old name -> new name
    in ``renamed``) take theirs along (swapped names too). Returns what was done."""
    done: list[str] = []
    delete: list[str] = []
    write: dict[str, str] = {}
    for raw in before:
        name = str(raw.get("name", ""))
        target = renamed.get(name, name)
        if target != name:
            for slot in server_slots(raw):
                value = secrets.get(slot)
                if value is not None:
                    write[f"mcp:{target}:" + slot.removeprefix(f"mcp:{name}:")] = value
            delete += server_slots(raw) + server_slots({**raw, "name": target})
            done.append(f"moved the secrets and sign-in of MCP server {name} to {target}")
        elif name not in kept:
            delete += server_slots(raw)
            done.append(f"forgot the secrets and sign-in of MCP server {name}")
    for slot in dict.fromkeys(delete):
        if slot not in write:
            secrets.delete(slot)
    for slot, value in write.items():
        secrets.set(slot, value)
    for line in done:
        log.info("%s", line)
    return done

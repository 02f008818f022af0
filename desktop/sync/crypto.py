"""End-to-end encryption: a key from the passphrase (Argon2id), AES-256-GCM per file.

The target holds one plaintext key file (``sync.json``): the KDF's salt and
cost, and a short check value encrypted with the key, so a wrong passphrase is
refused before anything is read or written. Every other file is
``MAGIC | nonce | AES-GCM(ciphertext + tag)`` with the file's own name as
associated data: a file renamed or moved to another device's folder fails
authentication like a corrupted one.
"""

from __future__ import annotations

import base64
import json
import os

import msgspec
from argon2.low_level import Type, hash_secret_raw
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from desktop.sync.errors import CorruptDataError, SyncError, WrongPassphraseError

MAGIC = b"ASY1"
NONCE_BYTES = 12
KEY_BYTES = 32
KEY_FILE = "sync.json"
FORMAT_VERSION = 1
TAG_BYTES = 16
SEAL_OVERHEAD = len(MAGIC) + NONCE_BYTES + TAG_BYTES  # a sealed file's bytes beyond its text
_CHECK_TEXT = b"assista-sync-key-check"

# Argon2id cost (RFC 9106's second recommended option, memory halved for phones and
# small laptops): about a quarter of a second on one core.
TIME_COST = 3
MEMORY_KIB = 64 * 1024
PARALLELISM = 1


class KeyParams(msgspec.Struct, frozen=True):
    """The Argon2id salt and costs the sync key is derived with."""

    salt: bytes
    time_cost: int = TIME_COST
    memory_kib: int = MEMORY_KIB
    parallelism: int = PARALLELISM


def derive_key(passphrase: str, params: KeyParams) -> bytes:
    if not passphrase:
        raise SyncError("The sync passphrase is empty; set one to encrypt your chats.",
                        code="sync_passphrase_empty")
    return hash_secret_raw(
        passphrase.encode("utf-8"),
        params.salt,
        time_cost=params.time_cost,
        memory_cost=params.memory_kib,
        parallelism=params.parallelism,
        hash_len=KEY_BYTES,
        type=Type.ID,
    )


def seal(key: bytes, name: str, plaintext: bytes) -> bytes:
    nonce = os.urandom(NONCE_BYTES)
    return MAGIC + nonce + AESGCM(key).encrypt(nonce, plaintext, name.encode("utf-8"))


def open_sealed(key: bytes, name: str, data: bytes) -> bytes:
    """Decrypt a file written by :func:`seal` under the same ``name``."""
    head = len(MAGIC) + NONCE_BYTES
    if len(data) < head + 16 or not data.startswith(MAGIC):
        raise CorruptDataError(f"{name} on the sync target is damaged (not an Assista file).",
                               code="sync_file_damaged", params={"file": name})
    try:
        return AESGCM(key).decrypt(data[len(MAGIC) : head], data[head:], name.encode("utf-8"))
    except InvalidTag:
        raise CorruptDataError(
            f"{name} on the sync target is damaged or was altered (it fails authentication).",
            code="sync_file_altered", params={"file": name}
        ) from None


def new_key_file(passphrase: str) -> tuple[bytes, bytes]:
    """A key file for a new target and the key it describes."""
    # The cost is read when a target is set up (tests lower it); readers use the file's.
    params = KeyParams(os.urandom(16), TIME_COST, MEMORY_KIB, PARALLELISM)
    key = derive_key(passphrase, params)
    doc = {
        "format": FORMAT_VERSION,
        "kdf": "argon2id",
        "salt": base64.b64encode(params.salt).decode("ascii"),
        "time_cost": params.time_cost,
        "memory_kib": params.memory_kib,
        "parallelism": params.parallelism,
        "check": base64.b64encode(seal(key, KEY_FILE, _CHECK_TEXT)).decode("ascii"),
    }
    return json.dumps(doc, indent=1).encode("utf-8"), key


def key_from_file(passphrase: str, data: bytes) -> bytes:
    """The key for an existing target; raises :class:`WrongPassphraseError`."""
    try:
        doc = json.loads(data)
        if doc.get("format") != FORMAT_VERSION or doc.get("kdf") != "argon2id":
            raise SyncError(
                "The sync target was set up by a newer version of Assista; update Assista.",
                code="sync_target_newer"
            )
        params = KeyParams(
            salt=base64.b64decode(doc["salt"]),
            time_cost=int(doc["time_cost"]),
            memory_kib=int(doc["memory_kib"]),
            parallelism=int(doc["parallelism"]),
        )
        check = base64.b64decode(doc["check"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise CorruptDataError(f"{KEY_FILE} on the sync target is damaged ({exc}).",
                               code="sync_file_damaged",
                               params={"file": KEY_FILE, "detail": str(exc)}) from None
    key = derive_key(passphrase, params)
    try:
        if open_sealed(key, KEY_FILE, check) == _CHECK_TEXT:
            return key
    except CorruptDataError:
        pass
    raise WrongPassphraseError(
        "The sync passphrase is wrong: it does not open the chats already on the target. "
        "Nothing was changed.", code="sync_wrong_passphrase"
    )

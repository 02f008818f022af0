"""The sync key's production cost: the other tests derive keys at Argon2id's smallest
cost (tests/conftest.py); this one sets a target up as the app does and reads it back."""

from __future__ import annotations

import json

import pytest

from desktop.sync import crypto
from desktop.sync.errors import WrongPassphraseError
from tests.conftest import PRODUCTION_KEY_COST


def test_a_target_is_set_up_with_the_production_argon2id_cost(
        monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PRODUCTION_KEY_COST.items():
        monkeypatch.setattr(crypto, name, value)
    doc, key = crypto.new_key_file("correct horse battery staple")
    fields = json.loads(doc)
    # RFC 9106's second recommended option with its memory halved
    assert (fields["kdf"], fields["time_cost"], fields["memory_kib"], fields["parallelism"]) \
        == ("argon2id", 3, 64 * 1024, 1)
    assert crypto.key_from_file("correct horse battery staple", doc) == key
    with pytest.raises(WrongPassphraseError):
        crypto.key_from_file("wrong horse", doc)

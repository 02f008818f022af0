"""Errors of a sync run: each message is one sentence the user can act on."""

from __future__ import annotations

from desktop.core.errors import AssistaError


class SyncError(AssistaError):
    """A sync run failed; the local data is as it was before the run."""


class WrongPassphraseError(SyncError):
    """The passphrase does not open the data already on the target."""


class CorruptDataError(SyncError):
    """Something on the target fails authentication or cannot be read."""

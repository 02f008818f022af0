"""``assista sync --target URL``: one full sync (push and pull) of the data folder, then exit.

The passphrase comes from ``ASSISTA_SYNC_PASSPHRASE``; a WebDAV password from
``ASSISTA_SYNC_PASSWORD``; S3 credentials from the standard AWS variables.
"""

from __future__ import annotations

import argparse
import os

from desktop.cli.context import open_cli_context
from desktop.cli.failure import fail
from desktop.core.errors import AssistaError

PASSPHRASE_VARIABLE = "ASSISTA_SYNC_PASSPHRASE"
# The window may be syncing the same data folder: its runs take seconds, so wait.
LOCK_WAIT_S = 60.0


def sync_command(args: argparse.Namespace) -> int:
    from desktop.sync.run import SyncEngine
    from desktop.sync.targets.address import open_target

    passphrase = os.environ.get(PASSPHRASE_VARIABLE, "")
    if not passphrase:
        return fail(f"set {PASSPHRASE_VARIABLE} to the passphrase that encrypts your synced chats")
    try:
        target = open_target(args.target, os.environ)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        target.close()
        return fail(str(exc))
    try:
        report = SyncEngine(ctx.db, target, passphrase, lock_wait_s=LOCK_WAIT_S).run()
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        target.close()
        ctx.close()
    print(report.summary())
    return 0

"""``assista sync --target URL``: one full sync (pull and push) of the data folder, then exit.

The passphrase comes from ``ASSISTA_SYNC_PASSPHRASE``; a WebDAV password from
``ASSISTA_SYNC_PASSWORD``; S3 credentials from the standard AWS variables. Requests go
through the proxy of Preferences (else the proxy variables), as every request does.
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
    from desktop.sync.push import max_upload_bytes
    from desktop.sync.run import SyncEngine
    from desktop.sync.targets.address import open_target

    passphrase = os.environ.get(PASSPHRASE_VARIABLE, "")
    if not passphrase:
        return fail(f"set {PASSPHRASE_VARIABLE} to the passphrase that encrypts your synced chats")
    max_mb = getattr(args, "max_upload_mb", None)
    if max_mb is not None and max_mb <= 0:
        return fail("--max-upload-mb must be more than 0")
    try:
        ctx = open_cli_context(args)
    except AssistaError as exc:
        return fail(str(exc))
    try:
        target = open_target(args.target, os.environ, proxy=ctx.proxy)
    except AssistaError as exc:
        ctx.close()
        return fail(str(exc))
    try:
        engine = SyncEngine(ctx.db, target, passphrase, lock_wait_s=LOCK_WAIT_S,
                            max_upload=max_upload_bytes(max_mb))
        report = engine.run()
    except AssistaError as exc:
        return fail(str(exc))
    finally:
        target.close()
        ctx.close()
    print(report.summary())
    return 0

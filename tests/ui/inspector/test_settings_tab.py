"""Preferences → Request inspector: recording on/off and the retention limits are
saved; "Delete all recorded requests" empties the record."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.chat.memories import MemoryStore
from desktop.core.exchange import CaptureBatch, ExchangeHead, ExchangeTail
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from desktop.ui.window.app_services import AppServices


def test_the_settings_are_saved_and_clear_deletes_every_record(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    head = ExchangeHead(id="e1", started_at=time.time(), provider="P", provider_id=None,
                        kind="openai", model="m", session_id=None, message_id="m1")
    ctx.inspector.write(CaptureBatch("e1", (), head, 0, [(0.0, b"data: x\n\n")],
                                     ExchangeTail(status=200)))
    ctx.inspector.flush()
    dialog = SettingsDialog(AppServices(ctx), MemoryStore(ctx.db))  # (no window needed)
    qtbot.addWidget(dialog)
    tab = dialog.inspector_settings
    assert tab.enabled_check.isChecked() and tab.days_spin.value() == 14
    tab.days_spin.setValue(3)
    tab.mb_spin.setValue(50)
    tab.enabled_check.setChecked(False)
    tab.clear_button.click()
    assert tab.cleared.text().startswith("Deleted 1 recorded request")
    assert ctx.inspector.store.count() == 0
    assert dialog.save()
    saved = ctx.settings.current
    assert (saved.inspector_enabled, saved.inspector_retention_days,
            saved.inspector_retention_mb) == (False, 3, 50)

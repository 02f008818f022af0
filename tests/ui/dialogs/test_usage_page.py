"""Settings → Usage: the per-model summary against a seeded database, in the real
Preferences dialog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync

from desktop.app import AppContext
from desktop.core.settings import ModelPrice
from desktop.ui.dialogs.settings_dialog import SettingsDialog
from desktop.ui.dialogs.usage_page import UsagePage
from desktop.ui.window.app_services import AppServices
from tests.storage.test_usage_stats import seed
from tests.ui.conversation_helpers import make_window


def table(page: UsagePage) -> list[list[str]]:
    grid = page.table
    return [[grid.item(r, c).text() for c in range(grid.columnCount())]
            for r in range(grid.rowCount())]


def test_usage_tab_shows_each_model_and_a_total(
        qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    seed(ctx)
    ctx.settings.update(prices={"model-a": ModelPrice(input=1.0, output=2.0)})
    window = make_window(qtbot, ctx)
    dialog = window.dialogs.open("preferences")
    assert isinstance(dialog, SettingsDialog)
    page = dialog.usage_page
    dialog.pages.setCurrentWidget(page)
    qtbot.waitUntil(lambda: page.table.rowCount() == 3, timeout=5000)
    cost_a = 0.5 + (1250 * 1.0 + 130 * 2.0) / 1e6  # reported + priced now
    assert table(page) == [
        ["model-a", "3", "1,450", "160", f"${cost_a:.4f}", "40"],
        ["model-b", "1", "100", "40", "—", "80"],
        ["Total", "4", "1,550", "200", f"≥${cost_a:.4f}", "—"],
    ]
    page.period.setCurrentIndex(page.period.findData(30))  # the 40-day-old answer goes
    qtbot.waitUntil(lambda: table(page)[0][:4] == ["model-a", "2", "450", "60"],
                    timeout=5000)
    assert page.status.text() == ""


def test_without_an_event_loop_the_page_reads_at_once(
        qtbot: Any, open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    seed(ctx)
    page = UsagePage(AppServices(ctx).usage, dict)
    qtbot.addWidget(page)
    page.show()
    assert [row[0] for row in table(page)] == ["model-a", "model-b", "Total"]
    # no price for model-a's unpriced tokens: what was reported, marked as a lower bound
    assert table(page)[0][4] == "≥$0.5000" and table(page)[1][4] == "—"

"""Settings → Memory: list, search, edit, delete, delete all (confirmed), pause and
the Ask-first policy, on a real data folder."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import qasync
from PySide6.QtCore import Qt

from desktop.app import AppContext
from desktop.ui.dialogs.memory_page import MemoryPage
from tests.ui.dialogs.test_settings_dialog import open_settings


def texts(page: MemoryPage) -> list[str]:
    return [page.list.item(i).text() for i in range(page.list.count())]


def test_list_search_edit_delete(qtbot: Any, qt_loop: qasync.QEventLoop,
                                 open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    window, dialog = open_settings(qtbot, ctx)
    store = window.controller.service.memories
    store.add("Lives in Lyon")
    store.add("Allergic to hazelnuts")
    store.add("Three apple trees", "project-garden")
    page = dialog.memory_page
    dialog.pages.setCurrentWidget(page)  # shown: it reads the memories again
    assert texts(page) == ["Three apple trees  ·  project", "Allergic to hazelnuts",
                           "Lives in Lyon"]
    assert page.count_label.text() == "3 memories"
    assert page.list.item(0).toolTip() == "In a project only"
    store.forget(store.all()[0].id)
    page.refresh()
    page.search.setText("lyon")
    assert texts(page) == ["Lives in Lyon"]
    page.list.setCurrentRow(0)
    assert page.edit_button.isEnabled()
    page.save_edit(page.selected().id, "  Lives in Lyon, France ")  # type: ignore[union-attr]
    assert [m.text for m in store.all()] == ["Allergic to hazelnuts", "Lives in Lyon, France"]
    page.save_edit(store.all()[0].id, "   ")  # empty: refused, said, nothing lost
    assert page.error.isVisibleTo(page) and "needs some text" in page.error.text()
    assert len(store.all()) == 2
    page.search.setText("paris")
    assert texts(page) == [] and page.empty.text() == "No memory matches the search."
    page.search.clear()
    page.list.setCurrentRow(0)
    qtbot.mouseClick(page.delete_button, Qt.MouseButton.LeftButton)
    assert [m.text for m in store.all()] == ["Lives in Lyon, France"]
    page.delete_everything()
    assert store.all() == [] and page.empty.text() == "No memories yet."
    assert not page.delete_all_button.isEnabled()


def test_pause_and_policy_are_saved(qtbot: Any, qt_loop: qasync.QEventLoop,
                                    open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    ctx.settings.update(tool_policies={"run_command": "deny"})
    _window, dialog = open_settings(qtbot, ctx)
    page = dialog.memory_page
    assert page.enabled_check.isChecked() and page.policy_combo.currentData() == "ask"
    page.enabled_check.setChecked(False)
    page.policy_combo.setCurrentIndex(page.policy_combo.findData("allow"))
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    settings = ctx.settings_store.load()
    assert settings.memory_enabled is False
    assert settings.tool_policies == {"run_command": "deny", "remember": "allow"}

"""The compare model chooser: mouse and keyboard pick 2 to 4 models; a search keeps
what is chosen; a fifth is refused."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt

from desktop.app import AppContext
from desktop.chat.model_catalog import ModelCatalog, ModelEntry
from desktop.core.settings import ProviderConfig
from desktop.ui.compare.chooser import CompareChooser
from desktop.ui.window.model_picker import ENTRY_ROLE


def row_of(chooser: CompareChooser, model: str) -> int:
    for row in range(chooser.list.count()):
        entry = chooser.list.item(row).data(ENTRY_ROLE)
        if isinstance(entry, ModelEntry) and entry.model == model:
            return row
    raise AssertionError(f"{model} is not listed")


def click(qtbot: Any, chooser: CompareChooser, model: str) -> None:
    item = chooser.list.item(row_of(chooser, model))
    qtbot.mouseClick(chooser.list.viewport(), Qt.MouseButton.LeftButton,
                     pos=chooser.list.visualItemRect(item).center())


def test_pick_with_mouse_and_keyboard(qtbot: Any, open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = []
    for letter in "abcde":
        config = ProviderConfig(name=f"P{letter}", preset="custom",
                                base_url="http://127.0.0.1:9/v1", model=f"model-{letter}")
        ctx.settings_store.save_provider(config)
        configs.append(config)
    catalog = ModelCatalog(ctx.settings_store, ctx.settings, ctx.providers)
    chooser = CompareChooser(catalog, [(configs[0].id, "model-a")])
    qtbot.addWidget(chooser)
    chooser.show()
    assert not chooser.compare_button.isEnabled()
    click(qtbot, chooser, "model-b")
    assert chooser.chosen == [(configs[0].id, "model-a"), (configs[1].id, "model-b")]
    assert chooser.compare_button.isEnabled()
    assert "model-b (Pb)" in chooser.chosen_label.text()
    chooser.list.setFocus()
    chooser.list.setCurrentRow(row_of(chooser, "model-c"),
                               QItemSelectionModel.SelectionFlag.NoUpdate)  # as arrows do
    qtbot.keyClick(chooser.list, Qt.Key.Key_Space)
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-b", "model-c"]
    assert chooser.list.currentRow() == row_of(chooser, "model-c")  # the keyboard stays
    click(qtbot, chooser, "model-b")  # again: taken out
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-c"]
    qtbot.keyClicks(chooser.search, "model-d")
    assert chooser.list.count() == 2  # its provider's title and the model
    click(qtbot, chooser, "model-d")
    chooser.search.clear()
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-c", "model-d"]
    click(qtbot, chooser, "model-b")
    click(qtbot, chooser, "model-e")  # a fifth: refused
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-c", "model-d", "model-b"]
    assert not chooser.list.item(row_of(chooser, "model-e")).isSelected()


def test_the_keyboard_alone_picks_and_starts_and_chosen_rows_are_checked(
        qtbot: Any, open_ctx: Callable[..., AppContext]) -> None:
    ctx = open_ctx()
    configs = []
    for letter in "abc":
        config = ProviderConfig(name=f"P{letter}", preset="custom",
                                base_url="http://127.0.0.1:9/v1", model=f"model-{letter}")
        ctx.settings_store.save_provider(config)
        configs.append(config)
    catalog = ModelCatalog(ctx.settings_store, ctx.settings, ctx.providers)
    chooser = CompareChooser(catalog, [(configs[0].id, "model-a")])
    qtbot.addWidget(chooser)
    chooser.show()
    qtbot.waitExposed(chooser)
    chooser.activateWindow()
    qtbot.waitUntil(chooser.search.hasFocus)  # typing goes to the search first

    def checked() -> list[str]:
        return [chooser.list.item(r).text() for r in range(chooser.list.count())
                if chooser.list.item(r).data(Qt.ItemDataRole.CheckStateRole)
                == Qt.CheckState.Checked]

    def unchecked() -> list[str]:
        return [chooser.list.item(r).text() for r in range(chooser.list.count())
                if chooser.list.item(r).data(Qt.ItemDataRole.CheckStateRole)
                == Qt.CheckState.Unchecked]

    assert checked() == ["model-a"] and unchecked() == ["model-b", "model-c"]
    # arrows move from the search field through the models (titles skipped)
    qtbot.keyClick(chooser.search, Qt.Key.Key_Down)
    assert chooser.list.currentItem().text() == "model-a"
    qtbot.keyClick(chooser.search, Qt.Key.Key_Down)
    qtbot.keyClick(chooser.search, Qt.Key.Key_Down)
    assert chooser.list.currentItem().text() == "model-c"
    qtbot.keyClick(chooser.search, Qt.Key.Key_Up)
    assert chooser.list.currentItem().text() == "model-b"
    qtbot.keyClick(chooser.search, Qt.Key.Key_Return)  # Enter adds the highlighted one
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-b"]
    assert checked() == ["model-a", "model-b"] and chooser.isVisible()
    # typing finds a model; Enter adds it, and the search is empty for the next one
    qtbot.keyClicks(chooser.search, "model-c")
    qtbot.keyClick(chooser.search, Qt.Key.Key_Enter)
    assert [m for _p, m in chooser.chosen] == ["model-a", "model-b", "model-c"]
    assert chooser.search.text() == "" and checked() == ["model-a", "model-b", "model-c"]
    assert chooser.list.currentItem().text() == "model-c"  # (the row added)
    qtbot.keyClick(chooser.search, Qt.Key.Key_Up)
    qtbot.keyClick(chooser.search, Qt.Key.Key_Up)
    qtbot.keyClick(chooser.search, Qt.Key.Key_Return)  # Enter again: taken out
    assert [m for _p, m in chooser.chosen] == ["model-b", "model-c"]
    assert unchecked() == ["model-a"]
    with qtbot.waitSignal(chooser.accepted):  # Ctrl+Enter compares
        qtbot.keyClick(chooser.search, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)

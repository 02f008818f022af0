"""Texts built outside the interface (Qt-free code, settings) and shown in it go
through the translators: the start-up skeleton's menus, the model list's Favourites /
Recent and badges, approval titles ("Fetch example.com") and the default system
prompt. Checked under the accented pseudo-locale, where every translated text is
marked with ⟦…⟧."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel

from desktop.app import AppContext
from desktop.chat.approvals import PendingApproval
from desktop.chat.model_catalog import ModelCatalog
from desktop.core.settings import AppSettings
from desktop.storage.window_state import WindowState
from desktop.tools.approval import ApprovalPreview, ApprovalRequest
from desktop.ui import default_prompt, i18n, model_words
from desktop.ui.tools.approval_card import ApprovalCard
from desktop.ui.window.main_window import MainWindow
from tests.support.openai_server import FakeOpenAIServer
from tests.ui.conversation_helpers import add_provider, make_window

MARK = "⟦"


@pytest.fixture
def pseudo(qapp: QApplication, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(i18n.PSEUDO_VARIABLE, "accented")
    i18n.install_translations(qapp, "")
    yield
    monkeypatch.delenv(i18n.PSEUDO_VARIABLE)
    i18n.install_translations(qapp, "en")


def test_the_start_up_skeletons_menus_are_translated(pseudo: None, qtbot: Any) -> None:
    window = MainWindow(state=WindowState())
    qtbot.addWidget(window)
    titles = [action.text() for action in window.menuBar().actions()]
    assert len(titles) == 5 and all(MARK in title for title in titles), titles


def test_the_model_lists_groups_and_badges_are_translated(
    pseudo: None, qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    config = add_provider(ctx, fake_server)
    ctx.settings_store.set_value(f"models:{config.id}",
                                 [{"id": i} for i in ("gpt-test", "gpt-4o")])
    catalog = ModelCatalog(ctx.settings_store, ctx.settings, ctx.providers)
    catalog.used(config.id, "gpt-4o")  # a recent model
    window = make_window(qtbot, ctx)
    bar = window.top_bar
    qtbot.mouseClick(bar.model_button, Qt.MouseButton.LeftButton)
    picker = bar.picker
    qtbot.waitUntil(picker.isVisible)
    headers = [picker.list.item(i).text() for i in range(picker.list.count())
               if picker.list.item(i).data(Qt.ItemDataRole.UserRole) is None]
    assert headers[0].startswith(MARK) and "Réçéñt" in headers[0]  # "Recent"
    assert "Loopback" in headers  # a provider's name is data
    gpt4o = next(picker.list.item(i) for i in range(picker.list.count())
                 if picker.list.item(i).text() == "gpt-4o")
    entry = gpt4o.data(Qt.ItemDataRole.UserRole)
    shown = model_words.badges(entry)
    assert "images" in entry.badges() and any(MARK in b and "ímágéš" in b for b in shown)
    assert "128K" in shown  # a size is shown as it is
    assert any(MARK in line for line in gpt4o.toolTip().splitlines()[1:])
    # the badges are found by their shown words too
    picker.search.setText("ímágéš")
    assert set(picker.visible_models()) == {"gpt-4o"}


def test_an_approval_title_is_translated_and_its_host_is_not(
    pseudo: None, qtbot: Any, qt_loop: qasync.QEventLoop,
) -> None:
    preview = ApprovalPreview.titled("url", "https://example.com/a", "fetch", host="example.com")
    assert preview.title == "Fetch example.com"  # (logs and the command line)
    request = ApprovalRequest(tool="fetch_url", call_id="c1",
                              arguments={"url": "https://example.com/a"}, preview=preview)
    card = ApprovalCard(PendingApproval(request, qt_loop.create_future()))
    qtbot.addWidget(card)
    title = card.findChild(QLabel, "approvalTitle")
    assert isinstance(title, QLabel)
    assert MARK in title.text() and "example.com" in title.text(), title.text()
    assert "Fetch" not in title.text()
    assert MARK in card.accessibleDescription()


def test_the_default_system_prompt_is_shown_translated_and_saved_unchanged(
    pseudo: None, qtbot: Any, qt_loop: qasync.QEventLoop, fake_server: FakeOpenAIServer,
    open_ctx: Callable[..., AppContext],
) -> None:
    assert AppSettings().system_prompt == default_prompt.SOURCE  # one text, two places
    ctx = open_ctx()
    add_provider(ctx, fake_server)
    window = make_window(qtbot, ctx)
    dialog = window.dialogs.open("preferences")
    shown = dialog.prompt_edit.toPlainText()  # type: ignore[attr-defined]
    assert shown.startswith(MARK) and "Áššíštá" in shown
    assert dialog.save()  # type: ignore[attr-defined]
    # what the model is sent stays the built-in default
    assert ctx.settings.current.system_prompt == AppSettings().system_prompt
    # an edited prompt is saved as written
    dialog = window.dialogs.open("preferences")
    dialog.prompt_edit.setPlainText("Answer briefly.")  # type: ignore[attr-defined]
    assert dialog.save()  # type: ignore[attr-defined]
    assert ctx.settings.current.system_prompt == "Answer briefly."

"""The window offers a newer version found in the release feed (loopback server)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
import qasync
from PySide6.QtWidgets import QPlainTextEdit

from desktop.app import AppContext
from tests.ui.conversation_helpers import make_window
from tests.updates.test_checker import FeedServer, release


@pytest.fixture
def feed() -> Iterator[FeedServer]:
    server = FeedServer()
    yield server
    server.close()


def test_a_newer_release_shows_in_the_status_bar_and_opens_its_notes(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    feed: FeedServer,
) -> None:
    feed.serve(release("v99.1.0", body="**Faster** answers <script>x</script>"))
    ctx = open_ctx()
    ctx.settings.update(update_feed_url=feed.url)
    ctx.paths = ctx.paths._replace(portable=False)  # (tests run on a --data-dir folder)
    window = make_window(qtbot, ctx)
    notice = window.updates
    notice.check()
    qtbot.waitUntil(lambda: notice.button.isVisibleTo(window), timeout=10000)
    assert notice.button.text() == "Version 99.1.0 is available"
    assert notice.button.accessibleName() == notice.button.text()
    notice.button.click()
    dialog = notice.dialog
    assert dialog is not None and dialog.isVisible()
    notes = dialog.findChild(QPlainTextEdit)
    assert notes is not None and notes.isReadOnly()
    assert notes.toPlainText() == "**Faster** answers <script>x</script>"  # plain text
    assert dialog.download_button.isEnabled()
    assert dialog.download_button.toolTip().startswith("https://dl.example/")
    dialog.reject()
    assert feed.hits == 1
    notice.check()  # not again the same day
    assert feed.hits == 1


def test_portable_mode_never_asks_the_feed(
    qtbot: Any, qt_loop: qasync.QEventLoop, open_ctx: Callable[..., AppContext],
    feed: FeedServer,
) -> None:
    feed.serve(release("v99.1.0"))
    ctx = open_ctx()
    ctx.settings.update(update_feed_url=feed.url)
    window = make_window(qtbot, ctx)
    window.updates.check()  # decides at once: not due in portable mode
    assert feed.hits == 0 and not window.updates.button.isVisibleTo(window)

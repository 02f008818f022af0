"""The dialogs with a list beside a form fit a 640x480 screen: their content scrolls
instead of holding the dialog wider than the screen."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from desktop.app import AppContext
from desktop.ui.conversations.assistants_dialog import AssistantsDialog
from desktop.ui.providers.provider_dialog import ProviderDialog

TOOLS = ["read_file", "list_directory", "search_files", "write_file", "create_file",
         "edit_file", "run_command", "fetch_url"]


def test_provider_and_assistant_dialogs_fit_640x480(
    qtbot: Any, open_ctx: Callable[..., AppContext],
) -> None:
    ctx = open_ctx()
    for dialog in (ProviderDialog(ctx.providers),
                   AssistantsDialog(ctx.assistants, ctx.providers, TOOLS)):
        qtbot.addWidget(dialog)
        least = dialog.minimumSizeHint()
        assert least.width() <= 620 and least.height() <= 460, (type(dialog).__name__, least)
        dialog.resize(620, 460)
        dialog.show()
        qtbot.waitExposed(dialog)
        assert dialog.width() <= 620
        # the side list gives the form the room: at most 30 % of the dialog
        assert dialog.list.width() <= 0.3 * dialog.width() + 1

"""An approval's title in the interface's language.

The tools give their approval previews a title code and its parameters (Qt-free, see
:data:`desktop.tools.approval.TITLE_CODES`); here each code is worded with ``tr`` and
the parameters (a host, a path, a folder: data, never translated) filled in. A title
without a code (a tool's own name, an MCP server's) is shown as it is.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop.tools.approval import ApprovalPreview

_TITLES = {
    "fetch": QT_TRANSLATE_NOOP("ApprovalTitle", "Fetch {host}"),
    "run_command": QT_TRANSLATE_NOOP("ApprovalTitle", "Run a command"),
    "run_command_in": QT_TRANSLATE_NOOP("ApprovalTitle", "Run a command in {folder}"),
    "create": QT_TRANSLATE_NOOP("ApprovalTitle", "Create {path}"),
    "overwrite": QT_TRANSLATE_NOOP("ApprovalTitle", "Overwrite {path}"),
    "edit": QT_TRANSLATE_NOOP("ApprovalTitle", "Edit {path}"),
    "remember": QT_TRANSLATE_NOOP("ApprovalTitle", "Save a memory"),
    "command_network": QT_TRANSLATE_NOOP("ApprovalTitle",
                                         "Allow network for this chat's commands"),
}


_CONFINEMENTS = {  # desktop.tools.sandbox.CODES
    "sandboxed_offline": QT_TRANSLATE_NOOP(
        "ApprovalTitle", "Sandboxed · no network · writes only in the workspace"),
    "sandboxed_online": QT_TRANSLATE_NOOP(
        "ApprovalTitle", "Sandboxed · network allowed · writes only in the workspace"),
    "sandboxed_chat_online": QT_TRANSLATE_NOOP(
        "ApprovalTitle",
        "Sandboxed · network allowed for this chat · writes only in the workspace"),
    "unsandboxed_off": QT_TRANSLATE_NOOP(
        "ApprovalTitle", "Not sandboxed: the sandbox is turned off in Settings → Tools"),
    "unsandboxed_missing": QT_TRANSLATE_NOOP(
        "ApprovalTitle", "Not sandboxed: this system offers no sandbox (install bubblewrap)"),
}


def confinement_text(code: str) -> str:
    """Where a command will run, in the interface's language ("" when not a command)."""
    source = _CONFINEMENTS.get(code)
    return QCoreApplication.translate("ApprovalTitle", str(source)) if source else ""


def approval_title(preview: ApprovalPreview) -> str:
    source = _TITLES.get(preview.title_code)
    if source is None:
        return preview.title
    params = dict(preview.title_params)
    try:
        return QCoreApplication.translate("ApprovalTitle", str(source)).format(**params)
    except (KeyError, IndexError, ValueError):  # a translation with a wrong placeholder
        return preview.title

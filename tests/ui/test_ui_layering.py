"""The window's modules are handed narrow services, never the app context (issue 26).

Checked on the source. The lists below are what is left to move: a module taken off a
list must stay off it (a new import of storage, providers or ``desktop.app`` from the
interface fails here), and a module that no longer needs its entry must be taken off
(the lists only shrink, to empty)."""

from __future__ import annotations

import ast
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[2] / "desktop"
LOWER = ("storage", "providers", "app")

#: Interface modules that import desktop.storage / desktop.providers / desktop.app
#: (directly, or for annotations only): none. The window's entry point, which opens
#: the composition root (the data folder, its instance lock, the AppContext), reads the
#: first frame from the database file and looks for local servers, is desktop/gui/,
#: beside the command line's, outside the interface. Every widget is handed services.
STILL_IMPORTING: dict[str, set[str]] = {}

#: Interface modules that reach into the context (``something.ctx``): the controller,
#: which builds the window's services (AppServices) from the context the entry point
#: hands it.
STILL_REACHING_CTX = {
    "desktop/ui/window/controller.py",
}

#: The window's helpers: handed what they use, they never see the main window (its
#: wiring connects their signals; issue 26 item 5).
WINDOW_HELPERS = (
    "desktop/ui/window/tray.py",
    "desktop/ui/quick/quick_ask.py",
    "desktop/ui/window/welcome_view.py",
    "desktop/ui/compare/launcher.py",
    "desktop/ui/window/sync_scheduler.py",
    "desktop/ui/window/notifier.py",
)


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _ui_modules() -> list[Path]:
    return sorted((DESKTOP / "ui").rglob("*.py"))


def _name(path: Path) -> str:
    return path.relative_to(DESKTOP.parent).as_posix()


def test_the_interface_imports_no_storage_providers_or_app_beyond_what_is_left() -> None:
    found: dict[str, set[str]] = {}
    for path in _ui_modules():
        lower = {layer for name in _imports(_tree(path)) for layer in LOWER
                 if name == f"desktop.{layer}" or name.startswith(f"desktop.{layer}.")}
        if lower:
            found[_name(path)] = lower
    assert found == STILL_IMPORTING


def test_the_interface_reaches_into_the_context_only_where_it_is_left() -> None:
    found = {_name(path) for path in _ui_modules()
             if any(isinstance(node, ast.Attribute) and node.attr == "ctx"
                    for node in ast.walk(_tree(path)))}
    assert found == STILL_REACHING_CTX


def test_the_window_helpers_never_see_the_main_window() -> None:
    for name in WINDOW_HELPERS:
        imported = _imports(_tree(DESKTOP.parent / name))
        assert "desktop.ui.window.main_window" not in imported, name

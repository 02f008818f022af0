"""Which package under desktop/ may import which: a table of allowed edges, checked on the
source of every module (imports under ``TYPE_CHECKING`` and inside functions count too).

A new edge fails here: either it fits the design (add it to ``ALLOWED`` in review) or it
does not (fix the import). Today's edges that do not fit are listed one file at a time in
``EXCEPTIONS`` with the reason; an exception no longer needed fails too, so the list only
shrinks. "Qt" stands for PySide6/qasync/shiboken6: only the window imports it.
"""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from pathlib import Path

DESKTOP = Path(__file__).resolve().parents[1] / "desktop"
QT = "Qt"
QT_MODULES = ("PySide6", "qasync", "shiboken6")

#: Packages and top-level modules of desktop/ and what each may import. ``desktop`` is the
#: package's own metadata (desktop/__init__.py: version, app name, app id), free to all.
ALLOWED: dict[str, frozenset[str]] = {
    "core": frozenset(),
    # Every HTTP client comes from one factory (desktop.providers.http_clients): the
    # tools, knowledge and the update check take theirs from there.
    "providers": frozenset({"core"}),
    "tools": frozenset({"core", "providers"}),
    "storage": frozenset({"core"}),
    "documents": frozenset({"core"}),
    "knowledge": frozenset({"core", "storage", "documents", "tools", "providers"}),
    "projects": frozenset({"core", "storage", "knowledge", "documents"}),
    "skills": frozenset({"core", "storage", "tools"}),
    "sync": frozenset({"core", "storage"}),
    "updates": frozenset({"core", "providers"}),
    # The composition root builds everything below the window and the command line.
    "app": frozenset({"core", "providers", "tools", "storage", "chat", "projects", "sync",
                      "knowledge"}),
    "chat": frozenset({"core", "providers", "tools", "storage", "knowledge", "projects",
                       "skills"}),
    "cli": frozenset({"core", "chat", "tools", "knowledge", "storage", "providers", "sync",
                      "projects", "skills"}),
    "ui": frozenset({"core", "chat", "tools", "knowledge", "sync", "updates", "resources",
                     "projects", "skills", QT}),
    "resources": frozenset(),
    # The window's entry point (``assista`` without a command): opens the data folder
    # and the composition root, reads the first frame, then builds the window.
    "gui": frozenset({"app", "core", "chat", "projects", "providers", "resources", "storage",
                      "tools", "ui", QT}),
    # The process's set-up first (process_guard, model_plugins), then the command line.
    "__main__": frozenset({"cli", "core", "tools"}),
    "__init__": frozenset(),
}


#: (module under desktop/, package it imports) -> why, for edges outside ``ALLOWED``.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("cli/audio_cmd.py", "app"): "AppContext for the speech and transcription commands",
    ("cli/project_cmd.py", "app"): "AppContext for the project commands",
    ("core/page_preview.py", "resources"): "the bundled mermaid.js a preview page loads",
    ("tools/mcp/bundle_install.py", "storage"):
        "unpacks a bundle with storage.safe_zip (the safe unzip belongs below both)",
    ("cli/ask.py", "app"): "opens an AppContext for the turn (the CLI builds its own root)",
    ("cli/ask_compare.py", "app"): "opens an AppContext for the comparison",
    ("cli/context.py", "app"): "opens the AppContext every CLI command uses",
    ("cli/knowledge_cmd.py", "app"): "AppContext for the knowledge commands",
    ("cli/mcp_cmd.py", "app"): "AppContext for the MCP commands",
    ("cli/mcp_sign_in.py", "app"): "AppContext for the MCP sign-in command",
    ("cli/commands.py", "gui"): "`assista` without a command opens the window (launch_gui)",
    ("core/attachments.py", "documents"):
        "extracts text from attached documents when a message is sent (item 9)",
    ("documents/markup.py", "tools"):
        "reuses fetch_url's private HTML-to-text converter (item 9: move it down)",
    ("knowledge/chat_link.py", "chat"): "reads a chat's knowledge bases from ChatProfiles",
    ("sync/targets/http_files.py", "providers"):
        "builds its HTTP client with the providers' make_client (item 3: one client factory)",
}


def owner(path: Path) -> str:
    """The package (or top-level module) of desktop/ that ``path`` belongs to."""
    parts = path.relative_to(DESKTOP).parts
    return parts[0] if len(parts) > 1 else Path(parts[0]).stem


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(DESKTOP.parent).with_suffix("").parts)


def imported(path: Path, module: str) -> set[str]:
    """What the module ``module`` (its source at ``path``) imports: packages of desktop/
    (or "desktop" for its metadata, "Qt" for Qt), every import statement in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against this module's package
                package = module.split(".")[: -node.level]  # a package's is "x.__init__"
                base = ".".join([*package, *([base] if base else [])])
            names = [f"{base}.{alias.name}" for alias in node.names] if base == "desktop" \
                else [base]
        for name in names:
            parts = name.split(".")
            if parts[0] in QT_MODULES:
                found.add(QT)
            elif parts[0] == "desktop":
                inner = parts[1] if len(parts) > 1 else ""
                is_part = (DESKTOP / inner).is_dir() or (DESKTOP / f"{inner}.py").is_file()
                found.add(inner if inner and is_part else "desktop")
    return found


@functools.cache
def edges() -> dict[tuple[str, str], str]:
    """Every (module, package) edge across packages: module path under desktop/ -> owner."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted(DESKTOP.rglob("*.py")):
        source = owner(path)
        for target in imported(path, module_name(path)):
            if target not in (source, "desktop"):
                found[(path.relative_to(DESKTOP).as_posix(), target)] = source
    return found


def test_the_table_covers_every_package_and_module_of_desktop() -> None:
    parts = {owner(path) for path in DESKTOP.rglob("*.py")}
    assert parts == set(ALLOWED)
    named = {target for targets in ALLOWED.values() for target in targets}
    assert named <= set(ALLOWED) | {QT}


def test_every_import_between_packages_is_allowed_or_a_listed_exception() -> None:
    offending = [f"desktop/{module} imports {target}"
                 for (module, target), source in edges().items()
                 if target not in ALLOWED[source] and (module, target) not in EXCEPTIONS]
    assert not offending, (
        "new import edges (add them to ALLOWED if they fit the design, or import from an "
        "allowed package instead):\n" + "\n".join(offending))


def test_every_listed_exception_is_still_needed() -> None:
    found = edges()
    stale = [f"{module} -> {target}" for module, target in EXCEPTIONS
             if (module, target) not in found]
    assert not stale, "these imports are gone, remove them from EXCEPTIONS:\n" + "\n".join(stale)
    assert all(target not in ALLOWED[owner(DESKTOP / module)]
               for module, target in EXCEPTIONS), "an exception the table already allows"


def test_storage_imports_no_feature() -> None:
    """Each feature owns its migrations (``Migrations(name, ...)``) and the composition
    root registers them: the storage layer never imports a feature's schema (item 9)."""
    assert ALLOWED["storage"] == frozenset({"core"})
    assert not [key for key in EXCEPTIONS if key[0].startswith("storage/")]


def test_only_the_window_imports_qt() -> None:
    """The interface and the window's entry point (which starts Qt and shows it)."""
    assert [source for source, targets in ALLOWED.items() if QT in targets] == ["ui", "gui"]
    assert not [key for key in EXCEPTIONS if key[1] == QT]


def test_the_edge_reader_sees_every_form_of_import(tmp_path: Path) -> None:
    """The reader itself: absolute, from-, relative, lazy and TYPE_CHECKING imports."""
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from typing import TYPE_CHECKING\n"
        "import desktop.storage.paths\n"
        "from desktop import __version__\n"
        "from ..chat import service\n"
        "if TYPE_CHECKING:\n    from desktop.app import AppContext\n"
        "def f():\n    from PySide6.QtCore import QObject\n    import qasync\n",
        encoding="utf-8")
    assert imported(probe, "desktop.core.probe") == {"storage", "desktop", "chat", "app", QT}


def test_the_chat_service_runs_without_qt_loaded() -> None:
    code = ("import sys, desktop.chat.service, desktop.cli.ask; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'qasync'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=DESKTOP.parent)
    assert out.stdout.strip() == "[]"

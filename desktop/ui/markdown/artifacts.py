"""Code blocks that are things to look at: an SVG drawn inline (QtSvg: no script runs,
nothing outside the text is loaded) with a Source toggle; a mermaid diagram or an HTML
page previewed in the browser, locked down (:mod:`desktop.core.page_preview`); any of
them saved as a file. The header buttons of a code block are worked out here."""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtCore import QByteArray, QCoreApplication, QRectF, QStandardPaths, QUrl
from PySide6.QtGui import QDesktopServices, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from desktop.core.page_preview import (
    MermaidMissing,
    html_page,
    is_page,
    mermaid_page,
    write_preview,
)

__all__ = ["artifact_kind", "button_labels", "button_tip", "open_preview", "save_artifact",
           "svg_image"]

MAX_SVG_WIDTH = 560  # logical pixels an inline drawing is shrunk to
MAX_SVG_SOURCE = 2 * 1024 * 1024
MAX_PIXELS = 4096 * 4096
_SUFFIX = {"svg": ".svg", "mermaid": ".mmd", "html": ".html"}
# an <image>'s link that is not a data: URL (a file or an address): dropped before drawing
_OUTSIDE_LINK = re.compile(
    r"""(<image\b[^>]*?\s(?:xlink:)?href\s*=\s*)(["'])(?!\s*data:)[^"']*\2""",
    re.IGNORECASE | re.DOTALL)
_STYLE_IMPORT = re.compile(r"@import[^;]*;?|url\(\s*['\"]?(?!data:)[^)]*\)", re.IGNORECASE)


def artifact_kind(lang: str, code: str) -> str | None:
    """``svg``, ``mermaid``, ``html`` or None for a code block of ``lang``."""
    lang = lang.lower()
    start = code.lstrip()[:200].lower()
    if lang == "svg" or (lang in ("xml", "html", "") and start.startswith(("<svg", "<?xml"))
                         and "<svg" in start):
        return "svg"
    if lang == "mermaid":
        return "mermaid"
    if lang in ("html", "htm") or (lang == "" and is_page(code)):
        return "html"
    return None


def button_labels(kind: str | None, showing_source: bool) -> list[tuple[str, str]]:
    """``(action, label)`` of a code block's header buttons, right to left."""
    buttons = [("copy", QCoreApplication.translate("Segment", "Copy"))]
    if kind is None:
        return buttons
    buttons.append(("save", QCoreApplication.translate("Segment", "Save…")))
    if kind == "svg":
        label = (QCoreApplication.translate("Segment", "Picture") if showing_source
                 else QCoreApplication.translate("Segment", "Source"))
        buttons.append(("source", label))
    else:
        buttons.append(("preview", QCoreApplication.translate("Segment", "Preview")))
    return buttons


def button_tip(action: str) -> str:
    if action == "preview":
        return QCoreApplication.translate(
            "Segment", "Open in your browser: this runs the model's code, with every "
                       "network request blocked")
    if action == "source":
        return QCoreApplication.translate("Segment", "Show the code, or the drawing")
    if action == "save":
        return QCoreApplication.translate("Segment", "Save this as a file")
    return ""


def safe_svg(code: str) -> bytes:
    """The SVG without links to anything outside it (QtSvg would read local files)."""
    return _STYLE_IMPORT.sub("", _OUTSIDE_LINK.sub(r"\1\2\2", code)).encode("utf-8")


def svg_image(code: str, dpr: float = 1.0, max_width: int = MAX_SVG_WIDTH) -> QImage | None:
    """``code`` drawn, at most ``max_width`` wide; None when it is not an SVG QtSvg
    can read (the block then shows its source)."""
    if len(code) > MAX_SVG_SOURCE:
        return None
    renderer = QSvgRenderer(QByteArray(safe_svg(code)))
    if not renderer.isValid():
        return None
    size = renderer.defaultSize()
    width, height = (size.width(), size.height()) if not size.isEmpty() else (300, 150)
    scale = min(1.0, max_width / max(1, width))
    width, height = max(1, round(width * scale)), max(1, round(height * scale))
    if width * height * dpr * dpr > MAX_PIXELS:
        return None
    image = QImage(round(width * dpr), round(height * dpr),
                   QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(0)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    image.setDevicePixelRatio(dpr)
    return image


class _Consent:
    given = False  # asked once per run of the app


def preview_folder() -> Path:
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.TempLocation)
    return Path(base) / "assista-previews"


def preview_page(kind: str, code: str, *, dark: bool = False) -> str:
    return mermaid_page(code, dark=dark) if kind == "mermaid" else html_page(code)


def open_preview(parent: QWidget, kind: str, code: str, *, dark: bool = False) -> Path | None:
    """Write the preview of ``code`` (as it is now) and open it in the system browser,
    once the person agreed that it runs the model's code; the file's path, or None."""
    if not _Consent.given:
        answer = QMessageBox.question(
            parent, QCoreApplication.translate("Segment", "Preview"),
            QCoreApplication.translate(
                "Segment", "The preview runs the model's code in your web browser. Every "
                           "network request from it is blocked, so it cannot send anything "
                           "anywhere or load anything. Open it?"))
        if answer != QMessageBox.StandardButton.Yes:
            return None
        _Consent.given = True
    try:
        page = preview_page(kind, code, dark=dark)
        path = write_preview(preview_folder(), page, kind)
    except MermaidMissing:
        QMessageBox.warning(parent, QCoreApplication.translate("Segment", "Preview"),
                            QCoreApplication.translate(
                                "Segment", "This build has no mermaid.js, so diagrams "
                                           "cannot be previewed."))
        return None
    except OSError as exc:
        QMessageBox.warning(parent, QCoreApplication.translate("Segment", "Preview"),
                            QCoreApplication.translate(
                                "Segment", "Could not write the preview: {error}").format(
                                error=exc.strerror or str(exc)))
        return None
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
    return path


def save_artifact(parent: QWidget, kind: str, code: str) -> Path | None:
    """Ask where, and write ``code`` there; the path, or None."""
    suffix = _SUFFIX.get(kind, ".txt")
    name, _filter = QFileDialog.getSaveFileName(
        parent, QCoreApplication.translate("Segment", "Save as"), f"{kind}{suffix}",
        QCoreApplication.translate(
            "Segment", "{kind} files (*{suffix});;All files (*)").format(
            kind=kind.upper(), suffix=suffix))
    if not name:
        return None
    path = Path(name)
    try:
        path.write_text(code, encoding="utf-8")
    except OSError as exc:
        QMessageBox.warning(parent, QCoreApplication.translate("Segment", "Save as"),
                            QCoreApplication.translate(
                                "Segment", "Could not save {path}: {error}").format(
                                path=str(path), error=exc.strerror or str(exc)))
        return None
    return path

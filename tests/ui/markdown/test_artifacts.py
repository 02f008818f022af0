"""Drawings, diagrams and pages in an answer's code blocks: an SVG is drawn inline (and
nothing outside it is read), Source shows its code; a mermaid diagram or an HTML page
gets Preview, which writes a locked-down page from the block's current text."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QByteArray, QObject, QPointF, QRectF, Qt, QUrl, Slot
from PySide6.QtGui import QColor, QDesktopServices, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

from desktop.core.page_preview import CSP, MermaidMissing, mermaid_script
from desktop.ui.markdown import artifacts
from desktop.ui.markdown.view import MarkdownView

RED_SVG = ('<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60">'
           '<rect width="120" height="60" fill="#ff0000"/></svg>')


def reds(image: QImage) -> int:
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    return sum(1 for y in range(0, image.height(), 3) for x in range(0, image.width(), 3)
               if image.pixelColor(x, y).red() > 200 and image.pixelColor(x, y).green() < 60)


def shown(qtbot: Any, text: str) -> MarkdownView:
    view = MarkdownView()
    qtbot.addWidget(view)
    view.resize(700, 400)
    view.set_markdown(text)
    view.show()
    return view


def click_button(qtbot: Any, view: MarkdownView, index: int, action: str) -> None:
    segment = view.segment(index)
    [rect] = [r for a, _label, r in segment.buttons(view.width()) if a == action]
    where = rect.center() + QPointF(0, segment.top)
    qtbot.mouseClick(view, Qt.MouseButton.LeftButton, pos=where.toPoint())


def test_an_svg_block_is_drawn_and_source_shows_its_code(qtbot: Any) -> None:
    view = shown(qtbot, f"A box:\n\n```svg\n{RED_SVG}\n```\n")
    segment = view.segment(1)
    assert segment.artifact == "svg" and segment.drawn
    assert reds(view.grab().toImage()) > 50
    assert [a for a, _l, _r in segment.buttons(700)] == ["copy", "save", "source"]
    click_button(qtbot, view, 1, "source")
    assert not segment.drawn and "<rect" in segment.doc.toPlainText()
    assert reds(view.grab().toImage()) == 0
    click_button(qtbot, view, 1, "copy")  # copying gives the code either way
    from PySide6.QtGui import QGuiApplication
    assert QGuiApplication.clipboard().text() == RED_SVG
    click_button(qtbot, view, 1, "source")
    assert segment.drawn


def test_an_svg_without_a_language_and_a_broken_one(qtbot: Any) -> None:
    view = shown(qtbot, f"```\n{RED_SVG}\n```\n\n```svg\n<svg><rect width=\n```\n")
    assert view.segment(0).drawn
    broken = view.segment(1)
    assert broken.artifact == "svg" and not broken.drawn  # its source, no crash
    assert "<svg><rect width=" in broken.doc.toPlainText()


def test_an_svg_never_reads_a_file_it_links(tmp_path: Path) -> None:
    secret = tmp_path / "secret.png"
    green = QImage(40, 40, QImage.Format.Format_ARGB32)
    green.fill(QColor("#00ff00"))
    assert green.save(str(secret))
    svg = ('<svg xmlns="http://www.w3.org/2000/svg" '
           'xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40">'
           f'<image x="0" y="0" width="40" height="40" xlink:href="{secret.as_uri()}"/>'
           f'<image x="0" y="0" width="40" height="40" href="{secret}"/></svg>')

    def greens(image: QImage) -> int:
        return sum(1 for y in range(0, 40, 4) for x in range(0, 40, 4)
                   if image.pixelColor(x, y).green() > 200)

    # QtSvg on its own reads the file: the check can see it
    raw = QImage(40, 40, QImage.Format.Format_ARGB32)
    raw.fill(0)
    with QPainter(raw) as painter:
        QSvgRenderer(QByteArray(svg.encode())).render(painter, QRectF(0, 0, 40, 40))
    assert greens(raw) > 0
    drawn = artifacts.svg_image(svg)
    assert drawn is not None and greens(drawn.convertToFormat(QImage.Format.Format_ARGB32)) == 0


class Opened(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def open(self, url: QUrl) -> None:
        self.urls.append(url)


@pytest.fixture
def opened(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Opened]:
    catcher = Opened()
    QDesktopServices.setUrlHandler("file", catcher, "open")
    monkeypatch.setattr(artifacts, "preview_folder", lambda: tmp_path / "previews")
    monkeypatch.setattr(artifacts._Consent, "given", True)
    yield catcher
    QDesktopServices.unsetUrlHandler("file")


def test_an_html_block_previews_locked_down_from_its_current_text(
        qtbot: Any, opened: Opened) -> None:
    view = shown(qtbot, "```html\n<h1>First</h1><script>alert(1)</script>\n```\n")
    assert [a for a, _l, _r in view.segment(0).buttons(700)] == ["copy", "save", "preview"]
    click_button(qtbot, view, 0, "preview")
    [first] = opened.urls
    page = Path(first.toLocalFile()).read_text()
    assert CSP in page and "First" in page and 'sandbox="allow-scripts"' in page
    view.set_markdown("```html\n<h1>Edited</h1>\n```\n")  # the message was edited
    click_button(qtbot, view, 0, "preview")
    edited = Path(opened.urls[1].toLocalFile()).read_text()
    assert "Edited" in edited and "First" not in edited


def test_a_mermaid_block_previews_with_the_bundled_mermaid(qtbot: Any, opened: Opened) -> None:
    try:
        mermaid_script()
    except MermaidMissing:
        pytest.skip("mermaid.js not fetched (python packaging/web_assets.py)")
    view = shown(qtbot, "```mermaid\ngraph TD; A-->B\n```\n")
    assert view.segment(0).artifact == "mermaid"
    click_button(qtbot, view, 0, "preview")
    page = Path(opened.urls[0].toLocalFile()).read_text()
    assert "graph TD; A--&gt;B" in page and "mermaid.initialize" in page and CSP in page


def test_plain_code_has_only_copy(qtbot: Any) -> None:
    view = shown(qtbot, "```python\nprint(1)\n```\n")
    assert [a for a, _l, _r in view.segment(0).buttons(700)] == ["copy"]
    assert view.segment(0).artifact is None

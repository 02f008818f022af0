"""A sent file's page count reads as English does ("1 page", "2 slides"): the count's
text was not read as a plural by lupdate, and English showed "1 page(s)"."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from PySide6.QtWidgets import QApplication

from desktop.ui.chat.attachment_cards import page_count
from desktop.ui.i18n import install_translations


@pytest.fixture
def english(qtbot: Any) -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    install_translations(app, "en")
    try:
        yield
    finally:
        install_translations(app, "")  # (the system's, as the other tests have it)


def test_counts_read_as_english(english: None) -> None:
    assert page_count("pdf", 1) == "1 page"
    assert page_count("pdf", 3) == "3 pages"
    assert page_count("pptx", 2) == "2 slides"
    assert page_count("xlsx", 1) == "1 sheet"
    assert page_count("epub", 12) == "12 chapters"

"""Documents to text on real files written by the usual libraries, and a clear
sentence for every file that cannot be read."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from desktop.core.attachments import (
    AttachmentError,
    attachment_budget,
    attachment_name,
    attachment_note,
    load_attachment,
    native_document,
)
from desktop.core.messages import TextPart
from desktop.documents import DocumentError, extract_sections, render_text
from tests.support.documents import (
    write_docx,
    write_encrypted_pdf,
    write_epub,
    write_pdf,
    write_pptx,
    write_xlsx,
)


def _text(path: Path) -> str:
    part = load_attachment(path)
    assert isinstance(part, TextPart)
    assert attachment_name(part) == path.name
    return part.text


def test_pdf_pages_and_the_file_kept_for_native_readers(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "report.pdf", ["Quarterly revenue rose 12%.", "Page two: risks."])
    sections = extract_sections(path)
    assert [s.label for s in sections] == ["page 1", "page 2"]
    assert "Quarterly revenue rose 12%." in sections[0].text
    part = load_attachment(path)
    assert isinstance(part, TextPart)
    assert "[page 2]\nPage two: risks." in part.text
    document = native_document(part)
    assert document is not None and document[:2] == ("report.pdf", "application/pdf")
    assert base64.b64decode(document[2]) == path.read_bytes()


def test_docx_headings_paragraphs_and_tables(tmp_path: Path) -> None:
    path = write_docx(tmp_path / "memo.docx", "Launch plan", ["Ship on Tuesday.", "Tell sales."],
                      table=[["Owner", "Task"], ["Ana", "Docs"]])
    text = _text(path)
    assert "# Launch plan\nShip on Tuesday.\nTell sales." in text
    assert "Owner | Task\nAna | Docs" in text
    assert native_document(load_attachment(path)) is None  # only PDFs go as files


def test_xlsx_sheets_with_dates_and_numbers(tmp_path: Path) -> None:
    import datetime

    path = write_xlsx(tmp_path / "budget.xlsx", {
        "Costs": [["Item", "Amount", "Due"], ["Rent", 1200, datetime.datetime(2025, 3, 1)]],
        "Notes": [["remember the deposit"]],
    })
    text = _text(path)
    assert "[sheet Costs]\nItem\tAmount\tDue\nRent\t1200\t2025-03-01" in text
    assert "[sheet Notes]\nremember the deposit" in text


def test_csv_pptx_html_epub_markdown(tmp_path: Path) -> None:
    csv_path = tmp_path / "people.csv"
    csv_path.write_text('name,city\n"Lee, Ann",Oslo\n', encoding="utf-8")
    assert "name\tcity\nLee, Ann\tOslo" in _text(csv_path)
    pptx = write_pptx(tmp_path / "deck.pptx", [("Roadmap", "Q1: search"), ("Risks", "Hiring")])
    text = _text(pptx)
    assert "[slide 1]\nRoadmap\nQ1: search" in text and "[slide 2]\nRisks\nHiring" in text
    html = tmp_path / "page.html"
    html.write_text("<html><head><title>T</title><script>x()</script></head>"
                    "<body><h2>Hello</h2><p>World &amp; more</p></body></html>")
    text = _text(html)
    assert "Hello" in text and "World & more" in text and "x()" not in text
    epub = write_epub(tmp_path / "book.epub", ["It was a dark night.", "Morning came."])
    text = _text(epub)
    assert "[chapter 1]" in text and "It was a dark night." in text
    assert text.index("dark night") < text.index("Morning came")
    source = tmp_path / "main.rs"
    source.write_text("fn main() {}\n")
    assert "fn main() {}" in _text(source)


def test_large_text_is_cut_with_a_visible_note(tmp_path: Path) -> None:
    path = tmp_path / "log.txt"
    path.write_text("line of log text\n" * 100_000)
    part = load_attachment(path, max_chars=10_000)
    assert isinstance(part, TextPart)
    note = attachment_note(part)
    assert note is not None and "log.txt was cut to fit the model's context" in note
    assert note in part.text and len(part.text) < 11_000
    pdf = write_pdf(tmp_path / "long.pdf", [f"page {n} " + "words " * 80 for n in range(30)])
    rendered = render_text("long.pdf", extract_sections(pdf), 3_000)
    assert rendered.note is not None and "(up to page" in rendered.note
    assert "of 30)" in rendered.note
    assert attachment_budget(8_000) < attachment_budget(None)


def test_encrypted_pdf_says_it_needs_a_password(tmp_path: Path) -> None:
    path = write_encrypted_pdf(tmp_path / "locked.pdf", "secret plans")
    with pytest.raises(AttachmentError, match=r"locked\.pdf is password-protected"):
        load_attachment(path)


def test_damaged_pdf(tmp_path: Path) -> None:
    good = write_pdf(tmp_path / "good.pdf", ["fine"]).read_bytes()
    path = tmp_path / "broken.pdf"
    path.write_bytes(good[:200] + b"\x00garbage" * 50)
    with pytest.raises(AttachmentError, match=r"broken.pdf (is damaged|has no text)"):
        load_attachment(path)


def test_binary_file_named_pdf(tmp_path: Path) -> None:
    path = tmp_path / "photo.pdf"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(AttachmentError, match=r"photo\.pdf is not a PDF"):
        load_attachment(path)


def test_empty_file(tmp_path: Path) -> None:
    for name in ("empty.txt", "empty.pdf", "empty.docx"):
        (tmp_path / name).write_bytes(b"")
        with pytest.raises(AttachmentError, match=f"{name} is empty"):
            load_attachment(tmp_path / name)


def test_500_mb_file_is_refused_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.pdf"
    with path.open("wb") as handle:  # sparse: no disk space, no time
        handle.truncate(500 * 1024 * 1024)
    with pytest.raises(AttachmentError, match=r"huge.pdf is too large to read \(500 MB; "
                                              r"the limit is 100 MB\)"):
        load_attachment(path)


@pytest.mark.parametrize("suffix", [".docx", ".xlsx", ".pptx", ".epub"])
def test_not_really_a_package(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"fake{suffix}"
    path.write_bytes(b"this is not a zip file at all")
    with pytest.raises(DocumentError, match=f"fake{suffix} is damaged"):
        extract_sections(path)


def test_scanned_pdf_without_text(tmp_path: Path) -> None:
    path = write_pdf(tmp_path / "scan.pdf", ["", ""])
    with pytest.raises(DocumentError, match=r"no text to read.*scanned"):
        extract_sections(path)

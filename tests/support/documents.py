"""Real documents for the tests and benchmarks, written by the maintained libraries
users' files come from (fpdf2, python-docx, openpyxl, python-pptx, pypdf)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path


def write_pdf(path: Path, pages: Sequence[str]) -> Path:
    """A PDF with one page per string (lines split on newlines)."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.set_compression(True)
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        for line in text.split("\n"):
            pdf.cell(0, 6, line, new_x="LMARGIN", new_y="NEXT")
    pdf.output(str(path))
    return path


def write_encrypted_pdf(path: Path, text: str, password: str = "secret") -> Path:
    from pypdf import PdfReader, PdfWriter

    plain = write_pdf(path.with_name(path.stem + "-plain.pdf"), [text])
    writer = PdfWriter(clone_from=PdfReader(plain))
    writer.encrypt(user_password=password, owner_password=password, algorithm="AES-128")
    with path.open("wb") as handle:
        writer.write(handle)
    return path


def write_docx(path: Path, heading: str, paragraphs: Sequence[str],
               table: Sequence[Sequence[str]] = ()) -> Path:
    import docx

    document = docx.Document()
    document.add_heading(heading, level=1)
    for text in paragraphs:
        document.add_paragraph(text)
    if table:
        grid = document.add_table(rows=len(table), cols=len(table[0]))
        for r, row in enumerate(table):
            for c, value in enumerate(row):
                grid.cell(r, c).text = value
    document.save(str(path))
    return path


def write_xlsx(path: Path, sheets: dict[str, Sequence[Sequence[object]]]) -> Path:
    from openpyxl import Workbook

    workbook = Workbook()
    workbook.remove(workbook.active)  # type: ignore[arg-type]
    for title, rows in sheets.items():
        sheet = workbook.create_sheet(title)
        for row in rows:
            sheet.append(list(row))
    workbook.save(path)
    return path


def write_pptx(path: Path, slides: Sequence[tuple[str, str]]) -> Path:
    """One title-and-content slide per ``(title, body)``."""
    from pptx import Presentation

    deck = Presentation()
    for title, body in slides:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(path))
    return path


def write_epub(path: Path, chapters: Sequence[str]) -> Path:
    """A minimal valid EPUB 3 (container, package document, one XHTML per chapter)."""
    import zipfile

    items = "".join(f'<item id="c{i}" href="c{i}.xhtml" media-type="application/xhtml+xml"/>'
                    for i in range(len(chapters)))
    spine = "".join(f'<itemref idref="c{i}"/>' for i in range(len(chapters)))
    with zipfile.ZipFile(path, "w") as book:
        book.writestr("mimetype", "application/epub+zip")
        book.writestr("META-INF/container.xml",
                      '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:'
                      'tc:opendocument:xmlns:container"><rootfiles><rootfile full-path='
                      '"OEBPS/book.opf" media-type="application/oebps-package+xml"/>'
                      "</rootfiles></container>")
        book.writestr("OEBPS/book.opf",
                      '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" '
                      f'version="3.0"><manifest>{items}</manifest><spine>{spine}</spine>'
                      "</package>")
        for i, text in enumerate(chapters):
            book.writestr(f"OEBPS/c{i}.xhtml",
                          '<html xmlns="http://www.w3.org/1999/xhtml"><body>'
                          f"<h1>Chapter {i + 1}</h1><p>{text}</p></body></html>")
    return path
